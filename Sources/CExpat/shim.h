#ifndef CANVAS_CEXPAT_SHIM_H
#define CANVAS_CEXPAT_SHIM_H
#include <expat.h>
#endif
