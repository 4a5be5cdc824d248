#include "src/probe/probe_load.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dissect/grow.h"
#include "dissect/programs.h"
#include "src/base/log.h"
#include "src/probe/probe_format.h"
#include "src/probe/probe_plan.h"
#include "rpc_client.skel.h"
#include "rpc_server.skel.h"

struct probe {
	struct rpc_client_bpf *cl;
	struct rpc_server_bpf *sv;
	struct ring_buffer *rb;
	probe_event_fn cb, tap;
	void *ctx, *tapctx;
	unsigned sides, attached;   /* bit i = probe_probe_tps[i] */
	struct bpf_link *links[32];
	int prog_fd[32];            /* each attached program's (its info: probe_costs) */
	struct probe_plan plan;     /* what the kernel has; unavailable events */
	int stats_fd;               /* BPF_ENABLE_STATS held while we run; -1: none */
	bool costs_on;              /* run-time stats counting (ours or the host's sysctl) */
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's own warnings (verifier logs on failure) are detail: show
	 * them with -v; our one-line messages say what failed. */
	if (level == LIBBPF_WARN && log_get_level() >= LOG_INFO)
		return vfprintf(stderr, fmt, ap);
	if (log_get_level() >= LOG_DEBUG)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static struct bpf_program *find_prog(struct probe *p, size_t i)
{
	struct bpf_object *obj = probe_tps[i].side == PROBE_WANT_CLIENT ? p->cl->obj : p->sv->obj;

	return bpf_object__find_program_by_name(obj, probe_tps[i].prog);
}

/* The kernel counts each program's runs and run time only while some
 * process holds BPF_ENABLE_STATS (or the sysctl is on): held for the
 * probes' life, released at close (the host's setting is left as it was). */
static void cost_stats_on(struct probe *p)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd >= 0) {
		p->stats_fd = fd;
		p->costs_on = true;
		return;
	}
	int e = errno;
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;
	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	p->costs_on = on == 1;
	if (!p->costs_on)
		log_warn("kernel probe: BPF run-time stats unavailable (%s; kernel.bpf_stats_enabled off): "
			 "the probes' cost is not measured", strerror(e));
}

int probe_costs(const struct probe *p, struct probe_prog_cost *out, int max)
{
	int n = 0;

	if (!p || !p->costs_on)
		return 0;
	for (size_t i = 0; i < probe_ntps && n < max; i++) {
		if (!(p->attached & (1u << i)) || !p->links[i])
			continue;
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (p->prog_fd[i] <= 0 || bpf_obj_get_info_by_fd(p->prog_fd[i], &info, &len) < 0)
			continue;
		out[n++] = (struct probe_prog_cost){ .prog = probe_tps[i].prog, .event = probe_tps[i].event,
						     .side = probe_tps[i].side, .id = info.id,
						     .run_ns = info.run_time_ns, .runs = info.run_cnt };
	}
	return n;
}

static int handle_rb(void *ctx, void *data, size_t size)
{
	struct probe *p = ctx;

	if (size < sizeof(struct probe_event))
		return 0;  /* not ours: never trust a length */
	if (p->tap)
		p->tap(data, p->tapctx);
	p->cb(data, p->ctx);
	return 0;
}

static int set_filters(const struct probe_config *c, unsigned side, __u64 *minlat, char *fprog,
		       uint8_t *ffam, uint8_t *faddr, char *err, size_t errlen)
{
	*minlat = c->min_latency_ns;
	if (c->filter_prog) {
		/* The tracepoints name programs, not numbers: the client's
		 * rpc_program name / the server's svc_program name. */
		static const struct { uint32_t prog; const char *client, *server; } names[] = {
			{ PROG_NFS, "nfs", "nfsd" }, { PROG_NFSACL, "nfsacl", "nfsacl" },
			{ PROG_NLM, "lockd", "lockd" }, { PROG_NSM, "statd", "statd" },
			{ PROG_PORTMAP, "rpcbind", "rpcbind" }, { PROG_MOUNT, "mount", "mountd" },
		};
		const char *n = NULL;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (names[i].prog == c->filter_prog)
				n = side == PROBE_WANT_CLIENT ? names[i].client : names[i].server;
		if (!n) {
			snprintf(err, errlen, "kernel probe: program %u has no known kernel name to filter on",
				 c->filter_prog);
			return -EINVAL;
		}
		for (size_t i = 0; i < PROBE_PROG_MAX && (i == 0 || n[i - 1]); i++)
			fprog[i] = n[i];
	}
	if (c->filter_addr && *c->filter_addr) {
		uint8_t a[16];

		if (inet_pton(AF_INET, c->filter_addr, a) == 1) {
			*ffam = 2;
			for (int i = 0; i < 4; i++)
				faddr[i] = a[i];
		} else if (inet_pton(AF_INET6, c->filter_addr, a) == 1) {
			*ffam = 10;
			for (int i = 0; i < 16; i++)
				faddr[i] = a[i];
		} else {
			snprintf(err, errlen, "kernel probe: bad address '%.64s'", c->filter_addr);
			return -EINVAL;
		}
		if (side == PROBE_WANT_CLIENT) {
			/* client tracepoints carry no addresses */
			*ffam = 0;
		}
	}
	return 0;
}

/* The one error line when the sides wanted cannot be attached: each
 * side's essential tracepoint that is absent (with the module hint when
 * its whole system is), and how many tracepoints are missing in all. */
static void no_side_error(const struct probe_plan *pl, unsigned sides, char *err, size_t errlen)
{
	size_t n = (size_t)snprintf(err, errlen, "kernel probe:%s", sides == PROBE_WANT_BOTH ?
				    " nothing to attach:" : "");
	unsigned missing = 0;

	for (size_t i = 0; i < probe_ntps; i++) {
		const struct probe_tp *t = &probe_tps[i];
		missing += (pl->unavailable >> i) & 1;
		if (!t->essential || !(sides & t->side) || !(pl->unavailable & (1u << i)) || n >= errlen)
			continue;
		char absent[160];
		snprintf(absent, sizeof(absent), "%s:%s unavailable (no such tracepoint; is the", t->sys, t->event);
		n += (size_t)snprintf(err + n, errlen - n, " %s side unavailable: %s:%s absent%s%s%s;",
				      t->side == PROBE_WANT_CLIENT ? "client" : "server", t->sys, t->event,
				      strstr(pl->notes, absent) ? " (is the " : "",
				      strstr(pl->notes, absent) ? t->sys : "",
				      strstr(pl->notes, absent) ? " module loaded?)" : "");
	}
	if (n < errlen)
		snprintf(err + n, errlen - n, " %u tracepoint%s unavailable in all (-v names each)", missing,
			 missing == 1 ? "" : "s");
}

/* The client object opened and configured (field offsets, filters, ring
 * size), not yet loaded.  0 or a negative errno (err says why). */
static int open_client(struct probe *p, const struct probe_config *c, char *err, size_t errlen)
{
	int r;

	p->cl = rpc_client_bpf__open();
	if (!p->cl) {
		r = -errno;
		snprintf(err, errlen, "kernel probe: open client object: %s", strerror(-r));
		return r < 0 ? r : -ENOMEM;
	}
	memcpy(p->cl->rodata->probe_fld, p->plan.cfld, sizeof(p->plan.cfld));
	r = set_filters(c, PROBE_WANT_CLIENT, &p->cl->rodata->min_latency_ns,
			p->cl->rodata->filter_prog, &p->cl->rodata->filter_family,
			p->cl->rodata->filter_addr, err, errlen);
	if (r < 0)
		return r;
	if (c->filter_addr && *c->filter_addr) {
		/* the kernel prints an rpc_xprt's address with rpc_ntop:
		 * %pI4 / %pI6c, as inet_ntop writes them */
		uint8_t a[16];
		int fam = strchr(c->filter_addr, ':') ? AF_INET6 : AF_INET;

		if (inet_pton(fam, c->filter_addr, a) != 1 ||
		    !inet_ntop(fam, a, (char *)p->cl->rodata->filter_peer, PROBE_ADDR_STR)) {
			r = -EINVAL;
			snprintf(err, errlen, "kernel probe: bad address '%.64s'", c->filter_addr);
			return r;
		}
		log_warn("kernel probe: client side: only RPCs of rpc_clnts to %s created after attach "
			 "(rpc_clnt_new gives the address; earlier clients are filtered out)",
			 (const char *)p->cl->rodata->filter_peer);
	}
	bpf_map__set_max_entries(p->cl->maps.events, (c->ringbuf_kb ? c->ringbuf_kb : 256) * 1024);
	p->cl->rodata->rb_wake_bytes = bpf_map__max_entries(p->cl->maps.events) / 8;
	return 0;
}

/* The server object opened and configured (field offsets, filters, the
 * events the kernel has, ring size), not yet loaded. */
static int open_server(struct probe *p, const struct probe_config *c, char *err, size_t errlen)
{
	int r;

	p->sv = rpc_server_bpf__open();
	if (!p->sv) {
		r = -errno;
		snprintf(err, errlen, "kernel probe: open server object: %s", strerror(-r));
		return r < 0 ? r : -ENOMEM;
	}
	memcpy(p->sv->rodata->probe_fld, p->plan.sfld, sizeof(p->plan.sfld));
	r = set_filters(c, PROBE_WANT_SERVER, &p->sv->rodata->min_latency_ns,
			p->sv->rodata->filter_prog, &p->sv->rodata->filter_family,
			p->sv->rodata->filter_addr, err, errlen);
	if (r < 0)
		return r;
	p->sv->rodata->have_post_send = probe_plan_has(&p->plan, "svcrdma_post_send");
	p->sv->rodata->have_wc_send = probe_plan_has(&p->plan, "svcrdma_wc_send");
	p->sv->rodata->have_wc_write = probe_plan_has(&p->plan, "svcrdma_wc_write");
	p->sv->rodata->have_wc_reply = probe_plan_has(&p->plan, "svcrdma_wc_reply");
	/* 6.12 hands a request over at svcrdma_read_finished, found by
	 * the receive that svcrdma_decode_rqst names */
	p->sv->rodata->have_read_finished = probe_plan_has(&p->plan, "svcrdma_read_finished") &&
					    p->plan.sfld[PFLD_DR_CQ].off != PROBE_FLD_NONE;
	/* the receive's time, found again by the (cq, cid) that
	 * svcrdma_decode_rqst names */
	p->sv->rodata->have_wc_recv = probe_plan_has(&p->plan, "svcrdma_wc_recv") &&
				      p->plan.sfld[PFLD_DR_CQ].off != PROBE_FLD_NONE;
	bpf_map__set_max_entries(p->sv->maps.events, (c->ringbuf_kb ? c->ringbuf_kb : 256) * 1024);
	p->sv->rodata->rb_wake_bytes = bpf_map__max_entries(p->sv->maps.events) / 8;
	return 0;
}

int probe_open(struct probe **out, const struct probe_config *c, probe_event_fn cb, void *ctx,
	       char *err, size_t errlen)
{
	const char *root = c->tracefs ? c->tracefs : tp_tracefs_root();
	unsigned want = c->want ? c->want : PROBE_WANT_BOTH;
	unsigned ok_sides = 0;
	struct probe *p;
	int r;

	*out = NULL;
	libbpf_set_print(libbpf_log);
	if (!root) {
		snprintf(err, errlen, "kernel probe: tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENODEV;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "kernel probe: out of memory");
		return -ENOMEM;
	}
	p->cb = cb;
	p->ctx = ctx;
	p->stats_fd = -1;
	/* Which tracepoints exist and have the fields we read. */
	probe_plan_build_held(&p->plan, root, want, c->skip);
	unsigned off_sides = 0;
	for (unsigned side = PROBE_WANT_CLIENT; side <= PROBE_WANT_SERVER; side <<= 1) {
		if (!(want & side))
			continue;
		bool ess = true;
		for (size_t i = 0; i < probe_ntps; i++)
			if (probe_tps[i].side == side && probe_tps[i].essential && (p->plan.unavailable & (1u << i)))
				ess = false;
		if (ess)
			ok_sides |= side;
		else
			off_sides |= side;
	}
	/* a side asked for by name, or every side, missing: one error line
	 * (what is absent, counted; -v names each); otherwise the lines of
	 * what the records lose are warnings, as is a side switched off */
	if ((off_sides && c->want_explicit) || !ok_sides) {
		probe_plan_say(&p->plan, true);
		no_side_error(&p->plan, c->want_explicit ? off_sides : want, err, errlen);
		probe_close(p);
		return -ENODEV;
	}
	probe_plan_say(&p->plan, false);
	for (unsigned side = PROBE_WANT_CLIENT; side <= PROBE_WANT_SERVER; side <<= 1)
		if (off_sides & side)
			log_warn("kernel probe: %s side off (its essential tracepoint is unavailable)",
				 side == PROBE_WANT_CLIENT ? "client" : "server");

	if ((ok_sides & PROBE_WANT_CLIENT) && (r = open_client(p, c, err, errlen)) < 0)
		goto fail;
	if ((ok_sides & PROBE_WANT_SERVER) && (r = open_server(p, c, err, errlen)) < 0)
		goto fail;
	p->sides = ok_sides;
	/* Programs for missing events must not be loaded at all. */
	for (size_t i = 0; i < probe_ntps; i++) {
		if (!(ok_sides & probe_tps[i].side))
			continue;
		struct bpf_program *prog = find_prog(p, i);
		if (prog && (p->plan.unavailable & (1u << i)))
			bpf_program__set_autoload(prog, false);
	}
	if (p->cl && (r = rpc_client_bpf__load(p->cl)) < 0) {
		snprintf(err, errlen, "kernel probe: loading the client programs failed: %s (run with -v for the verifier log)",
			 strerror(-r));
		goto fail;
	}
	if (p->sv && (r = rpc_server_bpf__load(p->sv)) < 0) {
		snprintf(err, errlen, "kernel probe: loading the server programs failed: %s (run with -v for the verifier log)",
			 strerror(-r));
		goto fail;
	}
	for (size_t i = 0; i < probe_ntps; i++) {
		if (!(ok_sides & probe_tps[i].side) || (p->plan.unavailable & (1u << i)))
			continue;
		struct bpf_program *prog = find_prog(p, i);
		p->links[i] = prog ? bpf_program__attach(prog) : NULL;
		if (!p->links[i]) {
			r = -errno;
			probe_plan_drop(&p->plan, i, "attach failed");
			if (probe_tps[i].essential) {
				snprintf(err, errlen, "kernel probe: cannot attach %s:%s: %s", probe_tps[i].sys,
					 probe_tps[i].event, strerror(-r));
				goto fail;
			}
			continue;
		}
		p->attached |= 1u << i;
		p->prog_fd[i] = bpf_program__fd(prog);
	}
	if (p->cl) {
		p->rb = ring_buffer__new(bpf_map__fd(p->cl->maps.events), handle_rb, p, NULL);
		if (!p->rb)
			goto rbfail;
	}
	if (p->sv) {
		if (!p->rb)
			p->rb = ring_buffer__new(bpf_map__fd(p->sv->maps.events), handle_rb, p, NULL);
		else if (ring_buffer__add(p->rb, bpf_map__fd(p->sv->maps.events), handle_rb, p) < 0)
			goto rbfail;
		if (!p->rb)
			goto rbfail;
	}
	cost_stats_on(p);
	log_info("kernel probe: %s%s%s attached (%u tracepoints)", ok_sides & 1 ? "client" : "",
		 ok_sides == 3 ? "+" : "", ok_sides & 2 ? "server" : "", (unsigned)__builtin_popcount(p->attached));
	*out = p;
	return 0;
rbfail:
	r = errno ? -errno : -ENOMEM;
	snprintf(err, errlen, "kernel probe: ring buffer: %s", strerror(-r));
fail:
	probe_close(p);
	return r < 0 ? r : -EINVAL;
}

void probe_set_tap(struct probe *p, probe_event_fn tap, void *ctx)
{
	p->tap = tap;
	p->tapctx = ctx;
}

int probe_fd(struct probe *p) { return p && p->rb ? ring_buffer__epoll_fd(p->rb) : -1; }

int probe_poll(struct probe *p, int timeout_ms)
{
	int r = ring_buffer__poll(p->rb, timeout_ms);

	if (r < 0)
		return r == -EINTR ? -EINTR : r;
	/* The programs wake the reader only once an eighth of the ring is
	 * full (rb_wake_bytes): what came since waits for this. */
	int c = ring_buffer__consume(p->rb);

	return c < 0 ? c : r + c;
}

static void add_stats(int fd, uint64_t out[PST_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (fd < 0 || ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (uint32_t k = 0; k < PST_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v) == 0)
			for (int c = 0; c < ncpu; c++)
				out[k] += v[c];
	}
	free(v);
}

void probe_counters(const struct probe *p, uint64_t out[PST_MAX])
{
	memset(out, 0, sizeof(uint64_t) * PST_MAX);
	if (p && p->cl)
		add_stats(bpf_map__fd(p->cl->maps.stats), out);
	if (p && p->sv)
		add_stats(bpf_map__fd(p->sv->maps.stats), out);
}

unsigned probe_sides(const struct probe *p) { return p->sides; }
const char *probe_unavailable_str(const struct probe *p) { return p->plan.unavail; }

static int hist_read_map(int fd, struct probe_hist_row **rows, int *n, int *cap)
{
	struct probe_hist_key k, next;
	struct probe_hist_val v;
	void *prev = NULL;
	int guard = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0 && guard++ < 65536) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v) != 0)
			continue;
		k.prog[PROBE_PROG_MAX - 1] = 0;
		k.proc[PROBE_STR_MAX - 1] = 0;
		/* keys differing after the names' NUL are one operation */
		int j;

		for (j = 0; j < *n; j++) {
			struct probe_hist_row *o = &(*rows)[j];
			if (o->side == k.side && o->vers == k.vers && !strcmp(o->prog, k.prog) &&
			    !strcmp(o->proc, k.proc))
				break;
		}
		if (j == *n) {
			if (ARR_RESERVE(*rows, *cap, (size_t)*n + 1, 32) < 0)
				return -ENOMEM;
			memset(&(*rows)[j], 0, sizeof(**rows));
			(*rows)[j].side = k.side;
			(*rows)[j].vers = k.vers;
			memcpy((*rows)[j].prog, k.prog, sizeof(k.prog));
			memcpy((*rows)[j].proc, k.proc, sizeof(k.proc));
			(*n)++;
		}
		struct probe_hist_row *r = &(*rows)[j];

		for (int i = 0; i < PROBE_HIST_SLOTS; i++) {
			r->bucket[i] += v.slot[i];
			r->count += v.slot[i];
		}
		r->sum_ns += v.slot[PROBE_HIST_SUM];
	}
	return 0;
}

int probe_hist_read(struct probe *p, struct probe_hist_row **rows)
{
	int n = 0, cap = 0, r = 0;

	*rows = NULL;
	if (p->cl)
		r = hist_read_map(bpf_map__fd(p->cl->maps.hist), rows, &n, &cap);
	if (r == 0 && p->sv)
		r = hist_read_map(bpf_map__fd(p->sv->maps.hist), rows, &n, &cap);
	if (r < 0) {
		free(*rows);
		*rows = NULL;
		return r;
	}
	return n;
}

uint64_t probe_hist_quantile(const struct probe_hist_row *r, double q)
{
	uint64_t want, acc = 0;

	if (!r->count)
		return 0;
	want = (uint64_t)(q * (double)r->count + 0.5);
	if (want < 1)
		want = 1;
	for (int i = 0; i < PROBE_HIST_SLOTS; i++) {
		acc += r->bucket[i];
		if (acc >= want)
			return i >= 63 ? UINT64_MAX : (2ULL << i) - 1;  /* bucket i holds [2^i, 2^(i+1)) */
	}
	return UINT64_MAX;
}

void probe_inflight_maps(const struct probe *p, struct probe_inflight_maps *m)
{
	m->ctasks = p->cl ? bpf_map__fd(p->cl->maps.ctasks) : -1;
	m->cpeer = p->cl ? bpf_map__fd(p->cl->maps.cpeer) : -1;
	m->peer_filter = p->cl && p->cl->rodata->filter_peer[0];
	m->sreqs = p->sv ? bpf_map__fd(p->sv->maps.sreqs) : -1;
	m->sparked = p->sv ? bpf_map__fd(p->sv->maps.sparked) : -1;
	m->ssends = p->sv ? bpf_map__fd(p->sv->maps.ssends) : -1;
}

void probe_detach(struct probe *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < probe_ntps; i++) {
		bpf_link__destroy(p->links[i]);
		p->links[i] = NULL;
	}
}

void probe_close(struct probe *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	for (size_t i = 0; i < probe_ntps; i++)
		bpf_link__destroy(p->links[i]);
	rpc_client_bpf__destroy(p->cl);
	rpc_server_bpf__destroy(p->sv);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	free(p);
}
