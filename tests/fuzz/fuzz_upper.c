/* libFuzzer: the whole upper half.  The input is cut into events (SEND,
 * RDMA READ/WRITE) on one connection, so chunk matching, reassembly and
 * the XID table see hostile sequences. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dissect/dissect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void on_rec(const struct nfsrdma_record *r, const struct dtree *t, void *ctx) {}

static void on_note(const struct dissect_frame_note *n, void *ctx)
{
	sink += n->frame + n->role + (n->rec ? n->rec->xid : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdma_conn c;
	struct dissect_opts o = { .tree = size & 1, .max_inflight = 64 };
	struct dissect_cbs cbs = { on_rec, NULL, NULL, NULL, (size & 2) ? on_note : NULL };
	struct dissect *d = dissect_new(&o, &cbs);
	uint64_t ts = 1;

	if (!d)
		return 0;
	memset(&c, 0, sizeof(c));
	c.id = 1;
	c.client_known = true;
	/* record: type(1) dir(1) len(2) rkey(4) va(8) data[len]; type % 4:
	 * SEND, READ, WRITE, ACK (PSN from the rkey bytes); the event's
	 * frames are its frame number and the next two */
	while (size >= 16) {
		struct rdma_event ev;
		memset(&ev, 0, sizeof(ev));
		static const enum rdma_ev_type types[] = { RDMA_EV_SEND, RDMA_EV_READ, RDMA_EV_WRITE, RDMA_EV_ACK };
		uint64_t frames[3];
		ev.type = types[data[0] % 4];
		ev.dir = data[1] & 1;
		size_t len = (size_t)data[2] << 8 | data[3];
		ev.rkey = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];
		ev.va = 0;
		for (int i = 0; i < 8; i++)
			ev.va = ev.va << 8 | data[8 + i];
		data += 16;
		size -= 16;
		if (len > size)
			len = size;
		ev.conn = &c;
		ev.data = data;
		ev.data_len = ev.msg_len = len;
		ev.dma_len = (uint32_t)len;
		ev.ts_first_ns = ts;
		ev.ts_last_ns = ts + 1;
		ev.frame_first = ev.frame_last = ts;
		ev.psn_first = ev.rkey & 0xffffff;
		ev.npkts = 1 + (data[-16] >> 6);
		frames[0] = ts;
		frames[1] = ts + 1;
		frames[2] = ts + 2;
		ev.frames = frames;
		ev.nframes = ev.npkts < 3 ? ev.npkts : 3;
		ts += 3;
		dissect_event(&ev, d);
		data += len;
		size -= len;
	}
	dissect_flush(d);
	dissect_free(d);
	return 0;
}
