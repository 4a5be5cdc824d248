/* -z summaries.  Latencies go into the shared log-linear histogram
 * (src/stats/hist.h, HIST_RES) so memory stays fixed however long the
 * capture, and the percentiles are the ones nfsrdma-top and nfsrdmad
 * report for the same records. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"
#include "dissect/dissect.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "src/out/out.h"
#include "src/out/summary_priv.h"
#include "src/out/recfmt.h"
#include "src/stats/phase_diag.h"
#include "src/stats/hist.h"
#include "src/stats/verdict_sum.h"

struct summary *summary_new(enum summary_kind kind)
{
	struct summary *s = calloc(1, sizeof(*s));

	if (s)
		s->kind = kind;
	return s;
}

void summary_free(struct summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		hist_free(&s->e[i]->lat);
		for (unsigned p = 0; s->e[i]->fph && p < REC_FP_N + 1; p++)
			hist_free(&s->e[i]->fph[p]);
		free(s->e[i]->fph);
		if (s->e[i]->fdiag)
			phase_diag_free(s->e[i]->fdiag);
		free(s->e[i]->fdiag);
		if (s->e[i]->wdiag)
			phase_diag_free(s->e[i]->wdiag);
		free(s->e[i]->wdiag);
		free(s->e[i]->fv);
		free(s->e[i]);
	}
	free(s->e);
	free(s);
}

static struct sum_ent *ent_get(struct summary *s, const char *key)
{
	/* A few dozen distinct keys at most: a linear scan with the last hit
	 * first is fine. */
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->e[i]->key, key))
			return s->e[i];
	if (ARR_RESERVE(s->e, s->cap, s->n + 1, 32) < 0)
		return NULL;
	struct sum_ent *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	if (hist_init(&x->lat, HIST_RES) < 0) {
		free(x);
		return NULL;
	}
	snprintf(x->key, sizeof(x->key), "%s", key);
	s->e[s->n++] = x;
	return x;
}

static void proc_ident(const struct nfsrdma_record *r, struct proc_ident *id)
{
	memset(id, 0, sizeof(*id));
	id->transport = r->transport;
	if (!(r->flags & RECF_CALL) || !r->prog)
		return;
	id->known = 1;
	id->prog = r->prog;
	id->vers = r->vers;
	id->proc = r->proc;
	if ((r->prog == PROG_NFS && r->vers == 4) || r->prog == PROG_NFS_CB) {
		id->minor = r->minorvers;
		if (r->proc == 1)
			id->name = nfs4_compound_name(r);
	}
}

static struct sum_ent *ent_get(struct summary *s, const char *key);

/* Rows of RPCs over TCP or UDP are their own: "NFSv3 READ tcp" beside the
 * RPC-over-RDMA "NFSv3 READ", so the two can be compared side by side. */
static void split(const struct nfsrdma_record *r, char *key, size_t len)
{
	size_t n = strlen(key);
	if (r->transport != REC_TR_RDMA && n < len)
		snprintf(key + n, len - n, " %s", rec_transport_name(r->transport));
}

static struct sum_ent *proc_ent(struct summary *s, const struct nfsrdma_record *r)
{
	struct proc_ident id;
	char key[96];

	proc_ident(r, &id);
	uint64_t h = ((uint64_t)id.prog << 32 | (uint64_t)id.vers << 24 | (uint64_t)id.proc << 4 | id.minor) ^
		     ((uint64_t)(uintptr_t)id.name >> 3) ^ id.known ^ ((uint64_t)id.transport << 1);
	h *= 0x9E3779B97F4A7C15ull;
	unsigned slot = (unsigned)(h >> 56);   /* PROC_CACHE = 256 */
	if (s->pc[slot].e && !memcmp(&s->pc[slot].id, &id, sizeof(id)))
		return s->pc[slot].e;
	rec_name_str(r, key, sizeof(key));
	split(r, key, sizeof(key));
	struct sum_ent *e = ent_get(s, key);
	if (e) {
		s->pc[slot].id = id;
		s->pc[slot].e = e;
	}
	return e;
}

/* fph[p]: fused phase p; fph[REC_FP_N]: the fused total */
static void fused_add(struct sum_ent *e, const struct nfsrdma_record *r)
{
	if (!r->f_mask)
		return;
	if (!e->fph) {
		e->fph = calloc(REC_FP_N + 1, sizeof(*e->fph));
		for (unsigned p = 0; e->fph && p < REC_FP_N + 1; p++)
			if (hist_init(&e->fph[p], HIST_RES) < 0) {
				for (unsigned q = 0; q < p; q++)
					hist_free(&e->fph[q]);
				free(e->fph);
				e->fph = NULL;
			}
		if (!e->fph)
			return;
		e->fv = calloc(1, sizeof(*e->fv));
		e->fdiag = malloc(sizeof(*e->fdiag));
		if (e->fdiag && phase_diag_init(e->fdiag, REC_FP_N) < 0) {
			phase_diag_free(e->fdiag);
			free(e->fdiag);
			e->fdiag = NULL;
		}
	}
	e->fused++;
	if (r->f_flags & RECFF_NEGATIVE) {
		e->fneg[0]++;
		for (unsigned k = 0; k < 4; k++)
			e->fneg[1 + k] += (r->f_flags & (RECFF_NEG_CLIENT << k)) != 0;
	}
	e->fpair += !!(r->f_merged & REC_FM_NET_PAIR);
	if (e->fv)
		verdict_sum_add(e->fv, r);
	if (e->fdiag) {
		/* a merged span counts for its first phase, as in the table;
		 * net_back with net_out: a row's RPCs differ in whether their
		 * clocks give the directions, and the diagnosis names none the
		 * clocks cannot give (diag_fphase) */
		uint64_t ph[REC_FP_N];
		for (unsigned p = 0; p < REC_FP_N; p++)
			ph[p] = r->f_mask & (1u << p) ? r->f_phase[p] : 0;
		ph[REC_FP_NET_OUT] += ph[REC_FP_NET_BACK];
		ph[REC_FP_NET_BACK] = 0;
		phase_diag_add(e->fdiag, r->f_total, ph);
	}
	for (unsigned p = 0; p < REC_FP_N; p++)
		if (r->f_mask & (1u << p))
			hist_add(&e->fph[p], r->f_phase[p]);
	hist_add(&e->fph[REC_FP_N], r->f_total);
}

/* A record not joined with its own phases (the wire's, or XDP's). */
static void wire_add(struct sum_ent *e, const struct nfsrdma_record *r)
{
	uint64_t ph[REC_PH_N];

	if (!(r->phase_mask & (1u << REC_PH_N)))
		return;
	if (!e->wdiag) {
		if (!(e->wdiag = malloc(sizeof(*e->wdiag))))
			return;
		if (phase_diag_init(e->wdiag, REC_PH_N) < 0) {
			phase_diag_free(e->wdiag);
			free(e->wdiag);
			e->wdiag = NULL;
			return;
		}
	}
	for (unsigned p = 0; p < REC_PH_N; p++)
		ph[p] = r->phase_mask & (1u << p) ? r->d_phase[p] : 0;
	phase_diag_add(e->wdiag, r->d_total, ph);
}

void summary_add(struct summary *s, const struct nfsrdma_record *r)
{
	char key[96], a[80], b[80];
	struct sum_ent *e;

	switch (s->kind) {
	case SUM_PROC:
		e = proc_ent(s, r);
		goto have;
	case SUM_CONN:
		snprintf(key, sizeof(key), "%u %s <> %s", r->conn_id,
			 rec_ep_str(r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller, a, sizeof(a)),
			 rec_ep_str(r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee, b, sizeof(b)));
		break;
	case SUM_CLIENT:
		dissect_addr_str(r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller, key, sizeof(key));
		break;
	case SUM_TRANSPORT:
		snprintf(key, sizeof(key), "%s", rec_transport_name(r->transport));
		goto get;
	}
	split(r, key, sizeof(key));
get:
	e = ent_get(s, key);
have:
	if (!e)
		return;
	if (r->flags & RECF_CALL)
		e->calls++;
	if (rec_is_fused(r))
		fused_add(e, r);
	else
		wire_add(e, r);
	if (r->flags & RECF_REPLY) {
		e->replies++;
		if (r->rpc_status != 0 || (r->status != 0 && r->status != REC_STATUS_NONE))
			e->errors++;
		if (r->flags & RECF_CALL)
			hist_add(&e->lat, rec_is_fused(r) && r->f_mask ? r->f_total : r->d_total);
	} else {
		e->unanswered++;
	}
	e->bytes_inline += rec_bytes_inline(r);
	e->bytes_ddp += rec_bytes_ddp(r);
	unsigned reads = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) ? 1 : 0);
	if (r->flags & RECF_ARGS_DDP)
		e->mix_p0++;
	if (reads)
		e->mix_read++;
	if (r->n_write_chunks)
		e->mix_write++;
	if (r->n_reply_segs)
		e->mix_reply++;
	if (!(r->flags & RECF_ARGS_DDP) && !reads && !r->n_write_chunks && !r->n_reply_segs)
		e->mix_inline++;
}

static int cmp_key(const void *a, const void *b)
{
	const struct sum_ent *x = *(const struct sum_ent *const *)a, *y = *(const struct sum_ent *const *)b;
	return strcmp(x->key, y->key);
}

static void us(FILE *f, uint64_t ns)
{
	fprintf(f, " %10.1f", (double)ns / 1000.0);
}

/* The entries sorted by key (a malloc'd array the caller frees), or NULL. */
struct sum_ent **summary_sorted(const struct summary *s)
{
	struct sum_ent **v = malloc((s->n ? s->n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	if (s->n)
		memcpy(v, s->e, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), cmp_key);
	return v;
}

void summary_tot_add(struct sum_ent *tot, const struct sum_ent *e)
{
	tot->calls += e->calls;
	tot->replies += e->replies;
	tot->errors += e->errors;
	tot->unanswered += e->unanswered;
	tot->bytes_inline += e->bytes_inline;
	tot->bytes_ddp += e->bytes_ddp;
}

static void fused_print(struct sum_ent **v, size_t n, size_t w, const char *title, FILE *f);
static void diag_print(struct sum_ent **v, size_t n, const char *title, FILE *f);

void summary_print(const struct summary *s, FILE *f)
{
	/* "operation", as nfsrdma-top (OPERATION), --compare and the CSV name
	 * the column: an NFSv3 procedure or an NFSv4 COMPOUND's main operation */
	static const char *const title[] = { "", "operation", "connection", "client", "transport" };
	struct sum_ent **v = summary_sorted(s);
	size_t w = 24;

	if (!v)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strlen(v[i]->key) > w)
			w = strlen(v[i]->key);
	fprintf(f, "== summary per %s ==\n", title[s->kind]);
	fprintf(f, "%-*s %8s %8s %6s %10s %12s %12s %10s %10s %10s %10s %10s  %s\n", (int)w, title[s->kind],
		"calls", "replies", "errors", "unanswered", "bytes_inl", "bytes_ddp", "p50_us", "p90_us",
		"p99_us", "p99.9_us", "max_us", "chunks inline/read/write/reply/p0");
	struct sum_ent tot;
	memset(&tot, 0, sizeof(tot));
	for (size_t i = 0; i < s->n; i++) {
		const struct sum_ent *e = v[i];
		fprintf(f, "%-*s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %12" PRIu64, (int)w, e->key, e->calls, e->replies, e->errors, e->unanswered,
			e->bytes_inline, e->bytes_ddp);
		us(f, hist_pct(&e->lat, 0.50));
		us(f, hist_pct(&e->lat, 0.90));
		us(f, hist_pct(&e->lat, 0.99));
		us(f, hist_pct(&e->lat, 0.999));
		us(f, e->lat.max);
		fprintf(f, "  %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n", e->mix_inline,
			e->mix_read, e->mix_write, e->mix_reply, e->mix_p0);
		summary_tot_add(&tot, e);
	}
	fprintf(f, "%-*s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
		"\n", (int)w, "total", tot.calls, tot.replies, tot.errors, tot.unanswered,
		tot.bytes_inline, tot.bytes_ddp);
	fused_print(v, s->n, w, title[s->kind], f);
	diag_print(v, s->n, title[s->kind], f);
	free(v);
}

/* Which phase holds most of the mean and of the p99 (src/stats/phase_diag.h). */
struct phase_diag_result summary_diagnosis(const struct sum_ent *e)
{
	struct phase_diag_result d;

	if (!e->fdiag || phase_diag_get(e->fdiag, &d) < 0)
		memset(&d, 0, sizeof(d));
	return d;
}

/* A fused phase as the diagnosis names it: net_out and net_back are
 * summed as one (fused_add), since a row's RPCs differ in whether their
 * clocks give the directions */
const char *summary_diag_fphase(unsigned ph)
{
	return ph == REC_FP_NET_OUT || ph == REC_FP_NET_BACK ? "net_out+net_back" : rec_fphase_name(ph);
}

/* The row's verdict in words, "-" when it has none */
static const char *row_verdict(const struct sum_ent *e, char *buf, size_t len)
{
	struct verdict_of o;

	if (!e->fv || !verdict_sum_get(e->fv, &o))
		return "-";
	return verdict_words(o.places, o.pm, buf, len);
}

/* the mean of a clock-free segment (us), "-" when no RPC had it */
static void seg_col(FILE *f, const struct sum_ent *e, unsigned sg)
{
	uint64_t m;

	if (e->fv && verdict_sum_seg_mean(e->fv, sg, &m))
		fprintf(f, " %10.1f", (double)m / 1000.0);
	else
		fprintf(f, " %10s", "-");
}

static int fcol(unsigned p)
{
	return (int)(strlen(rec_fphase_name(p)) > 10 ? strlen(rec_fphase_name(p)) : 10);
}

/* what the means above hold besides the phases: negatives held at 0, and
 * the net_out column holding net_back too where the clocks could not
 * split them */
static void fused_notes(struct sum_ent **v, size_t n, size_t w, FILE *f)
{
	for (size_t i = 0; i < n; i++) {
		const struct sum_ent *e = v[i];
		if (e->fph && e->fneg[0])
			fprintf(f, "%-*s negative phase (held at 0) in %" PRIu64 " of %" PRIu64 ": client %" PRIu64
				", wire %" PRIu64 ", server %" PRIu64 ", clock %" PRIu64 "\n", (int)w, e->key,
				e->fneg[0], e->fused, e->fneg[1], e->fneg[2], e->fneg[3], e->fneg[4]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct sum_ent *e = v[i];
		if (e->fph && e->fpair)
			fprintf(f, "%-*s net_out+net_back in %" PRIu64 " of %" PRIu64 " (the clocks cannot give their "
				"directions): both in net_out\n", (int)w, e->key, e->fpair, e->fused);
	}
}

static void fused_print(struct sum_ent **v, size_t n, size_t w, const char *title, FILE *f)
{
	bool any = false;
	char vw[200];

	for (size_t i = 0; i < n; i++)
		any |= v[i]->fph != NULL;
	if (!any)
		return;
	fprintf(f, "\n== fused phases per %s (mean us; joined RPCs) ==\n%-*s %8s", title, (int)w, title, "joined");
	for (unsigned p = 0; p < REC_FP_N; p++)
		fprintf(f, " %*s", fcol(p), rec_fphase_name(p));
	fprintf(f, " %10s %10s %10s %10s  %s\n", "total", "p99_us", "client_net", "server_net", "verdict; diagnosis");
	for (size_t i = 0; i < n; i++) {
		const struct sum_ent *e = v[i];
		if (!e->fph)
			continue;
		fprintf(f, "%-*s %8" PRIu64, (int)w, e->key, e->fused);
		for (unsigned p = 0; p < REC_FP_N; p++) {
			if (e->fph[p].n)
				fprintf(f, " %*.1f", fcol(p), (double)e->fph[p].sum / (double)e->fused / 1000.0);
			else
				fprintf(f, " %*s", fcol(p), "-");
		}
		struct phase_diag_result d = summary_diagnosis(e);
		fprintf(f, " %10.1f %10.1f", (double)e->fph[REC_FP_N].sum / (double)e->fused / 1000.0,
			(double)hist_pct(&e->fph[REC_FP_N], 0.99) / 1000.0);
		seg_col(f, e, REC_SEG_CLIENT_NET);
		seg_col(f, e, REC_SEG_SERVER_NET);
		fprintf(f, "  %s; mean: %s %u %%, p99: %s %u %%\n", row_verdict(e, vw, sizeof(vw)),
			summary_diag_fphase(d.mean_phase), d.mean_pct, summary_diag_fphase(d.p99_phase), d.p99_pct);
	}
	fused_notes(v, n, w, f);
}

/* "NFSv3 WRITE p99 11.2 ms: server_queue 71 % (mean 3.1 ms: execute 52 %)" */
static void ms(FILE *f, uint64_t ns)
{
	fprintf(f, "%.*f ms", ns < 10000000 ? 3 : 1, (double)ns / 1e6);
}

/* The row's diagnosis: of its fused phases when it has joined records,
 * else of the wire's; NULL when it has neither. */
const char *summary_row_diag(const struct sum_ent *e, struct phase_diag_result *d)
{
	if (e->fdiag && phase_diag_get(e->fdiag, d) == 0)
		return "fused";
	if (e->wdiag && phase_diag_get(e->wdiag, d) == 0)
		return "wire";
	return NULL;
}

const char *summary_ph_name(const char *kind, unsigned ph)
{
	return kind[0] == 'f' ? summary_diag_fphase(ph) : rec_phase_name(ph);
}

/* Whether a row's wire split has two phases with time in them: else its
 * one phase holds 100 % of mean and tail ("queue+server 100 %" of every
 * RPC over TCP), which the text leaves out as saying nothing (so does
 * nfsrdma-top, top_diag_line).  A fused split always says which vantage's
 * span holds the time. */
static bool diag_splits(const struct sum_ent *e, const char *kind)
{
	struct phase_diag_split sp;
	unsigned timed = 0;
	const struct phase_diag *d = e->wdiag;

	if (kind[0] == 'f')
		return true;
	if (phase_diag_split(d, &sp) < 0)
		return false;
	for (unsigned p = 0; p < d->nph; p++)
		timed += sp.phase[p] != 0;
	return timed > 1;
}

static void diag_print(struct sum_ent **v, size_t n, const char *title, FILE *f)
{
	bool head = false, fused = false;
	char vw[200];

	for (size_t i = 0; i < n; i++)
		fused |= v[i]->fdiag != NULL;
	for (size_t i = 0; i < n; i++) {
		struct phase_diag_result d;
		const char *k = summary_row_diag(v[i], &d);
		if (!k || !diag_splits(v[i], k))
			continue;
		if (!head)
			fprintf(f, "\n== diagnosis per %s (the phase holding most of the mean and of the p99: "
				   "the RPCs at or above it%s) ==\n", title,
				fused ? "; joined RPCs: the verdict, the place holding most of their time" : "");
		head = true;
		fprintf(f, "%s p99 ", v[i]->key);
		ms(f, d.p99_ns);
		fprintf(f, ": %s %u %% (mean ", summary_ph_name(k, d.p99_phase), d.p99_pct);
		ms(f, d.mean_ns);
		fprintf(f, ": %s %u %%)", summary_ph_name(k, d.mean_phase), d.mean_pct);
		if (k[0] == 'f')
			fprintf(f, "; verdict: %s", row_verdict(v[i], vw, sizeof(vw)));
		fputc('\n', f);
	}
}
