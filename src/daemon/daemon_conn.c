/* nfsrdmad's connections: nfsrdma-top's control socket (snapshots of the
 * aggregation and the fused split, the links' report) and the Prometheus
 * endpoint (the aggregation, the forward links, the kernel's counters, the
 * collector's join and fused histograms), each non-blocking, cut off when
 * it stops reading. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/hostclock.h"
#include "src/daemon/coll_hist.h"
#include "src/daemon/coll_join.h"
#include "src/daemon/daemon_int.h"
#include "src/daemon/fwd_report.h"
#include "src/probe/probe_load.h"
#include "src/stats/ctl_proto.h"
/* What the kernel probes cost (docs/probes.md, "What the probes cost"):
 * each program's runs and run time by the kernel's own accounting, and a
 * kernel source's run time per record it delivered. */
static void probe_cost_metrics(FILE *f, struct daemon *d)
{
	static const char *const side_name[] = { "?", "client", "server", "both" };
	struct probe_prog_cost pc[64];
	bool head = false;

	for (int pass = 0; pass < 3; pass++) {
		for (unsigned i = 0; i < d->nsrc; i++) {
			struct probe *p = source_kernel_probe(d->src[i].s);
			int n = p ? probe_costs(p, pc, 64) : 0;
			uint64_t ns = 0, records;
			if (!n)
				continue;
			if (!head && pass < 2) {
				fputs(pass ? "# HELP nfsrdma_probe_run_seconds_total Time the kernel spent in the probe program "
					     "(the kernel's run-time accounting, bpf_stats_enabled)\n"
					     "# TYPE nfsrdma_probe_run_seconds_total counter\n"
					   : "# HELP nfsrdma_probe_runs_total Runs of the probe program (the kernel's accounting)\n"
					     "# TYPE nfsrdma_probe_runs_total counter\n", f);
				head = true;
			}
			if (!head && pass == 2) {
				fputs("# HELP nfsrdma_probe_cost_per_rpc_seconds A kernel source's probe run time per "
				      "record it delivered, since start\n# TYPE nfsrdma_probe_cost_per_rpc_seconds gauge\n", f);
				head = true;
			}
			for (int k = 0; k < n; k++) {
				ns += pc[k].run_ns;
				if (pass == 2)
					continue;
				/* id: the kernel's program id, as bpftool prog show names it */
				fprintf(f, "nfsrdma_probe_%s{side=\"%s\",program=\"%s\",tracepoint=\"%s\",id=\"%u\"} ",
					pass ? "run_seconds_total" : "runs_total", side_name[pc[k].side & 3], pc[k].prog,
					pc[k].event, pc[k].id);
				if (pass)
					fprintf(f, "%.9f\n", (double)pc[k].run_ns * 1e-9);
				else
					fprintf(f, "%" PRIu64 "\n", pc[k].runs);
			}
			pthread_mutex_lock(&d->src[i].mu);
			records = d->src[i].st.records;
			pthread_mutex_unlock(&d->src[i].mu);
			if (pass == 2 && records) {
				fputs("nfsrdma_probe_cost_per_rpc_seconds{source=\"", f);
				metrics_label_value(f, d->src[i].spec);
				fprintf(f, "\"} %.9f\n", (double)ns * 1e-9 / (double)records);
			}
		}
		head = false;
	}
}

/* For nfsrdma-top's header: every kernel source's programs together */
static void probe_cost_snap(struct daemon *d, struct agg_snap *s)
{
	struct probe_prog_cost pc[64];

	for (unsigned i = 0; i < d->nsrc; i++) {
		struct probe *p = source_kernel_probe(d->src[i].s);
		int n = p ? probe_costs(p, pc, 64) : 0;
		if (!n)
			continue;
		s->has_probe_cost = true;
		for (int k = 0; k < n; k++) {
			s->probe_run_ns += pc[k].run_ns;
			s->probe_runs += pc[k].runs;
		}
		pthread_mutex_lock(&d->src[i].mu);
		s->probe_records += d->src[i].st.records;
		pthread_mutex_unlock(&d->src[i].mu);
	}
}

/* The host's clock as adjtimex says it at the scrape: what an alert on an
 * unsynchronised host reads (the records' clock lines carry the same) */
static void host_clock_metrics(FILE *f)
{
	struct host_clock hc;

	if (host_clock_read(&hc, NULL, NULL) < 0 || hc.state < 0)
		return;
	fprintf(f, "# HELP nfsrdma_host_clock_synchronized 1 when the kernel says the clock is synchronised "
		   "(adjtimex: STA_UNSYNC clear, not TIME_ERROR)\n# TYPE nfsrdma_host_clock_synchronized gauge\n"
		   "nfsrdma_host_clock_synchronized %d\n", hc.synced ? 1 : 0);
	fprintf(f, "# HELP nfsrdma_host_clock_maxerror_seconds The clock's maximum error, as the time daemon "
		   "told the kernel (adjtimex maxerror)\n# TYPE nfsrdma_host_clock_maxerror_seconds gauge\n"
		   "nfsrdma_host_clock_maxerror_seconds %.6f\n", (double)hc.maxerror_ns * 1e-9);
	fprintf(f, "# HELP nfsrdma_host_clock_esterror_seconds The clock's estimated error (adjtimex esterror)\n"
		   "# TYPE nfsrdma_host_clock_esterror_seconds gauge\n"
		   "nfsrdma_host_clock_esterror_seconds %.6f\n", (double)hc.esterror_ns * 1e-9);
}

static void fwd_metrics_hook(FILE *f, void *ctx, bool native)
{
	struct daemon *d = ctx;

	fwd_report_metrics(f, d->fw, d->col);
	host_clock_metrics(f);
	probe_cost_metrics(f, d);
	daemon_inflight_metrics(f, d);
	if (d->c->kstat_root)
		ks_write_metrics(f, d->c->kstat_root, &d->kstat_skips);
	if (d->cj)
		coll_join_report_metrics(d->cj, f);
	if (d->ch)
		coll_hist_write(d->ch, f, native);
}

void daemon_conn_close(struct conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	free(k->out);
	memset(k, 0, sizeof(*k));
	k->fd = -1;
}

static int conn_append(struct conn *k, const char *data, size_t len)
{
	if (k->outlen - k->outpos + len > OUT_MAX)
		return -ENOBUFS;
	if (k->outpos) {
		memmove(k->out, k->out + k->outpos, k->outlen - k->outpos);
		k->outlen -= k->outpos;
		k->outpos = 0;
	}
	char *o = realloc(k->out, k->outlen + len + 1);
	if (!o)
		return -ENOMEM;
	memcpy(o + k->outlen, data, len);
	k->out = o;
	k->outlen += len;
	return 0;
}

void daemon_accept(struct daemon *d, int lfd, enum conn_kind kind)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *k = &d->conns[i];
		if (k->fd >= 0)
			continue;
		k->fd = fd;
		k->kind = kind;
		k->t_open = clock_mono_ns();
		if (kind == C_CTL) {
			char g[64];
			int n = snprintf(g, sizeof(g), "%s %d.%d\n", CTL_GREETING, CTL_PROTO_VERSION, CTL_PROTO_MINOR);
			conn_append(k, g, (size_t)n);
		}
		return;
	}
	d->refused++;
	close(fd);
}

static void ctl_command(struct daemon *d, struct conn *k, const char *line)
{
	if (!strcmp(line, "SNAPSHOT")) {
		struct agg_snap s;
		struct fsplit_snap fs;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;
		/* fused records may reach the split on an inline source's
		 * thread too (consume), under the same lock as the aggregation */
		pthread_mutex_lock(&d->agg_mu);
		int rc = agg_snapshot(d->agg, d->record_clock ? 0 : clock_wall_ns(), &s);
		if (rc == 0 && fsplit_snapshot(d->fs, &fs) < 0) {
			agg_snap_free(&s);
			rc = -ENOMEM;
		}
		pthread_mutex_unlock(&d->agg_mu);
		if (rc < 0) {
			conn_append(k, "ERR out of memory\n", 18);
			return;
		}
		if (!(f = open_memstream(&buf, &len))) {
			fsplit_snap_free(&fs);
			agg_snap_free(&s);
			conn_append(k, "ERR out of memory\n", 18);
			return;
		}
		fwd_report_links(&s, d->fw, d->col);
		probe_cost_snap(d, &s);
		daemon_inflight(d, &s);
		ctl_write_snap_fused(f, &s, &fs);
		fsplit_snap_free(&fs);
		agg_snap_free(&s);
		if (fclose(f) == 0 && conn_append(k, buf, len) < 0)
			k->close_after = true;
		free(buf);
	} else if (!strcmp(line, "PING")) {
		conn_append(k, "PONG\n", 5);
	} else if (!strcmp(line, "QUIT")) {
		k->close_after = true;
	} else {
		conn_append(k, "ERR unknown command\n", 20);
	}
}

void daemon_conn_input(struct daemon *d, struct conn *k)
{
	ssize_t n = read(k->fd, k->in + k->inlen, sizeof(k->in) - 1 - k->inlen);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		daemon_conn_close(k);
		return;
	}
	if (n < 0)
		return;
	k->inlen += (size_t)n;
	k->in[k->inlen] = 0;
	if (k->kind == C_HTTP) {
		if (http_request_complete(k->in, k->inlen)) {
			char *resp = NULL;
			size_t rlen = 0;
			pthread_mutex_lock(&d->agg_mu);
			int rc = http_respond(k->in, k->inlen, d->agg, fwd_metrics_hook, d, &resp, &rlen);
			pthread_mutex_unlock(&d->agg_mu);
			if (rc == 0)
				conn_append(k, resp, rlen);
			free(resp);
			k->close_after = true;
			k->inlen = 0;
		} else if (k->inlen >= sizeof(k->in) - 1) {
			static const char too[] = "HTTP/1.0 431 Request Header Fields Too Large\r\n"
						  "Content-Length: 0\r\nConnection: close\r\n\r\n";
			conn_append(k, too, sizeof(too) - 1);
			k->close_after = true;
			k->inlen = 0;
		}
		return;
	}
	char *start = k->in;
	size_t rest = k->inlen, len;
	int rc;
	while ((rc = ctl_next_line(start, rest, &len)) > 0) {
		start[len] = 0;
		if (len && start[len - 1] == '\r')
			start[len - 1] = 0;
		ctl_command(d, k, start);
		start += len + 1;
		rest -= len + 1;
	}
	memmove(k->in, start, rest);
	k->inlen = rest;
	if (rc < 0) {
		conn_append(k, "ERR line too long\n", 18);
		k->close_after = true;
		k->inlen = 0;
	}
}

void daemon_conn_output(struct conn *k)
{
	while (k->outpos < k->outlen) {
		ssize_t n = send(k->fd, k->out + k->outpos, k->outlen - k->outpos, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			daemon_conn_close(k);
			return;
		}
		k->outpos += (size_t)n;
	}
	k->outpos = k->outlen = 0;
	if (k->close_after)
		daemon_conn_close(k);
}
