/* Shared body of the per-program libFuzzer harnesses: byte 0 picks
 * call/reply, the alternate program (bit 7), whether DDP took data out of
 * the stream (bit 1), the decode tree (bit 2) and the Write chunk count;
 * byte 1 the procedure; the rest is the XDR body. */
#ifndef NFSRDMA_FUZZ_PROG_H
#define NFSRDMA_FUZZ_PROG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dissect/programs.h"

static inline int fuzz_prog_one(const uint8_t *data, size_t size, const struct prog_info *main_prog,
				const struct prog_info *alt_prog, uint32_t vers)
{
	static struct nfsrdma_record rec;
	struct xdr_ddp ddp;
	struct dtree t;

	if (size < 2)
		return 0;
	const struct prog_info *p = data[0] & 0x80 ? alt_prog : main_prog;
	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	dt_init(&t, 1 << 16);
	bool reply = data[0] & 1;
	uint32_t proc = data[1] % 24;
	if (data[0] & 2) {
		ddp.nread = 1;
		ddp.read_pos[0] = 2u + (data[0] >> 2) * 4u;
		ddp.read_len[0] = 1000;
		ddp.nwrite = 1;
		ddp.write_len[0] = 1000;
	}
	rec.n_write_chunks = (data[0] >> 4) & 3;
	struct pdec d = { .c = cur_make(data, size), .rec = &rec, .ddp = &ddp,
			  .tree = (data[0] & 4) ? &t : NULL, .reply = reply, .vers = vers,
			  .proc = proc, .layer = p->layer };
	d.c.off = 2;
	if (reply && p->decode_reply)
		p->decode_reply(&d);
	else if (!reply && p->decode_call)
		p->decode_call(&d);
	dt_free(&t);
	return 0;
}

#endif
