#ifndef CANVAS_COPENSSL_SHIM_H
#define CANVAS_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#endif
