// The driver itself is in libFuzzer (linked with -sanitize=fuzzer); this file only makes
// the header a module.
#include "CFuzzer.h"
