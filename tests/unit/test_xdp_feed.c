/* pcap/xdp_feed.c without the kernel: records built in user space around the
 * frames of a real lab capture go through xdp_rec_check, the transport and
 * the dissector.
 *   - the per-XID records equal dissect_file() on the same capture;
 *   - a frame the transport rejects reaches the caller's diag callback with
 *     the caller's context and the record's frame number (it used to reach
 *     it with the dissector as context: a crash found by fuzz_xdp_record);
 *   - records that lie about their sizes are rejected and counted. */
#include <errno.h>

#include "check.h"
#include "dissect/dissect.h"
#include "pcap/capfile.h"
#include "pcap/dissect_run.h"
#include "pcap/xdp_feed.h"

#define CAPTURE "tests/captures/nfs3-symlink.pcap"

struct seen {
	unsigned records, diags, diag_bad_ctx;
	uint64_t diag_frame;
	uint32_t xids[256];
};

static struct seen *expect_ctx;

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct seen *s = ctx;
	(void)t;
	if (s->records < 256)
		s->xids[s->records] = r->xid;
	s->records++;
}

static void on_diag(const struct diag *g, void *ctx)
{
	struct seen *s = ctx;

	if (ctx != expect_ctx) {
		expect_ctx->diag_bad_ctx++;
		return;
	}
	s->diags++;
	s->diag_frame = g->frame;
}

/* A record as bpf/xdp_roce.bpf.c lays it out: the base header, then bytes. */
static size_t make_rec(uint8_t *out, const uint8_t *frame, size_t cap, size_t wire, uint64_t no)
{
	struct xdp_roce_rec h;

	memset(&h, 0, sizeof(h));
	h.magic = XDP_ROCE_MAGIC;
	h.hdr_size = XDP_REC_BASE;
	h.cap_len = (uint16_t)cap;
	h.frame = no;
	h.wire_len = (uint32_t)wire;
	h.status = XR_ROCE;
	memcpy(out, &h, XDP_REC_BASE);
	memcpy(out + XDP_REC_BASE, frame, cap);
	return XDP_REC_BASE + cap;
}

static uint8_t rec[XDP_REC_FULL + 65536];

static void whole_capture(void)
{
	struct seen got = { 0 }, want = { 0 };
	struct dissect_cbs cbs = { .record = on_record, .diag = on_diag, .ctx = &got };
	struct xdp_feed *f = xdp_feed_new(NULL, &cbs);
	struct pcap_source *src;
	char err[256];
	const uint8_t *data;
	size_t cap, wire, n = 0;
	uint64_t ts;

	expect_ctx = &got;
	CHECK(f != NULL, "xdp_feed_new");
	CHECK(pcap_source_open(&src, CAPTURE, err, sizeof(err)) == 0, "%s", err);
	if (!f || !src)
		return;
	while (pcap_source_next(src, &ts, &data, &cap, &wire, err, sizeof(err)) == 1) {
		n++;
		if (cap > XDP_ROCE_SNAP_MAX)
			cap = XDP_ROCE_SNAP_MAX;
		size_t len = make_rec(rec, data, cap, wire, n);
		CHECK(xdp_feed_record(f, rec, len, ts) == 0, "frame %zu accepted", n);
	}
	pcap_source_close(src);
	xdp_feed_flush(f);
	CHECK_EQ_U64(xdp_feed_stats(f)->records, n);
	CHECK_EQ_U64(xdp_feed_stats(f)->bad_records, 0);
	xdp_feed_free(f);

	struct dissect_cbs dcbs = { .record = on_record, .ctx = &want };
	struct dissect_opts o = { 0 };
	struct dissect *d = dissect_new(&o, &dcbs);
	CHECK(d && dissect_file(d, CAPTURE, err, sizeof(err)) == 0, "dissect %s", CAPTURE);
	dissect_free(d);
	CHECK(want.records > 5, "the dissector finds the capture's XIDs (%u)", want.records);
	CHECK_EQ_U64(got.records, want.records);
	CHECK(got.records == want.records &&
	      !memcmp(got.xids, want.xids, sizeof(uint32_t) * (want.records < 256 ? want.records : 256)),
	      "the same XIDs in the same order");
	CHECK_EQ_U64(got.diag_bad_ctx, 0);
}

/* First RoCEv2 frame of the capture whose UDP header can be broken. */
static size_t first_roce(uint8_t *out, size_t max)
{
	struct pcap_source *src;
	char err[256];
	const uint8_t *data;
	size_t cap, wire, got = 0;
	uint64_t ts;

	if (pcap_source_open(&src, CAPTURE, err, sizeof(err)) < 0)
		return 0;
	while (pcap_source_next(src, &ts, &data, &cap, &wire, err, sizeof(err)) == 1) {
		if (cap >= 14 + 20 + 8 + 12 && cap <= max && data[12] == 0x08 && data[13] == 0 &&
		    data[23] == 17 && data[36] == 0x12 && data[37] == 0xb7) {
			memcpy(out, data, cap);
			got = cap;
			break;
		}
	}
	pcap_source_close(src);
	return got;
}

static void malformed_frame(void)
{
	struct seen s = { 0 };
	struct dissect_cbs cbs = { .record = on_record, .diag = on_diag, .ctx = &s };
	struct xdp_feed *f = xdp_feed_new(NULL, &cbs);
	uint8_t fr[4096];
	size_t len = first_roce(fr, sizeof(fr));

	expect_ctx = &s;
	CHECK(f && len, "feed and a RoCEv2 frame from %s", CAPTURE);
	if (!f || !len)
		return;
	/* UDP length 9: no room for a BTH, a truncated RoCE header */
	fr[38] = 0;
	fr[39] = 9;
	size_t rl = make_rec(rec, fr, len, len, 7);
	CHECK(xdp_feed_record(f, rec, rl, 1000) == 0, "a malformed frame is still a good record");
	CHECK_EQ_U64(s.diag_bad_ctx, 0);
	CHECK_EQ_U64(s.diags, 1);
	CHECK_EQ_U64(s.diag_frame, 7);
	xdp_feed_free(f);
}

static void lying_records(void)
{
	struct seen s = { 0 };
	struct dissect_cbs cbs = { .record = on_record, .ctx = &s };
	struct xdp_feed *f = xdp_feed_new(NULL, &cbs);
	uint8_t fr[4096];
	size_t len = first_roce(fr, sizeof(fr));
	struct xdp_roce_rec h, out;
	const uint8_t *bytes;

	CHECK(f && len, "feed and frame");
	if (!f || !len)
		return;
	size_t rl = make_rec(rec, fr, len, len, 1);
	CHECK(xdp_rec_check(rec, rl, &out, &bytes) == 0 && bytes == rec + XDP_REC_BASE &&
	      out.cap_len == len, "a well-formed record passes, frame bytes after the base header");
	CHECK(xdp_rec_check(rec, XDP_REC_BASE - 1, &out, &bytes) == -EBADMSG, "shorter than a header");
	CHECK(xdp_rec_check(rec, rl - 1, &out, &bytes) == -EBADMSG, "cap_len past the record");
	memcpy(&h, rec, sizeof(h));
	h.rr_status = RR_OK;               /* says it has the summary, is base-sized */
	memcpy(rec, &h, XDP_REC_BASE);
	CHECK(xdp_rec_check(rec, rl, &out, &bytes) == -EBADMSG, "hdr_size disagrees with rr_status");
	h.hdr_size = XDP_REC_FULL;         /* now consistent: the bytes start later */
	memcpy(rec, &h, XDP_REC_BASE);
	CHECK(xdp_rec_check(rec, rl, &out, &bytes) == -EBADMSG, "full header + cap_len past the record");
	h.rr_status = RR_NONE;
	h.hdr_size = XDP_REC_BASE;
	h.magic ^= 1;
	memcpy(rec, &h, XDP_REC_BASE);
	CHECK(xdp_feed_record(f, rec, rl, 1) == -EBADMSG, "bad magic");
	h.magic ^= 1;
	h.frame = 0;
	memcpy(rec, &h, XDP_REC_BASE);
	CHECK(xdp_feed_record(f, rec, rl, 1) == -EBADMSG, "frame 0");
	h.frame = 1;
	h.wire_len = (uint32_t)len - 1;
	memcpy(rec, &h, XDP_REC_BASE);
	CHECK(xdp_feed_record(f, rec, rl, 1) == -EBADMSG, "cap_len above wire_len");
	CHECK_EQ_U64(xdp_feed_stats(f)->bad_records, 3);
	CHECK_EQ_U64(xdp_feed_stats(f)->records, 0);
	xdp_feed_free(f);
}

int main(void)
{
	whole_capture();
	malformed_frame();
	lying_records();
	return check_summary("xdp_feed");
}
