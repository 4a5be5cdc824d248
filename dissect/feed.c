/* The transport -> dissector wiring (see dissect/feed.h). */
#include "dissect/feed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "dissect/chunks.h"
#include "dissect/dissect_int.h"

struct dissect_feed {
	struct dissect *d;
	struct transport *tp;
	rdma_event_fn tap;
	void *tap_ctx;
	uint64_t frame;          /* last frame number handed in */
	bool finished;
};

static void on_event(const struct rdma_event *ev, void *ctx)
{
	struct dissect_feed *f = ctx;

	if (f->tap)
		f->tap(ev, f->tap_ctx);
	dissect_event(ev, f->d);
}

/* The transport's complaints go where the dissector's go. */
static void on_diag(const struct diag *g, void *ctx)
{
	const struct dissect_feed *f = ctx;

	if (f->d->cbs.diag)
		f->d->cbs.diag(g, f->d->cbs.ctx);
}

/* Payload the upper layers will not look at is not copied: Write chunk
 * data (the file bytes of an NFS READ) and Read chunks at a position > 0
 * (those of an NFS WRITE).  The segment table knows which is which. */
static bool want_data(const struct rdma_conn *c, int dir, int type, uint32_t rkey, uint64_t va,
		      uint32_t len, void *ctx)
{
	const struct dissect_feed *f = ctx;

	(void)type;
	(void)len;
	return chunks_wants_data(&f->d->segs, c->id, dir ^ 1, rkey, va);
}

struct dissect_feed *dissect_feed_new(struct dissect *d, const struct dissect_feed_opts *opts)
{
	struct dissect_feed *f;

	if (!d || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->d = d;
	if (!(f->tp = transport_new(on_event, on_diag, f))) {
		free(f);
		return NULL;
	}
	if (!opts || !opts->copy_all_payload)
		transport_set_data_filter(f->tp, want_data);
	transport_set_frame_tracking(f->tp, dissect_wants_frames(d));
	transport_set_rpc_net(f->tp, !d->opts.no_rpc_net);
	for (unsigned i = 0; i < d->opts.n_rpc_ports && i < 16; i++)
		transport_add_rpc_port(f->tp, d->opts.rpc_ports[i]);
	return f;
}

int dissect_feed_set_linktype(struct dissect_feed *f, int linktype, const char *name,
			      char *err, size_t errlen)
{
	if (transport_set_linktype(f->tp, linktype) == 0)
		return 0;
	const char *ln = transport_linktype_name(linktype);
	if (err && errlen)
		snprintf(err, errlen, "%s: unsupported link type %d (%s)", name ? name : "capture",
			 linktype, ln ? ln : "unknown");
	return -EPROTONOSUPPORT;
}

void dissect_feed_set_tap(struct dissect_feed *f, rdma_event_fn tap, void *ctx)
{
	f->tap = tap;
	f->tap_ctx = tap ? ctx : NULL;
}

uint64_t dissect_feed_packet(struct dissect_feed *f, uint64_t frame, uint64_t ts_ns,
			     const uint8_t *data, size_t caplen, size_t wirelen)
{
	f->frame = frame ? frame : f->frame + 1;
	transport_packet(f->tp, ts_ns, f->frame, data, caplen, wirelen);
	return f->frame;
}

/* The dissector keeps the transport's counters of its last run, so a
 * caller that only holds the dissector (dissect_transport_stats) can
 * print them after the feed is gone. */
static void keep_stats(struct dissect_feed *f)
{
	f->d->tstats = *transport_stats(f->tp);
	f->d->tstats_valid = true;
}

void dissect_feed_finish(struct dissect_feed *f)
{
	if (f->finished)
		return;
	f->finished = true;
	transport_flush(f->tp);
	dissect_flush(f->d);
	keep_stats(f);
}

const struct transport_stats *dissect_feed_transport_stats(const struct dissect_feed *f)
{
	return transport_stats(f->tp);
}

void dissect_feed_free(struct dissect_feed *f)
{
	if (!f)
		return;
	keep_stats(f);
	transport_free(f->tp);
	free(f);
}

const struct transport_stats *dissect_transport_stats(const struct dissect *d)
{
	return d->tstats_valid ? &d->tstats : NULL;
}
