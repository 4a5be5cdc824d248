/* XDP records -> transport -> dissector (see pcap/xdp_feed.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/feed.h"
#include "pcap/xdp_feed.h"

struct xdp_feed {
	struct dissect *d;
	struct dissect_feed *feed;
	struct dissect_cbs user;
	struct xdp_feed_stats st;
	uint64_t last_frame;
	struct nfsrdma_record rec;   /* copy handed to the user, source = XDP */
};

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct xdp_feed *f = ctx;

	f->st.xid_records++;
	if (!f->user.record)
		return;
	f->rec = *r;
	f->rec.source = REC_SRC_XDP;
	f->user.record(&f->rec, t, f->user.ctx);
}

static void on_finding(const struct dissect_finding *fd, void *ctx)
{
	struct xdp_feed *f = ctx;

	if (f->user.finding)
		f->user.finding(fd, f->user.ctx);
}

static void on_diag(const struct diag *g, void *ctx)
{
	struct xdp_feed *f = ctx;

	if (f->user.diag)
		f->user.diag(g, f->user.ctx);
}

static void on_frame_note(const struct dissect_frame_note *n, void *ctx)
{
	struct xdp_feed *f = ctx;

	if (f->user.frame_note)
		f->user.frame_note(n, f->user.ctx);
}

struct xdp_feed *xdp_feed_new(const struct dissect_opts *o, const struct dissect_cbs *cbs)
{
	struct xdp_feed *f = calloc(1, sizeof(*f));
	struct dissect_opts def = { 0 };

	if (!f)
		return NULL;
	if (cbs)
		f->user = *cbs;
	struct dissect_cbs mine = { .record = on_record, .finding = on_finding, .diag = on_diag,
				     .frame_note = on_frame_note, .ctx = f };
	f->d = dissect_new(o ? o : &def, &mine);
	if (f->d)
		f->feed = dissect_feed_new(f->d, NULL);
	if (!f->feed || dissect_feed_set_linktype(f->feed, LINKTYPE_ETHERNET, "xdp", NULL, 0) < 0) {
		xdp_feed_free(f);
		return NULL;
	}
	return f;
}

void xdp_feed_free(struct xdp_feed *f)
{
	if (!f)
		return;
	dissect_feed_free(f->feed);   /* before the dissector it feeds */
	dissect_free(f->d);
	free(f);
}

_Static_assert(XDP_REC_BASE % 8 == 0 && XDP_REC_FULL % 8 == 0 && XDP_REC_BASE < XDP_REC_FULL,
	       "record layout: the base part ends at the RPC-over-RDMA summary");

int xdp_rec_check(const void *buf, size_t len, struct xdp_roce_rec *h, const uint8_t **frame)
{
	if (!buf || len < XDP_REC_BASE) {
		memset(h, 0, sizeof(*h));
		return -EBADMSG;
	}
	/* one copy (no alignment assumption on buf); a base-size record's
	 * summary part is zeroed below */
	memcpy(h, buf, len < XDP_REC_FULL ? len : XDP_REC_FULL);
	if (h->magic != XDP_ROCE_MAGIC)
		return -EBADMSG;
	/* the summary is there exactly when the program parsed one */
	if (h->hdr_size != (h->rr_status != RR_NONE ? XDP_REC_FULL : XDP_REC_BASE) ||
	    h->hdr_size > len)
		return -EBADMSG;
	if (h->hdr_size == XDP_REC_BASE)
		memset((uint8_t *)h + XDP_REC_BASE, 0, XDP_REC_FULL - XDP_REC_BASE);
	if (h->cap_len > len - h->hdr_size || h->cap_len > XDP_ROCE_SNAP_MAX ||
	    h->cap_len > h->wire_len)
		return -EBADMSG;
	if (h->status != XR_ROCE && h->status != XR_MALFORMED)
		return -EBADMSG;
	if (h->frame == 0)
		return -EBADMSG;
	*frame = (const uint8_t *)buf + h->hdr_size;
	return 0;
}

int xdp_feed_record(struct xdp_feed *f, const void *buf, size_t len, uint64_t ts_ns)
{
	const uint8_t *frame;
	struct xdp_roce_rec h;

	if (xdp_rec_check(buf, len, &h, &frame) < 0) {
		f->st.bad_records++;
		return -EBADMSG;
	}
	f->st.records++;
	if (h.status == XR_ROCE)
		f->st.roce++;
	else
		f->st.malformed++;
	/* Frames are numbered by the program in the order it saw them; with
	 * several RX queues the per-CPU ring writers may interleave. */
	if (h.frame <= f->last_frame)
		f->st.reordered++;
	f->last_frame = h.frame;
	dissect_feed_packet(f->feed, h.frame, ts_ns, frame, h.cap_len, h.wire_len);
	return 0;
}

void xdp_feed_flush(struct xdp_feed *f)
{
	dissect_feed_finish(f->feed);
}

const struct xdp_feed_stats *xdp_feed_stats(const struct xdp_feed *f) { return &f->st; }
