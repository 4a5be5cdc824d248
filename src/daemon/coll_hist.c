/* See coll_hist.h.  Series in a table with a hash index (one lookup per
 * fused RPC); each series keeps the spans it has seen (a phase, or
 * phases a missing vantage left merged), so that an observation is
 * always labelled with exactly the span it measured. */
#include "src/daemon/coll_hist.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/record_names.h"
#include "src/daemon/metrics_pb.h"
#include "src/stats/agg.h"
#include "src/stats/verdict_sum.h"

#define LAB 64
#define NBUCKET 1024
#define NSPAN 16   /* distinct spans per series: the ten phases, and the merged ones missing vantages leave */
#define NVERD 8    /* distinct per-RPC verdicts (place-sets) per series */

struct span {
	uint8_t first, last;        /* phases it covers, first..last */
	uint64_t cnt[AGG_PROM_NLE + 1];   /* by bound, last +Inf */
	uint64_t sum, n;
	struct hist h;              /* the native buckets' source (hist_native.h) */
};

struct series {
	char lab[4][LAB];           /* protocol, operation, client, server; "" = other */
	uint8_t transport;
	uint32_t next;              /* hash chain (index + 1) */
	struct span total;
	struct span sp[NSPAN];
	unsigned nsp;
	struct verdict_sum vs;      /* places and segments summed */
	uint16_t vset[NVERD];       /* the RPCs' verdicts (rec.f_verdict) and how many had each */
	uint64_t vcnt[NVERD];
	unsigned nv;
};

struct coll_hist {
	uint64_t spans_overflow;    /* spans past NSPAN in a series: not observed */
	uint64_t verdicts_overflow; /* RPCs whose verdict was past NVERD in a series: not counted */
	struct series *s;
	uint32_t n, bucket[NBUCKET];
	struct series other;
};

struct coll_hist *coll_hist_new(void)
{
	struct coll_hist *h = calloc(1, sizeof(*h));

	if (h && !(h->s = calloc(COLL_HIST_MAX, sizeof(*h->s)))) {
		free(h);
		return NULL;
	}
	if (h)
		hist_init(&h->other.total.h, HIST_RES);
	return h;
}

static void series_free(struct series *s)
{
	hist_free(&s->total.h);
	for (unsigned i = 0; i < s->nsp; i++)
		hist_free(&s->sp[i].h);
}

void coll_hist_free(struct coll_hist *h)
{
	if (h) {
		for (uint32_t i = 0; i < h->n; i++)
			series_free(&h->s[i]);
		series_free(&h->other);
		free(h->s);
	}
	free(h);
}

static uint32_t hash(char lab[4][LAB], uint8_t tr)
{
	uint32_t x = 2166136261u ^ tr;
	for (int i = 0; i < 4; i++)
		for (const char *p = lab[i]; *p; p++)
			x = (x ^ (uint8_t)*p) * 16777619u;
	return x % NBUCKET;
}

static struct series *series_of(struct coll_hist *h, const struct nfsrdma_record *r)
{
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;
	char lab[4][LAB];

	memset(lab, 0, sizeof(lab));
	rec_prog_str(r, lab[0], LAB);
	rec_proc_str(r, lab[1], LAB);
	dissect_addr_str(client, lab[2], LAB);
	dissect_addr_str(server, lab[3], LAB);
	uint32_t b = hash(lab, r->transport);
	for (uint32_t i = h->bucket[b]; i; i = h->s[i - 1].next) {
		struct series *s = &h->s[i - 1];
		if (s->transport == r->transport && !memcmp(s->lab, lab, sizeof(lab)))
			return s;
	}
	if (h->n >= COLL_HIST_MAX)
		return &h->other;
	struct series *s = &h->s[h->n++];
	memcpy(s->lab, lab, sizeof(lab));
	s->transport = r->transport;
	hist_init(&s->total.h, HIST_RES);
	s->next = h->bucket[b];
	h->bucket[b] = h->n;
	return s;
}

static void observe(struct span *s, uint64_t v)
{
	static const uint64_t ns[AGG_PROM_NLE] = { 10000, 25000, 50000, 100000, 250000, 500000, 1000000,
						   2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
						   250000000, 1000000000, 10000000000 };
	unsigned i = 0;

	while (i < AGG_PROM_NLE && v > ns[i])
		i++;
	s->cnt[i]++;
	s->sum += v;
	s->n++;
	hist_add(&s->h, v);
}

static struct span *span_of(struct coll_hist *h, struct series *s, unsigned first, unsigned last)
{
	for (unsigned i = 0; i < s->nsp; i++)
		if (s->sp[i].first == first && s->sp[i].last == last)
			return &s->sp[i];
	if (s->nsp >= NSPAN) {
		h->spans_overflow++;
		return NULL;
	}
	struct span *p = &s->sp[s->nsp++];
	p->first = (uint8_t)first;
	p->last = (uint8_t)last;
	hist_init(&p->h, HIST_RES);
	return p;
}

void coll_hist_add(struct coll_hist *h, const struct nfsrdma_record *r)
{
	if (r->source != REC_SRC_JOINED)
		return;
	struct series *s = series_of(h, r);
	for (unsigned p = 0; p < REC_FP_N; p++) {
		if (!(r->f_mask & (1u << p)))
			continue;
		unsigned last = p;
		while (last + 1 < REC_FP_N && (r->f_merged & (1u << last)))
			last++;
		/* net_out+net_back (directions the clocks cannot give): the
		 * span past the phases, REC_FP_N, marks the pair */
		if (p == REC_FP_NET_OUT && last == p && (r->f_merged & REC_FM_NET_PAIR))
			last = REC_FP_N;
		struct span *sp = span_of(h, s, p, last);
		if (sp)
			observe(sp, r->f_phase[p]);
	}
	observe(&s->total, r->f_total);
	verdict_sum_add(&s->vs, r);
	if (r->f_verdict) {
		unsigned i = 0;
		while (i < s->nv && s->vset[i] != r->f_verdict)
			i++;
		if (i == s->nv && s->nv < NVERD)
			s->vset[s->nv++] = r->f_verdict;
		if (i < s->nv)
			s->vcnt[i]++;
		else
			h->verdicts_overflow++;
	}
}

static void labels(FILE *f, const struct series *s, bool other)
{
	fprintf(f, "protocol=\"%s\",operation=\"%s\",client=\"%s\",server=\"%s\",transport=\"%s\"",
		other ? "other" : s->lab[0], other ? "other" : s->lab[1], other ? "other" : s->lab[2],
		other ? "other" : s->lab[3], other ? "other" : rec_transport_name(s->transport));
}

static void one(FILE *f, const char *name, const struct series *s, bool other, const struct span *k,
		const char *phase, bool native)
{
	uint64_t cum = 0;

	for (unsigned b = 0; b <= AGG_PROM_NLE; b++) {
		cum += k->cnt[b];
		fprintf(f, "%s_bucket{", name);
		labels(f, s, other);
		if (phase)
			fprintf(f, ",phase=\"%s\"", phase);
		if (b < AGG_PROM_NLE)
			fprintf(f, ",le=\"%g\"} %" PRIu64 "\n", agg_prom_le[b], cum);
		else
			fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", cum);
	}
	fprintf(f, "%s_sum{", name);
	labels(f, s, other);
	if (phase)
		fprintf(f, ",phase=\"%s\"", phase);
	fprintf(f, "} %.9f\n%s_count{", (double)k->sum / 1e9, name);
	labels(f, s, other);
	if (phase)
		fprintf(f, ",phase=\"%s\"", phase);
	fprintf(f, "} %" PRIu64 "\n", k->n);
	metrics_native_line(f, &k->h, native);
}

static void seg_lines(FILE *f, const struct coll_hist *h, bool count)
{
	for (uint32_t i = 0; i <= h->n; i++) {
		const struct series *s = i < h->n ? &h->s[i] : &h->other;
		for (unsigned sg = REC_SEG_CLIENT_NET; sg <= REC_SEG_SERVER_NET; sg++) {
			if (!s->vs.seg_n[sg])
				continue;
			fprintf(f, "%s{", count ? "nfsrdma_rpc_segment_rpcs_total" : "nfsrdma_rpc_segment_seconds_total");
			labels(f, s, i == h->n);
			if (count)
				fprintf(f, ",segment=\"%s\"} %" PRIu64 "\n", rec_seg_name(sg), s->vs.seg_n[sg]);
			else
				fprintf(f, ",segment=\"%s\"} %.9f\n", rec_seg_name(sg), (double)s->vs.seg_sum[sg] / 1e9);
		}
	}
}

/* The clock-free segments, the places' time and the RPCs' verdicts
 * (docs/record.md "Segments and the verdict"); place: the names of
 * enum rec_place joined by '|' ("client_net|server_net": the data cannot
 * tell them apart), as the CSV's verdict column writes them */
static void verdict_write(const struct coll_hist *h, FILE *f)
{
	char pl[160];

	fputs("# HELP nfsrdma_rpc_segment_seconds_total Fused RPCs with the wire: the clock-free network round "
	      "trip on each side of the capture point (client_net, server_net; docs/record.md), summed over the "
	      "RPCs that had it.\n# TYPE nfsrdma_rpc_segment_seconds_total counter\n", f);
	seg_lines(f, h, false);
	fputs("# HELP nfsrdma_rpc_segment_rpcs_total Fused RPCs that had the segment (the count of "
	      "nfsrdma_rpc_segment_seconds_total).\n# TYPE nfsrdma_rpc_segment_rpcs_total counter\n", f);
	seg_lines(f, h, true);
	fputs("# HELP nfsrdma_rpc_place_seconds_total Fused RPCs: their time divided among places (client_host, "
	      "client_net, server_net, server_queue, execute, pull, push, reply_wait); a place a|b is time the data "
	      "cannot divide between them.  Per RPC the places sum to its fused duration.\n"
	      "# TYPE nfsrdma_rpc_place_seconds_total counter\n", f);
	for (uint32_t i = 0; i <= h->n; i++) {
		const struct series *s = i < h->n ? &h->s[i] : &h->other;
		for (unsigned k = 0; k < s->vs.nset; k++) {
			fputs("nfsrdma_rpc_place_seconds_total{", f);
			labels(f, s, i == h->n);
			fprintf(f, ",place=\"%s\"} %.9f\n", verdict_places_str(s->vs.set[k], '|', pl, sizeof(pl)),
				(double)s->vs.set_ns[k] / 1e9);
		}
	}
	fputs("# HELP nfsrdma_rpc_verdict_total Fused RPCs by their verdict: the place holding most of the RPC's "
	      "time, or the places the data cannot tell apart (a|b).  Never a direction the clocks cannot give.\n"
	      "# TYPE nfsrdma_rpc_verdict_total counter\n", f);
	for (uint32_t i = 0; i <= h->n; i++) {
		const struct series *s = i < h->n ? &h->s[i] : &h->other;
		for (unsigned k = 0; k < s->nv; k++) {
			fputs("nfsrdma_rpc_verdict_total{", f);
			labels(f, s, i == h->n);
			fprintf(f, ",place=\"%s\"} %" PRIu64 "\n", verdict_places_str(s->vset[k], '|', pl, sizeof(pl)),
				s->vcnt[k]);
		}
	}
	fputs("# HELP nfsrdma_rpc_fused_overflow_total Fused observations not kept: a series had more distinct "
	      "verdicts (verdicts) or place-sets (places) than it keeps.\n"
	      "# TYPE nfsrdma_rpc_fused_overflow_total counter\n", f);
	uint64_t places = 0;
	for (uint32_t i = 0; i <= h->n; i++)
		places += (i < h->n ? &h->s[i] : &h->other)->vs.overflow;
	fprintf(f, "nfsrdma_rpc_fused_overflow_total{what=\"verdicts\"} %" PRIu64 "\n", h->verdicts_overflow);
	fprintf(f, "nfsrdma_rpc_fused_overflow_total{what=\"places\"} %" PRIu64 "\n", places);
}

void coll_hist_write(const struct coll_hist *h, FILE *f, bool native)
{
	char span[160];

	fputs("# HELP nfsrdma_rpc_fused_duration_seconds Fused RPCs (client, wire and server joined): the "
	      "client's total, task begin to task end, or the widest span the joined vantages saw.\n"
	      "# TYPE nfsrdma_rpc_fused_duration_seconds histogram\n", f);
	for (uint32_t i = 0; i <= h->n; i++) {
		const struct series *s = i < h->n ? &h->s[i] : &h->other;
		if (s->total.n)
			one(f, "nfsrdma_rpc_fused_duration_seconds", s, i == h->n, &s->total, NULL, native);
	}
	fputs("# HELP nfsrdma_rpc_fused_phase_seconds Fused RPCs: time per end-to-end phase (docs/record.md); "
	      "a span a missing vantage could not split is one phase named by its parts (a+b).  The phases of "
	      "an RPC sum to its fused duration.\n# TYPE nfsrdma_rpc_fused_phase_seconds histogram\n", f);
	for (uint32_t i = 0; i <= h->n; i++) {
		const struct series *s = i < h->n ? &h->s[i] : &h->other;
		for (unsigned k = 0; k < s->nsp; k++) {
			const struct span *sp = &s->sp[k];
			/* the span's name from a merged mask covering just it */
			uint32_t m = sp->last == REC_FP_N ? REC_FM_NET_PAIR :
				     (uint32_t)(((1u << sp->last) - 1) & ~((1u << sp->first) - 1));
			one(f, "nfsrdma_rpc_fused_phase_seconds", s, i == h->n, sp,
			    rec_fphase_span_name(m, sp->first, span, sizeof(span)), native);
		}
	}
	fputs("# HELP nfsrdma_rpc_fused_spans_overflow_total Fused phase spans not observed: a series had "
	      "more distinct spans than it keeps.\n# TYPE nfsrdma_rpc_fused_spans_overflow_total counter\n", f);
	fprintf(f, "nfsrdma_rpc_fused_spans_overflow_total %" PRIu64 "\n", h->spans_overflow);
	verdict_write(h, f);
}
