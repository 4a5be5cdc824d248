/* Shared by the fwd_*.c files only. */
#ifndef NFSRDMA_FWD_PRIV_H
#define NFSRDMA_FWD_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#define FWD_KEYS_MAX 256

int fwd_split(const char *spec, char *host, size_t hostlen, unsigned *port);
int fwd_norm_addr(const char *in, char *out, size_t outlen, bool *wildcard);
int fwd_read_keys(const char *path, char (*keys)[41], int max, char *err, size_t errlen);

#endif
