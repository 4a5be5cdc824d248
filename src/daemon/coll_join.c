/* The collector's join (see coll_join.h): hosts numbered by (sender,
 * vantage), every record into src/join, its clock hints from the
 * forward messages' headers. */
#include "src/daemon/coll_join.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"

/* An RPC waits this long (in its first vantage's clock) for the others
 * before it goes out partial: far above any RPC's life, short enough that
 * a live view is not minutes behind. */
#define COLL_WINDOW_NS (5ull * 1000000000ull)
/* A message's transit is unknown; the hint's half-width covers a LAN's
 * queueing and a forwarder's batching. */
#define COLL_HINT_UNC_NS (50ull * 1000000ull)
/* A hint per remote host at most this often: the data do the rest. */
#define COLL_HINT_EVERY_NS (1000000000ull)

struct coll_host {
	char name[FWD_HOST_MAX + 1];   /* "" for this daemon's own sources */
	unsigned vt;                   /* REC_VT_* */
	uint64_t last_hint;
};

/* The last clock line of each sender ("" this daemon): a host of its
 * (sender, vantage) made later gets it at once. */
struct coll_clock {
	char name[FWD_HOST_MAX + 1];
	char line[FWD_CLOCK_MAX];
	size_t len;
};

struct coll_join {
	coll_emit_fn emit;
	void *ctx;
	struct join *join;
	struct coll_host host[JOIN_MAX_HOSTS];
	unsigned nhost;
	struct coll_clock clk[JOIN_MAX_HOSTS];
	unsigned nclk;
	bool hints;
	struct coll_join_stats st;
	struct verdict_sum vs;         /* every fused record out: places and segments */
};

static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	struct coll_join *j = ctx;

	j->st.emitted++;
	verdict_sum_add(&j->vs, r);
	j->emit(r, j->ctx);
}

struct coll_join *coll_join_new(coll_emit_fn emit, void *ctx, uint64_t wait_ns, bool hints)
{
	struct coll_join *j = calloc(1, sizeof(*j));
	struct join_opts o = { .expect = REC_VT_ALL, .window_ns = wait_ns ? wait_ns : COLL_WINDOW_NS };

	if (!j)
		return NULL;
	j->emit = emit;
	j->ctx = ctx;
	j->hints = hints;
	if (!(j->join = join_new(&o, on_fused, j))) {
		free(j);
		return NULL;
	}
	return j;
}

void coll_join_flush(struct coll_join *j)
{
	if (j)
		join_flush(j->join);
}

void coll_join_free(struct coll_join *j)
{
	if (!j)
		return;
	join_flush(j->join);
	join_free(j->join);
	free(j);
}

/* The wire's times are wall clock, the probes' monotonic (bpf_ktime). */
static bool wall_clocked(unsigned vt) { return vt == REC_VT_WIRE; }

/* A clock line relates a sender's monotonic clock to real time: it is
 * the claim of its probe hosts (a wall-clocked host's would need its own
 * reading of the capture's clock; not sent). */
static void clock_to(struct coll_join *j, unsigned h, const struct coll_clock *c)
{
	char err[160];

	if (!wall_clocked(j->host[h].vt) &&
	    join_clock_line(j->join, h, c->line, c->len, err, sizeof(err)) == 0)
		j->st.clock_lines++;
}

void coll_join_clock(struct coll_join *j, const char *sender, const char *line, size_t len)
{
	unsigned i;

	if (len > FWD_CLOCK_MAX)
		return;
	for (i = 0; i < j->nclk && strcmp(j->clk[i].name, sender); i++)
		;
	if (i == JOIN_MAX_HOSTS)
		return;
	if (i == j->nclk)
		snprintf(j->clk[j->nclk++].name, sizeof(j->clk[0].name), "%s", sender);
	memcpy(j->clk[i].line, line, len);
	j->clk[i].len = len;
	for (unsigned h = 0; h < j->nhost; h++)
		if (!strcmp(j->host[h].name, sender))
			clock_to(j, h, &j->clk[i]);
}

static int host_of(struct coll_join *j, const char *name, unsigned vt)
{
	for (unsigned i = 0; i < j->nhost; i++)
		if (j->host[i].vt == vt && !strcmp(j->host[i].name, name))
			return (int)i;
	if (j->nhost >= JOIN_MAX_HOSTS)
		return -1;
	struct coll_host *h = &j->host[j->nhost];
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->vt = vt;
	for (unsigned i = 0; i < j->nclk; i++)
		if (!strcmp(j->clk[i].name, name))
			clock_to(j, j->nhost, &j->clk[i]);
	return (int)j->nhost++;
}

/* The sender's clock (of b's kind) at send against ours (of each local
 * host's kind) at receipt: offset b - a is that difference plus the
 * transit, which the uncertainty covers. */
static void hint(struct coll_join *j, unsigned b, const struct fwd_meta *m, uint64_t recv_ns)
{
	struct coll_host *hb = &j->host[b];

	if (hb->last_hint && recv_ns - hb->last_hint < COLL_HINT_EVERY_NS)
		return;
	hb->last_hint = recv_ns;
	uint64_t send_b = wall_clocked(hb->vt) ? m->realtime_ns : m->mono_ns;
	uint64_t wall_now = clock_wall_ns(), mono_now = clock_mono_ns();
	uint64_t recv_mono = mono_now - (wall_now > recv_ns ? wall_now - recv_ns : 0);
	for (unsigned a = 0; a < j->nhost; a++) {
		if (j->host[a].name[0])
			continue;
		uint64_t recv_a = wall_clocked(j->host[a].vt) ? recv_ns : recv_mono;
		if (join_clock_hint(j->join, a, b, (int64_t)(send_b - recv_a), COLL_HINT_UNC_NS) == 0)
			j->st.hints++;
	}
}

void coll_join_add(struct coll_join *j, const struct nfsrdma_record *r, const struct fwd_meta *m, uint64_t recv_ns)
{
	int h;

	if (!r) {   /* a forwarder's clock line */
		if (m && m->kind == FWD_KIND_CLOCK)
			coll_join_clock(j, m->host[0] ? m->host : "?", m->clock, m->clock_len);
		return;
	}
	unsigned vt = rec_vantages(r);

	if (m)
		j->st.remote++;
	else
		j->st.local++;
	/* a sender without a name must not pass for this daemon */
	if ((h = host_of(j, m ? (m->host[0] ? m->host : "?") : "", vt)) < 0) {
		j->st.hosts_overflow++;
		return;
	}
	if (m && j->hints)
		hint(j, (unsigned)h, m, recv_ns);
	join_add(j->join, r, (unsigned)h);   /* a refusal is counted in the join's rejected */
}

uint64_t coll_join_poll(struct coll_join *j, uint64_t now_ns)
{
	(void)now_ns;   /* the join's window runs on the records' own clocks */
	return j->st.emitted;
}

void coll_join_get_stats(const struct coll_join *j, struct coll_join_stats *s) { *s = j->st; }

const struct join *coll_join_join(const struct coll_join *j) { return j->join; }

const struct verdict_sum *coll_join_verdict(const struct coll_join *j) { return &j->vs; }

void coll_join_host(const struct coll_join *j, unsigned i, const char **name, const char **vantage)
{
	const struct coll_host *h = i < j->nhost ? &j->host[i] : NULL;

	*name = !h ? "?" : h->name[0] ? h->name : "local";
	*vantage = h ? rec_vantage_name(h->vt) : "?";
}
