/* ONC RPC program registry: program number -> name, versions, procedure
 * names and the decoders for its arguments and results.  Each program
 * lives in its own file and exports one `const struct prog_info`. */
#ifndef NFSRDMA_PROGRAMS_H
#define NFSRDMA_PROGRAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/nfs_vocab.h"
#include "dissect/xdr.h"


struct prog_info {
	uint32_t prog;
	uint32_t vmin, vmax;
	const char *name;                                /* "NFS", "MOUNT", ... */
	const char *layer;                               /* diagnostics layer: "nfs3", "mount", ... */
	const char *(*proc_name)(uint32_t vers, uint32_t proc); /* NULL if unknown */
	/* d->c is positioned at the args / results; decoders fill d->rec */
	void (*decode_call)(struct pdec *d);
	void (*decode_reply)(struct pdec *d);
	/* May procedure proc carry DDP data (RFC 8267)?  reply: Write list /
	 * call: Read chunk at position > 0. */
	bool (*ddp_eligible)(uint32_t vers, uint32_t proc, bool reply);
};

const struct prog_info *prog_lookup(uint32_t prog, uint32_t vers);
/* Short names for lines and summaries: "NFSv3", "MOUNTv3", "prog 395" ... */
const char *prog_short_name(uint32_t prog, uint32_t vers, char *buf, size_t len);
/* Procedure name or NULL. */
const char *prog_proc_name(uint32_t prog, uint32_t vers, uint32_t proc);
/* True when a record can carry this procedure or operation name (any
 * program, NFSv4 operation, callback operation or COMPOUND name the
 * decoders give), case-insensitively: what --op may name. */
bool prog_name_known(const char *name);

extern const struct prog_info prog_nfs2, prog_nfs3, prog_nfs4, prog_nfs_cb, prog_mount,
	prog_nlm, prog_nsm, prog_nfsacl, prog_portmap;

#endif
