/* The probes' in-flight maps read from user space: the client's task
 * slots (an array of 8192), the server's requests by thread, parked for
 * their READs (6.12) and awaiting their Send's completion (hashes of
 * 4096).  A scrape reads each map once, in batches where the kernel has
 * bpf_map_lookup_batch (5.6 on), else key by key; never more keys than
 * the map holds, so a map the probes keep changing cannot hold the
 * scrape.  The pass is no snapshot: a request moving from one server map
 * to the next during it may count twice or not at all, for that scrape. */
#include "src/probe/probe_inflight.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/probe/probe_load.h"

#define BATCH 256

struct pass {
	const struct inflight_limits *l;
	struct inflight_side side[2];
	int cpeer;                /* client verdicts, or -1: no filter */
	int by_thread;            /* reading the server's requests by thread: its fd, else -1 */
	uint32_t last_client;     /* the last verdict looked up */
	int last_ok;              /* -1: none yet */
	int slots;
};

/* bpf_ktime_get_ns's clock */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The client probe emits a record only for clients of the filter's
 * server: its slots for other clients are not the user's RPCs either. */
static bool wanted(struct pass *ps, const struct probe_event *e)
{
	uint8_t v = 0;

	if (ps->cpeer < 0 || e->side != PROBE_SIDE_CLIENT)
		return true;
	if (ps->last_ok < 0 || ps->last_client != e->client_id) {
		ps->last_client = e->client_id;
		ps->last_ok = !bpf_map_lookup_elem(ps->cpeer, &e->client_id, &v) && v;
	}
	return ps->last_ok;
}

/* Whether nfsd thread tid waits for new work: then the request its slot
 * holds was left behind (its reply never posted: the connection died
 * under it, or the server dropped it), since a thread completes or drops
 * its request before it takes another.  Idle is state I (TASK_IDLE: the
 * wait for work from 6.6 on), or, before, the wait's function in wchan;
 * anything unreadable (another pid namespace, wchan hidden from a
 * process without the right to trace the thread) is not idle. */
/* /proc/TID/NAME's first bytes, NUL-terminated; false when unreadable. */
static bool read_proc(uint32_t tid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/%s", tid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

static bool thread_idle(uint32_t tid)
{
	char buf[512], *p;

	if (!read_proc(tid, "stat", buf, sizeof(buf)))
		return false;
	/* the name may hold ')': the state follows the last one */
	if ((p = strrchr(buf, ')')) && p[1] == ' ' && p[2] == 'I')
		return true;
	if (!read_proc(tid, "wchan", buf, sizeof(buf)))
		return false;
	return !strcmp(buf, "svc_get_next_xprt") || !strcmp(buf, "svc_recv") ||
	       !strcmp(buf, "svc_thread_wait_for_work");
}

/* A server slot's thread waits for new work: left behind, unless the
 * slot is gone or another request's by now (the thread completed it
 * between the map read and the look at the thread): then it is not
 * counted at all.  Returns 1 left, 0 not, -1 completed. */
static int left_behind(int fd, const struct probe_event *e)
{
	struct probe_event again;
	uint32_t tid = e->task_id;

	if (!thread_idle(tid))
		return 0;
	if (bpf_map_lookup_elem(fd, &tid, &again) || again.xid != e->xid ||
	    inflight_first_ns(&again) != inflight_first_ns(e))
		return -1;
	return 1;
}

/* Tallies n values read before now; by_thread: the fd of the map of
 * server requests by nfsd thread, else -1. */
static void tally(struct pass *ps, const struct probe_event *v, uint32_t n, int by_thread)
{
	uint64_t now = mono_ns();

	for (uint32_t i = 0; i < n; i++) {
		int left = 0;
		if (!v[i].side || !wanted(ps, &v[i]))
			continue;
		if (by_thread >= 0 && v[i].side == PROBE_SIDE_SERVER) {
			/* PS_PARKED: a thread's copy of a request sparked holds (6.12) */
			if ((v[i].seen & PS_PARKED) || (left = left_behind(by_thread, &v[i])) < 0)
				continue;
		}
		inflight_add(ps->side, &v[i], now, ps->l, left == 1);
	}
	ps->slots += (int)n;
}

/* Batched: 0, -EOPNOTSUPP when the kernel cannot batch this map (the
 * caller falls back before anything was tallied), or a negative errno. */
static int pass_batch(struct pass *ps, int fd, const struct bpf_map_info *mi, void *keys, struct probe_event *vals)
{
	/* the batch token: a u32 index / bucket for arrays and hashes */
	uint64_t in = 0, out = 0;
	bool first = true;
	uint32_t seen = 0;
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, o);

	for (;;) {
		uint32_t n = BATCH;
		int r = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys, vals, &n, &o);
		int err = r < 0 ? errno : 0;

		if (r < 0 && err != ENOENT) {
			if (first && (err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS ||
				      err == ENOSPC || err == 524 /* ENOTSUPP */))
				return -EOPNOTSUPP;
			return -err;
		}
		tally(ps, vals, n, ps->by_thread);
		seen += n;
		if (err == ENOENT || seen >= mi->max_entries)
			return 0;
		in = out;
		first = false;
	}
}

/* Key by key: at most max_entries keys, even when deletes restart the
 * walk (get_next_key of a deleted key starts over). */
static int pass_keys(struct pass *ps, int fd, const struct bpf_map_info *mi, void *keys, struct probe_event *vals)
{
	char *prev = keys, *next = (char *)keys + mi->key_size;
	bool first = true;

	for (uint32_t i = 0; i < mi->max_entries; i++) {
		if (bpf_map_get_next_key(fd, first ? NULL : prev, next))
			return errno == ENOENT ? 0 : -errno;
		first = false;
		memcpy(prev, next, mi->key_size);
		if (bpf_map_lookup_elem(fd, prev, vals))
			continue;   /* deleted since: completed */
		tally(ps, vals, 1, ps->by_thread);
	}
	return 0;
}

static int read_map(struct pass *ps, int fd)
{
	struct bpf_map_info mi;
	uint32_t len = sizeof(mi);
	struct probe_event *vals;
	void *keys;
	int r;

	if (fd < 0)
		return 0;
	memset(&mi, 0, sizeof(mi));
	if (bpf_obj_get_info_by_fd(fd, &mi, &len))
		return -errno;
	if (mi.value_size != sizeof(struct probe_event) || !mi.key_size || mi.key_size > 64)
		return -EINVAL;
	keys = malloc((size_t)mi.key_size * BATCH);
	vals = malloc(sizeof(*vals) * BATCH);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	r = pass_batch(ps, fd, &mi, keys, vals);
	if (r == -EOPNOTSUPP)
		r = pass_keys(ps, fd, &mi, keys, vals);
	free(keys);
	free(vals);
	return r;
}

int probe_inflight(struct probe *p, const struct inflight_limits *l, struct inflight_side out[2])
{
	struct probe_inflight_maps m;
	struct pass ps;
	int r = 0;

	probe_inflight_maps(p, &m);
	memset(&ps, 0, sizeof(ps));
	ps.l = l;
	ps.last_ok = -1;
	ps.cpeer = m.peer_filter ? m.cpeer : -1;
	int fds[] = { m.ctasks, m.sreqs, m.sparked, m.ssends };
	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]) && r == 0; i++) {
		ps.by_thread = fds[i] == m.sreqs ? m.sreqs : -1;
		r = read_map(&ps, fds[i]);
	}
	if (r < 0) {
		log_debug("kernel probe: in-flight maps not read: %s", strerror(-r));
		return r;
	}
	for (int s = 0; s < 2; s++) {
		out[s].in_flight += ps.side[s].in_flight;
		out[s].stalled += ps.side[s].stalled;
		out[s].untimed += ps.side[s].untimed;
		out[s].abandoned += ps.side[s].abandoned;
		if (ps.side[s].oldest_ns > out[s].oldest_ns)
			out[s].oldest_ns = ps.side[s].oldest_ns;
		if (ps.side[s].abandoned_oldest_ns > out[s].abandoned_oldest_ns)
			out[s].abandoned_oldest_ns = ps.side[s].abandoned_oldest_ns;
	}
	return ps.slots;
}
