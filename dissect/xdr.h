/* Shared context for program decoders (NFS, MOUNT, NLM, ...): a cursor
 * over the whole RPC message (so c.off is the XDR position that Read
 * chunk positions refer to), the record being filled, where DDP took
 * bulk data out of the stream, and an optional -V tree. */
#ifndef NFSRDMA_XDR_H
#define NFSRDMA_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/dtree.h"
#include "dissect/extract.h"
#include "dissect/record.h"

#define XDR_DDP_MAX 16

/* Data items the RPC-over-RDMA layer moved out of the XDR stream. */
struct xdr_ddp {
	/* call: Read chunks at position > 0 */
	uint16_t nread, read_used;
	uint32_t read_pos[XDR_DDP_MAX];
	uint64_t read_len[XDR_DDP_MAX];
	/* reply: Write list entries, consumed in order by DDP-eligible results */
	uint16_t nwrite, write_used;
	uint64_t write_len[XDR_DDP_MAX];  /* lengths the reply echoed */
	/* how many DDP-eligible items the decoder met (for check.c) */
	uint16_t eligible_seen;
};

struct pdec {
	struct cursor c;
	struct nfsrdma_record *rec;
	struct xdr_ddp *ddp;       /* may be NULL */
	struct dtree *tree;        /* NULL unless -V */
	bool reply;
	uint32_t vers, proc;
	const char *layer;         /* for diagnostics: "nfs3", "nfs4", ... */
	/* set by decoders on the first failure; the caller reports it */
	bool failed;
};

/* 64-bit FNV-1a of a filehandle: stable, cheap, printed as 0x%08x of the
 * low 32 bits in the line output. */
static inline uint64_t xdr_fh_hash(const uint8_t *p, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Reads an opaque<> that may be DDP-eligible.  Call side: the body is
 * absent from the stream when a Read chunk sits at this position (or the
 * length runs past the inline data while a chunk is outstanding).  Reply
 * side: each eligible result consumes the next Write list entry.  Returns
 * the length; *moved says whether the body came by RDMA. */
uint32_t xdr_ddp_opaque(struct pdec *d, uint32_t max, bool *moved, const char *what);

/* Reads a string<max> into out: its bytes as they were, NUL-terminated,
 * cut as name_keep() does (at outlen-1 bytes, on a UTF-8 character's
 * boundary, or at a NUL byte); *cut (may be NULL) says whether it was.
 * Returns false on failure. */
bool xdr_name(struct pdec *d, uint32_t max, char *out, size_t outlen, bool *cut, const char *what);
bool xdr_string(struct pdec *d, uint32_t max, char *out, size_t outlen, const char *what);
/* Reads a filehandle (opaque<maxlen>), returns its hash (0 on failure). */
uint64_t xdr_fh(struct pdec *d, uint32_t maxlen, const char *what);

static inline uint32_t xdr_u32(struct pdec *d, const char *what) { return cur_be32(&d->c, what); }
static inline uint64_t xdr_u64(struct pdec *d, const char *what) { return cur_be64(&d->c, what); }
static inline bool xdr_ok(const struct pdec *d) { return cur_ok(&d->c); }
static inline void xdr_skip(struct pdec *d, size_t n, const char *what) { cur_skip(&d->c, n, what); }
/* opaque<> skipped, bounded by max */
static inline void xdr_skip_opaque(struct pdec *d, uint32_t max, const char *what)
{
	cur_xdr_opaque(&d->c, max, NULL, what);
}
/* A bool; values other than 0/1 mark the stream invalid. */
static inline bool xdr_bool(struct pdec *d, const char *what)
{
	uint32_t v = cur_be32(&d->c, what);
	if (v > 1) {
		d->c.off -= 4;
		cur_fail(&d->c, CUR_INVALID, what);
		return false;
	}
	return v;
}
/* Skips an array<> of fixed-size elements. */
static inline uint32_t xdr_skip_array(struct pdec *d, size_t elem, uint32_t max, const char *what)
{
	uint32_t n = cur_be32(&d->c, what);
	if (n > max) {
		d->c.off -= 4;
		cur_fail(&d->c, CUR_INVALID, what);
		return 0;
	}
	cur_skip(&d->c, (size_t)n * elem, what);
	return n;
}

/* Marks the u32 just read as invalid (the error points at it). */
static inline void xdr_bad_u32(struct pdec *d, const char *what)
{
	if (cur_ok(&d->c) && d->c.off >= 4)
		d->c.off -= 4;
	cur_fail(&d->c, CUR_INVALID, what);
}

/* Copies a string into the record's name, bounded as name_keep() does;
 * a name cut there or before (cut) is flagged RECF_NAME_CUT. */
void xdr_rec_name(struct nfsrdma_record *r, const char *s, bool cut);
/* The tree's line of a name: label: "NAME" in the text convention
 * (dissect/name_text.h), "..." after it when it was cut. */
void xdr_dt_name(struct pdec *d, const char *label, const char *s, bool cut);

#endif
