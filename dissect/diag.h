/* Diagnostics from decoders.  Decoders never print: they report problems
 * through this callback, and the tool decides how to show them (the CLI
 * prints "file: frame N, offset O: layer: what" on one line). */
#ifndef NFSRDMA_DIAG_H
#define NFSRDMA_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"

struct diag {
	uint64_t frame;        /* 1-based frame number, 0 if not tied to one */
	size_t   offset;       /* byte offset in the frame (or message) */
	const char *layer;     /* "erf", "ib", "roce", "rpcrdma", "rpc", "nfs3", ... */
	enum cur_err kind;     /* CUR_TRUNCATED or CUR_INVALID */
	const char *msg;       /* what was wrong, one line, no trailing newline */
};

typedef void (*diag_fn)(const struct diag *d, void *ctx);

#endif
