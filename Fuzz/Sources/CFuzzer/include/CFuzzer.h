// libFuzzer's driver, for fuzz targets whose `main` is their own (SwiftPM names an
// executable's entry point itself): it parses libFuzzer's flags and runs `callback`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
