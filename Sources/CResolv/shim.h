#ifndef CANVAS_CRESOLV_SHIM_H
#define CANVAS_CRESOLV_SHIM_H
#include <netinet/in.h>
#include <arpa/nameser.h>
#include <resolv.h>

/// res_query for the SRV records of `name` (class IN): the answer's length, or -1.
static inline int canvas_query_srv(const char *name, unsigned char *answer, int length) {
    return res_query(name, ns_c_in, ns_t_srv, answer, length);
}
#endif
