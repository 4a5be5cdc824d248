/* libFuzzer harness for the XDP records as user space receives them from
 * the shared record rings (pcap/xdp_feed.c: xdp_rec_check, then the
 * transport and the dissector).  The rings are memory the kernel program
 * and anything else with the map can write, so a record is hostile input.
 *
 * Input: a sequence of [len: 2 bytes BE][flags: 1 byte][len bytes].
 *   flags bit 0 clear: the bytes go in as they are (raw record);
 *   flags bit 0 set:   the bytes are made to pass the header checks first
 *                      (magic, hdr_size matching rr_status, cap_len within
 *                      what is there, a frame number), so the fuzzer
 *                      reaches the transport behind them at once.
 * The feed is flushed at the end. */
#include <stdlib.h>
#include <string.h>

#include "pcap/xdp_feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	(void)t;
	(void)ctx;
	if (r->source != REC_SRC_XDP)
		__builtin_trap();
	sink += r->xid + (unsigned)r->proc;
}

static void on_diag(const struct diag *d, void *ctx)
{
	(void)ctx;
	sink += (unsigned)strlen(d->msg);
}

static void make_valid(uint8_t *b, size_t len, uint64_t frame)
{
	struct xdp_roce_rec h;

	memcpy(&h, b, len < sizeof(h) ? len : sizeof(h));
	h.magic = XDP_ROCE_MAGIC;
	h.hdr_size = h.rr_status != RR_NONE ? XDP_REC_FULL : XDP_REC_BASE;
	h.status = (h.status & 1) ? XR_ROCE : XR_MALFORMED;
	h.frame = frame;
	size_t room = len > h.hdr_size ? len - h.hdr_size : 0;
	if (h.cap_len > room)
		h.cap_len = (uint16_t)(room > XDP_ROCE_SNAP_MAX ? XDP_ROCE_SNAP_MAX : room);
	if (h.wire_len < h.cap_len)
		h.wire_len = h.cap_len;
	memcpy(b, &h, len < h.hdr_size ? len : h.hdr_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dissect_cbs cbs = { .record = on_record, .diag = on_diag };
	struct xdp_feed *f = xdp_feed_new(NULL, &cbs);
	static uint8_t buf[65536 + sizeof(struct xdp_roce_rec)];
	uint64_t ts = 1000000000ull, frame = 0;

	if (!f)
		return 0;
	while (size >= 3) {
		size_t len = ((size_t)data[0] << 8) | data[1];
		uint8_t flags = data[2];
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		size_t blen = len;
		if ((flags & 1) && blen < XDP_REC_FULL)
			blen = XDP_REC_FULL;        /* room for a whole header */
		memset(buf, 0, blen);
		memcpy(buf, data, len);
		if (flags & 1)
			make_valid(buf, blen, ++frame);
		/* exactly blen bytes, in a heap copy, so ASan sees any overread */
		uint8_t *rec = malloc(blen ? blen : 1);
		if (rec) {
			memcpy(rec, buf, blen);
			xdp_feed_record(f, rec, blen, ts);
			free(rec);
		}
		ts += (flags & 2) ? 2000000000ull : 1000;
		data += len;
		size -= len;
	}
	xdp_feed_flush(f);
	const struct xdp_feed_stats *st = xdp_feed_stats(f);
	if (st->records + st->bad_records == 0 && frame)
		__builtin_trap();   /* every record is either fed or rejected */
	xdp_feed_free(f);
	return 0;
}
