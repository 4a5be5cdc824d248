/* nfsrdmad main loop (see daemon.h).  Threads: one per source, each
 * polling its source and pushing records into the bounded queue (and its
 * pcapng export, which lives on that thread); the main thread does
 * everything else with poll(2).  One capture file read flat out, with no
 * peers, is aggregated on its source thread instead: handing each record
 * to another core cost more than aggregating it (bench/README.md), and
 * the one source keeps the records in the order the queue would.  agg_mu
 * then guards the aggregation and stdout between the two threads. */
#include "src/daemon/daemon.h"
#include "src/daemon/daemon_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "src/stats/ctl_proto.h"
#include "src/daemon/daemon_queue.h"
#include "src/daemon/coll_hist.h"
#include "src/daemon/coll_join.h"
#include "src/daemon/fwd_report.h"
#include "src/daemon/kstat.h"
#include "src/out/export_pcapng.h"
#include "src/base/clock.h"
#include "src/base/exit.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/daemon/metrics_http.h"
#include "src/daemon/privdrop.h"
#include "src/out/out.h"
#include "pcap/source_pcap.h"
#include "src/probe/source_table.h"

#define DRAIN_BATCH 256
#define DRAIN_MAX   65536   /* records per drain, then the sockets get a turn */
#define FWD_LINGER_MS 3000  /* at exit, queued records get this long to reach the collector */

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { stop_flag = 1; }

static void consume(struct daemon *d, const struct nfsrdma_record *r, uint64_t now);

/* ---- source threads ---- */

#define SRC_BATCH 128

static void src_flush(struct src_thread *t)
{
	if (t->agg_held) {
		/* the poll's records leave as the queue's drain would send them */
		if (t->d->c->json)
			fflush(stdout);
		pthread_mutex_unlock(&t->d->agg_mu);
		t->agg_held = false;
	}
	if (t->resv.n)
		rec_queue_commit(t->d->q, &t->resv, t->used);
	t->used = 0;
}

/* The record goes straight into a slot of the queue: one copy. */
static void on_record(const struct nfsrdma_record *r, void *ctx)
{
	struct src_thread *t = ctx;

	if (t->d->agg_inline) {
		/* one lock a poll (4096 packets), not a record */
		if (!t->agg_held) {
			pthread_mutex_lock(&t->d->agg_mu);
			t->agg_held = true;
		}
		consume(t->d, r, 0);   /* a file read flat out runs on record time */
		return;
	}
	if (t->used == t->resv.n) {
		src_flush(t);
		if (!rec_queue_reserve(t->d->q, t->batch, t->lossless, &t->resv))
			return;   /* lossy and full (counted), or shutting down */
	}
	t->resv.slot[t->used++] = *r;
}

static void *src_main(void *arg)
{
	struct src_thread *t = arg;

	/* A lossy source reserves at most a sixteenth of the queue at once,
	 * so what its reservation holds changes little about what a full
	 * queue drops; a small queue (--queue < 32) takes records one by one. */
	t->batch = t->lossless ? SRC_BATCH : rec_queue_cap(t->d->q) / 16;
	if (t->batch > SRC_BATCH)
		t->batch = SRC_BATCH;
	if (!t->batch)
		t->batch = 1;
	bool ended = false;
	while (!stop_flag) {
		int rc = source_poll(t->s, 200);
		/* a poll's records leave when it returns: no added latency */
		src_flush(t);
		pthread_mutex_lock(&t->mu);
		source_get_stats(t->s, &t->st);
		pthread_mutex_unlock(&t->mu);
		if (rc == -ENODATA) {
			ended = true;
			break;
		}
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN) {
			t->last_err = rc;
			/* a capture file cut short names the frame and offset */
			if (source_pcap_error(t->s))
				log_error("%s", source_pcap_error(t->s));
			else
				log_error("source %s: %s", t->spec, strerror(-rc));
			break;
		}
	}
	/* on a stop, what the kernel probes wrote since the last wake-up
	 * (they wake the reader only every eighth of the ring) */
	if (stop_flag && !ended && !t->last_err)
		source_poll(t->s, 0);
	src_flush(t);
	/* without --exit-at-end the daemon stays up: -v says the file is done */
	if (ended)
		log_info("source %s: end, %llu records", t->spec, (unsigned long long)t->st.records);
	char note[512];   /* the nothing-found line names every link and counter */
	if (source_note(t->s, note, sizeof(note)))
		log_warn("source %s: %s", t->spec, note);
	if (t->exp) {
		pcapng_export_close(t->exp);
		t->exp = NULL;
	}
	atomic_store(&t->done, true);
	rec_queue_kick(t->d->q);   /* --exit-at-end notices without waiting */
	return NULL;
}

/* ---- output ---- */

/* The caller holds agg_mu: an inline source's records go to stdout too. */
static void print_summary_locked(struct daemon *d, uint64_t now)
{
	struct agg_snap s;

	if (agg_snapshot(d->agg, now, &s) < 0)
		return;
	uint64_t drops = s.t.drops_queue + s.t.drops_source;
	if (d->c->json) {
		/* "type" first, as every non-record line of every tool has it */
		struct jw jb, *j = &jb;
		jw_init(j, stdout);
		jw_lit(j, "{\"type\":\"daemon_summary\",\"summary\":{\"t\":");
		jw_time(j, s.now_ns);
		JW_KEY(j, "window_s");
		jw_fixed(j, s.win_s, 3);
		JW_KEY(j, "records");
		jw_u(j, s.t.tot.records);
		JW_KEY(j, "rate");
		jw_fixed(j, s.rate, 3);
		JW_KEY(j, "errors");
		jw_u(j, s.t.tot.errors);
		JW_KEY(j, "drops");
		jw_u(j, drops);
		jw_lit(j, ",\"ops\":[");
		out_agg_ops_json(j, &s);
		jw_c(j, ']');
		fwd_report_json(j, d->fw, d->col, d->cj);
		jw_lit(j, "}}\n");
		jw_flush(j);
	} else {
		printf("summary: records %" PRIu64 " rate %.1f/s errors %" PRIu64 " drops %" PRIu64 "\n",
		       s.t.tot.records, s.rate, s.t.tot.errors, drops);
		for (size_t i = 0; i < s.nrows[AGG_OP]; i++) {
			const struct agg_row *r = &s.rows[AGG_OP][i];
			printf("  %-28s %8" PRIu64 " %9.1f/s p50 %9.1fus p99 %9.1fus max %9.1fus\n", r->key,
			       r->tot.records, r->rate, r->p50 / 1e3, r->p99 / 1e3, r->max / 1e3);
		}
		fwd_report_text(stdout, d->fw, d->col);
	}
	fflush(stdout);
	agg_snap_free(&s);
}

static void print_summary(struct daemon *d, uint64_t now)
{
	pthread_mutex_lock(&d->agg_mu);
	print_summary_locked(d, now);
	pthread_mutex_unlock(&d->agg_mu);
}

static void update_external(struct daemon *d)
{
	uint64_t drops = 0, events = 0, errors = 0, records = 0;

	for (unsigned i = 0; i < d->nsrc; i++) {
		struct src_thread *t = &d->src[i];
		pthread_mutex_lock(&t->mu);
		drops += t->st.drops;
		events += t->st.events;
		errors += t->st.errors;
		records += t->st.records;
		pthread_mutex_unlock(&t->mu);
	}
	pthread_mutex_lock(&d->agg_mu);
	agg_set_external(d->agg, rec_queue_drops(d->q), drops, events, errors, records);
	pthread_mutex_unlock(&d->agg_mu);
}

/* Records the sources delivered, all of them, so far. */
static uint64_t records_read(struct daemon *d)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < d->nsrc; i++) {
		pthread_mutex_lock(&d->src[i].mu);
		n += d->src[i].st.records;
		pthread_mutex_unlock(&d->src[i].mu);
	}
	return n;
}

/* A record reaches aggregation and the JSON Lines here, from the queue
 * directly or, when collecting, out of the join. */
static void consume(struct daemon *d, const struct nfsrdma_record *r, uint64_t now)
{
	uint64_t t = now;

	if (d->record_clock)
		t = r->t_reply_last ? r->t_reply_last : r->t_call_last ? r->t_call_last : 0;
	agg_add(d->agg, r, t);
	if (rec_is_fused(r))
		fsplit_add(d->fs, r);
	if (d->c->json)
		out_json(stdout, r);
}

static void on_joined(const struct nfsrdma_record *r, void *ctx)
{
	struct daemon *d = ctx;

	coll_hist_add(d->ch, r);
	consume(ctx, r, clock_wall_ns());
}

static void on_remote(const struct nfsrdma_record *r, const struct fwd_meta *m, const struct coll_peer *from,
		      void *ctx)
{
	struct daemon *d = ctx;

	coll_join_add(d->cj, r, m, from->last_recv_ns);
}

static size_t drain(struct daemon *d)
{
	const struct nfsrdma_record *recs;
	size_t n, total = 0;

	/* Records are aggregated where they lie in the queue's ring: a
	 * record is 1.3 KB, and copying each out again was a measurable part
	 * of the main thread's time. */
	while ((n = rec_queue_peek(d->q, &recs)) > 0) {
		if (n > DRAIN_BATCH)
			n = DRAIN_BATCH;
		uint64_t now = clock_wall_ns();
		for (size_t i = 0; i < n; i++) {
			if (d->fw)
				fwd_record(d->fw, &recs[i]);
			if (d->cj)
				coll_join_add(d->cj, &recs[i], NULL, now);
			else
				consume(d, &recs[i], now);
		}
		rec_queue_release(d->q, n);
		total += n;
		if (total >= DRAIN_MAX)
			break;   /* let the sockets breathe */
	}
	if (d->fw)
		fwd_tick(d->fw);
	if (d->col)
		total += coll_drain(d->col, DRAIN_MAX, on_remote, d);
	if (d->cj)
		coll_join_poll(d->cj, clock_wall_ns());
	if (total && d->c->json)
		fflush(stdout);
	return total;
}

/* ---- run ---- */

static int open_sources(struct daemon *d)
{
	const struct daemon_cfg *c = d->c;
	bool all_flat = true;

	for (unsigned i = 0; i < c->nsources; i++) {
		struct src_thread *t = &d->src[d->nsrc];
		char err[512];
		t->d = d;
		t->idx = i;
		t->spec = c->sources[i];
		pthread_mutex_init(&t->mu, NULL);
		int rc = source_open(&t->s, t->spec, &c->sopts, on_record, t, err, sizeof(err));
		if (rc < 0) {
			log_error("--source %s: %s", t->spec, err);
			return rc;
		}
		d->nsrc++;
		t->lossless = source_flat_out(t->s);
		all_flat = all_flat && t->lossless;
		if (c->export_dir && source_is_pcap(t->s)) {
			char prefix[32];
			snprintf(prefix, sizeof(prefix), "nfsrdma-src%u", i);
			struct pcapng_export_opts eo = { .dir = c->export_dir, .prefix = prefix,
							 .rotate_ns = c->rotate_ns, .rotate_bytes = c->rotate_bytes,
							 .keep = c->export_keep };
			/* files are created after the privilege drop: the export
			 * directory must be writable by --user */
			t->exp = NULL;
			if (pcapng_export_new(&t->exp, t->s, &eo, err, sizeof(err)) < 0)
				log_warn("--export-dir: %s", err);
		} else if (c->export_dir) {
			log_warn("--export-dir: source %s has no packets to export", t->spec);
		}
	}
	/* peers' records arrive as they happen: the wall clock is theirs too */
	d->record_clock = all_flat && d->nsrc > 0 && !c->fwd.collect;
	/* the forwarder is the main thread's; several sources would take
	 * turns at the lock for a whole poll each */
	d->agg_inline = d->record_clock && d->nsrc == 1 && !c->fwd.forward;
	return 0;
}

/* Everything before the loop: the aggregate, the sources, the queue,
 * the listeners, the forward link or the collector, the privilege drop
 * and the source threads.  0, or the exit status of what failed (said). */
static int daemon_setup(struct daemon *d)
{
	const struct daemon_cfg *c = d->c;
	char err[512];
	int rc = 1, e;

	d->agg = agg_new(&c->agg);
	d->fs = fsplit_new(0);
	if (!d->agg || !d->fs) {
		log_error("out of memory");
		return rc;
	}
	/* A spec that does not parse, or names what can never be a capture
	 * (a directory, a file that is not one, a link type not read), is
	 * the configuration's fault (2: systemd does not restart); a file not
	 * there is an input missing, 1 as in every tool (it may be there on
	 * a restart), as is a source that cannot attach now (no permission,
	 * interface not up). */
	if ((e = open_sources(d)) < 0) {
		rc = e == -EINVAL || e == -EISDIR || e == -EPROTONOSUPPORT ? EXIT_USAGE : EXIT_FAILED;
		return rc;
	}
	/* Files read flat out wait for room rather than drop, so a deep
	 * queue buys them nothing, and a short one keeps the slots the
	 * records pass through in cache (8192 records are 11 MB). */
	if (!(d->q = rec_queue_new(c->queue ? c->queue : d->record_clock ? 1024 : 8192))) {
		log_error("out of memory");
		return rc;
	}
	if (c->metrics && strcmp(c->metrics, "none")) {
		if ((d->http_fd = daemon_listen_tcp(c->metrics, err, sizeof(err))) < 0) {
			log_error("--metrics %s", err);
			rc = d->http_fd == -EINVAL ? 2 : 1;   /* not an address / bind failed */
			return rc;
		}
		log_info("metrics on http://%s/metrics", c->metrics);
	}
	if (c->socket_path && strcmp(c->socket_path, "none")) {
		if ((d->ctl_fd = daemon_listen_unix(c->socket_path, c->socket_mode ? c->socket_mode : 0660,
						    err, sizeof(err))) < 0) {
			log_error("--socket %s", err);
			/* a path no socket can have, or a file that is not one */
			rc = d->ctl_fd == -ENAMETOOLONG || d->ctl_fd == -EEXIST ? 2 : 1;
			return rc;
		}
	}
	if (c->fwd.forward) {
		if ((e = fwd_open(&d->fw, &c->fwd, err, sizeof(err))) < 0) {
			log_error("--forward %s", err);
			rc = e == -EINVAL ? 2 : 1;
			return rc;
		}
		log_info("forwarding records to %s", c->fwd.forward);
	}
	if (c->fwd.collect) {
		if ((e = coll_open(&d->col, &c->fwd, err, sizeof(err))) < 0) {
			log_error("--collect %s", err);
			rc = e == -EINVAL ? 2 : 1;   /* a bad setting / the address cannot be bound */
			return rc;
		}
		if (!(d->ch = coll_hist_new()) || !(d->cj = coll_join_new(on_joined, d, (uint64_t)(c->fwd.join_wait * 1e9), !c->fwd.no_clock_hints))) {
			log_error("out of memory");
			return rc;
		}
		log_info("collecting records on %s", c->fwd.collect);
	}
	if (c->user && (e = drop_privileges(c->user, d->ctl_fd, c->socket_path, c->socket_group)) < 0) {
		rc = e == -ENOENT ? 2 : 1;   /* no such user or group */
		return rc;
	}
	for (unsigned i = 0; i < d->nsrc; i++) {
		if (pthread_create(&d->src[i].th, NULL, src_main, &d->src[i]) != 0) {
			log_error("source %s: cannot start its thread", d->src[i].spec);
			stop_flag = 1;
			return rc;
		}
		d->src[i].started = true;
	}

	return 0;
}

/* What the loop waits on: the queue's eventfd (-3), the control and
 * metrics listeners (-1, -2) and each connection (its index), into p
 * and idx; returns how many. */
static int poll_set(struct daemon *d, struct pollfd *p, int *idx)
{
	int np = 0;
	int qfd = rec_queue_fd(d->q);
	if (qfd >= 0) {
		p[np] = (struct pollfd){ qfd, POLLIN, 0 };
		idx[np++] = -3;
	}
	if (d->ctl_fd >= 0) {
		p[np] = (struct pollfd){ d->ctl_fd, POLLIN, 0 };
		idx[np++] = -1;
	}
	if (d->http_fd >= 0) {
		p[np] = (struct pollfd){ d->http_fd, POLLIN, 0 };
		idx[np++] = -2;
	}
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *k = &d->conns[i];
		if (k->fd < 0)
			continue;
		/* no new input while output is pending: backpressure */
		p[np] = (struct pollfd){ k->fd, k->outlen > k->outpos ? POLLOUT : POLLIN, 0 };
		idx[np++] = i;
	}
	return np;
}

/* Output still pending goes out; an idle HTTP connection is closed. */
static void conns_tend(struct daemon *d, uint64_t mnow)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *k = &d->conns[i];
		if (k->fd >= 0 && k->outlen > k->outpos)
			daemon_conn_output(k);
		if (k->fd >= 0 && k->kind == C_HTTP && mnow - k->t_open > HTTP_IDLE_NS)
			daemon_conn_close(k);
	}
}

/* Until a signal, the end of every source (--exit-at-end) or stdout's
 * reader gone: records in, connections served, the summary and the clock
 * lines on time.  0, or 1 when poll failed. */
static int daemon_loop(struct daemon *d)
{
	const struct daemon_cfg *c = d->c;
	int rc = 0;
	uint64_t next_sum = c->summary_interval > 0 ? clock_mono_ns() + (uint64_t)(c->summary_interval * 1e9) : 0;
	uint64_t next_clock = daemon_clock_line(!d->record_clock, c->json, d->fw, d->cj, &d->agg_mu, clock_mono_ns());
	bool backlog = false;
	while (!stop_flag) {
		struct pollfd p[3 + MAX_CONNS];
		int idx[3 + MAX_CONNS];
		int np = poll_set(d, p, idx);
		int qfd = rec_queue_fd(d->q);
		/* Records wake us through the queue's eventfd; the timeout is only
		 * for the summary, idle HTTP connections and the end of input.
		 * Without an eventfd, poll the queue every 50 ms. */
		int timeout = qfd >= 0 ? 1000 : 50;
		if (backlog)
			timeout = 0;   /* drain stopped early: no wakeup is coming for what is left */
		uint64_t next_t = next_sum && (!next_clock || next_sum < next_clock) ? next_sum : next_clock;
		if (next_t) {
			uint64_t now = clock_mono_ns();
			int left = now >= next_t ? 0 : (int)((next_t - now) / 1000000) + 1;
			if (left < timeout)
				timeout = left;
		}
		int n = d->col ? coll_poll(d->col, p, np, timeout) : poll(p, (nfds_t)np, timeout);
		if (n < 0 && errno != EINTR) {
			log_error("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		rec_queue_ack(d->q);
		backlog = drain(d) >= DRAIN_MAX;
		if (d->c->json && ferror(stdout))
			break;   /* the JSON's reader is gone (| head) or the disk is full:
				  * stop, as a tool in a pipeline does; main's check of
				  * stdout says which (quiet for a closed pipe) */
		update_external(d);
		for (int i = 0; n > 0 && i < np; i++) {
			if (!p[i].revents)
				continue;
			if (idx[i] == -3)
				continue;   /* the queue: drained above */
			if (idx[i] == -1)
				daemon_accept(d, d->ctl_fd, C_CTL);
			else if (idx[i] == -2)
				daemon_accept(d, d->http_fd, C_HTTP);
			else if (p[i].revents & POLLOUT)
				daemon_conn_output(&d->conns[idx[i]]);
			else
				daemon_conn_input(d, &d->conns[idx[i]]);
		}
		uint64_t mnow = clock_mono_ns();
		conns_tend(d, mnow);
		if (next_sum && mnow >= next_sum) {
			print_summary(d, d->record_clock ? 0 : clock_wall_ns());
			next_sum = mnow + (uint64_t)(c->summary_interval * 1e9);
		}
		if (next_clock && mnow >= next_clock)
			next_clock = daemon_clock_line(true, c->json, d->fw, d->cj, &d->agg_mu, mnow);
		if (c->exit_at_end && !d->col) {   /* a collector's peers have no end */
			bool all = true;
			for (unsigned i = 0; i < d->nsrc; i++)
				all = all && atomic_load(&d->src[i].done);
			if (all && !rec_queue_len(d->q)) {
				drain(d);
				update_external(d);
				break;
			}
		}
	}
	return rc;
}

/* After the loop: what is queued for the collector leaves, the waiting
 * RPCs go out partial, the last summary; the run's exit status from
 * the loop's rc. */
static int daemon_finish(struct daemon *d, int rc)
{
	const struct daemon_cfg *c = d->c;

	if (d->fw) {
		/* what is queued gets its chance to leave; the counts are final */
		fwd_shutdown(d->fw, FWD_LINGER_MS);
	}
	if (d->cj) {
		/* the RPCs still waiting for a vantage go out, partial and counted */
		coll_join_flush(d->cj);
		if (c->json)
			fflush(stdout);
	}
	if (c->summary_interval > 0 || c->exit_at_end)
		print_summary(d, d->record_clock ? 0 : clock_wall_ns());
	/* --exit-at-end: a source that could not be read to its end is an error */
	for (unsigned i = 0; c->exit_at_end && rc == 0 && i < d->nsrc; i++)
		if (d->src[i].last_err)
			rc = 1;
	/* a one-shot run that found nothing fails with 3, as nfsrdma-dissect
	 * does: a script must not take an empty summary for a quiet server */
	if (c->exit_at_end && rc == 0 && !d->col && !records_read(d)) {
		log_warn("nothing found: no record in any source");
		rc = 3;
	}
	return rc;
}

/* Cleanup in reverse order of setup (whatever part of it was done). */
static void daemon_teardown(struct daemon *d)
{
	const struct daemon_cfg *c = d->c;

	stop_flag = 1;
	if (d->q)
		rec_queue_close(d->q);
	for (unsigned i = 0; i < d->nsrc; i++) {
		if (d->src[i].started)
			pthread_join(d->src[i].th, NULL);
		else if (d->src[i].exp)
			pcapng_export_close(d->src[i].exp);
		source_close(d->src[i].s);
		pthread_mutex_destroy(&d->src[i].mu);
	}
	for (int i = 0; i < MAX_CONNS; i++)
		if (d->conns[i].fd >= 0)
			daemon_conn_close(&d->conns[i]);
	if (d->ctl_fd >= 0) {
		close(d->ctl_fd);
		unlink(c->socket_path);   /* may fail after the privilege drop; harmless */
	}
	if (d->http_fd >= 0)
		close(d->http_fd);
	fwd_close(d->fw);
	coll_close(d->col);
	coll_join_free(d->cj);
	coll_hist_free(d->ch);
	agg_free(d->agg);
	fsplit_free(d->fs);
	rec_queue_free(d->q);
	pthread_mutex_destroy(&d->agg_mu);
	free(d);
}

int daemon_run(const struct daemon_cfg *c)
{
	struct daemon *d = calloc(1, sizeof(*d));

	if (!d) {
		log_error("out of memory");
		return 1;
	}
	d->c = c;
	d->ctl_fd = d->http_fd = -1;
	pthread_mutex_init(&d->agg_mu, NULL);
	for (int i = 0; i < MAX_CONNS; i++)
		d->conns[i].fd = -1;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	stop_flag = 0;

	int rc = daemon_setup(d);
	if (rc == 0)
		rc = daemon_finish(d, daemon_loop(d));
	daemon_teardown(d);
	return rc;
}
