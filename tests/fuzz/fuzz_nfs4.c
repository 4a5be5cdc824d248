/* libFuzzer: nfs4 argument and result decoders.  Byte 0 picks call/reply,
 * the procedure and whether DDP took data out of the stream. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dissect/programs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nfsrdma_record rec;
	struct xdr_ddp ddp;
	struct dtree t;
	const struct prog_info *p = size > 0 && data[0] & 0x80 ? &prog_nfs_cb : &prog_nfs4;

	if (size < 2)
		return 0;
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
			  .tree = (data[0] & 4) ? &t : NULL, .reply = reply, .vers = 4,
			  .proc = proc, .layer = p->layer };
	d.c.off = 2;
	if (reply && p->decode_reply)
		p->decode_reply(&d);
	else if (!reply && p->decode_call)
		p->decode_call(&d);
	dt_free(&t);
	return 0;
}
