/* The kernel's counters as Prometheus families (kstat.h).  The client's
 * names and labels are node_exporter's mountstats collector's with our
 * prefix (nfsrdma_mountstats_nfs_*: export, protocol, mountaddr; plus
 * mountpoint, so that two mounts of one export stay two series), so a
 * dashboard built on one reads the other; RDMA's own counters, which no
 * exporter has, are nfsrdma_mountstats_nfs_transport_rdma_*. */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/nfs_vocab.h"
#include "src/base/log.h"
#include "src/daemon/kstat.h"
#include "src/daemon/metrics_http.h"

#define KS_FILE_MAX (8u << 20)

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* the mount's labels, and the operation's when op */
static void mount_labels(FILE *f, const struct ks_mount *m, const char *op)
{
	fputs("{export=\"", f);
	metrics_label_value(f, m->device);
	fputs("\",protocol=\"", f);
	metrics_label_value(f, m->proto[0] ? m->proto : ks_xprt_proto(m->xprt_layout) ? ks_xprt_proto(m->xprt_layout) : "");
	fputs("\",mountaddr=\"", f);
	metrics_label_value(f, m->addr);
	fputs("\",mountpoint=\"", f);
	metrics_label_value(f, m->mountpoint);
	if (op) {
		fputs("\",operation=\"", f);
		metrics_label_value(f, op);
	}
	fputs("\"}", f);
}

/* ---- client: per mount ---- */

static const char *const event_names[KS_EVENTS] = {
	"inode_revalidate", "dnode_revalidate", "data_invalidate", "attribute_invalidate", "vfs_open",
	"vfs_lookup", "vfs_access", "vfs_update_page", "vfs_read_page", "vfs_read_pages", "vfs_write_page",
	"vfs_write_pages", "vfs_getdents", "vfs_setattr", "vfs_flush", "vfs_fsync", "vfs_lock",
	"vfs_file_release", "congestion_wait", "truncation", "write_extension", "silly_rename", "short_read",
	"short_write", "jukebox_delay", "pnfs_read", "pnfs_write",
};
static const char *const bytes_names[KS_BYTES] = {
	"read_bytes", "write_bytes", "direct_read_bytes", "direct_write_bytes", "total_read_bytes",
	"total_write_bytes", "read_pages", "write_pages",
};

/* The transport fields exported, by their layout names: the metric's
 * suffix, whether a gauge; the RDMA ones under transport_rdma_ */
static const struct {
	const char *field, *metric;
	bool gauge, rdma;
	const char *help;
} xprt_metrics[] = {
	{ "bind", "transport_bind_total", false, false, "Times the transport was bound (rpcbind)" },
	{ "connect", "transport_connect_total", false, false, "Times the transport connected" },
	{ "idle_time", "transport_idle_time_seconds", true, false, "Seconds since the transport was last used" },
	{ "sends", "transport_sends_total", false, false, "RPC requests sent" },
	{ "receives", "transport_receives_total", false, false, "RPC replies received" },
	{ "bad_xids", "transport_bad_transaction_ids_total", false, false, "Replies whose XID matched no request" },
	{ "req_u", "transport_cumulative_active_requests_total", false, false,
	  "Requests in flight, summed at each send (divided by sends: the mean queue)" },
	{ "backlog_u", "transport_backlog_queue_total", false, false, "Backlog length, summed at each send" },
	{ "max_slots", "transport_maximum_rpc_slots", true, false, "Most RPC slots in use at once" },
	{ "sending_u", "transport_sending_queue_total", false, false, "Sending queue length, summed at each send" },
	{ "pending_u", "transport_pending_queue_total", false, false, "Pending queue length, summed at each send" },
	{ "read_chunks", "transport_rdma_read_chunks_total", false, true, "Calls with a Read chunk" },
	{ "write_chunks", "transport_rdma_write_chunks_total", false, true, "Calls with a Write chunk" },
	{ "reply_chunks", "transport_rdma_reply_chunks_total", false, true, "Calls with a Reply chunk" },
	{ "request_bytes", "transport_rdma_request_bytes_total", false, true, "Bytes of calls (RPC-over-RDMA)" },
	{ "reply_bytes", "transport_rdma_reply_bytes_total", false, true, "Bytes of replies (RPC-over-RDMA)" },
	{ "pullup_copies", "transport_rdma_pullup_copies_total", false, true, "Bytes copied to pull a call up inline" },
	{ "fixup_copies", "transport_rdma_fixup_copies_total", false, true, "Bytes copied to fix a reply up" },
	{ "hardway_registers", "transport_rdma_hardway_registers_total", false, true, "Memory registrations the hard way" },
	{ "failed_marshals", "transport_rdma_failed_marshals_total", false, true, "Calls that failed to marshal" },
	{ "bad_replies", "transport_rdma_bad_replies_total", false, true, "Replies that failed to parse" },
	{ "nomsg_calls", "transport_rdma_nomsg_calls_total", false, true, "Calls sent as RDMA_NOMSG" },
	{ "mrs_recovered", "transport_rdma_mrs_recovered_total", false, true, "Memory regions recovered" },
	{ "mrs_orphaned", "transport_rdma_mrs_orphaned_total", false, true, "Memory regions orphaned" },
	{ "mrs_allocated", "transport_rdma_mrs_allocated_total", false, true, "Memory regions allocated" },
	{ "local_invalidates_needed", "transport_rdma_local_invalidates_total", false, true,
	  "Replies that needed a LocalInv (no Remote Invalidation)" },
	{ "empty_sendctx_queue", "transport_rdma_empty_sendctx_queue_total", false, true,
	  "Sends that found no send context free (Send Queue full)" },
	{ "reply_waits_for_send", "transport_rdma_reply_waits_for_send_total", false, true,
	  "Replies that waited for their call's Send to complete" },
};

static int field_index(int layout, const char *name)
{
	const char *const *f = ks_xprt_fields(layout);

	for (int i = 0; f && f[i]; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

static void write_mounts(FILE *f, const struct ks_mountstats *ms)
{
	char name[128];
	bool any, ops = false;

	/* families only with samples: a protobuf scrape converts each */
	for (unsigned i = 0; i < ms->nmount; i++)
		ops |= ms->m[i].nop > 0;
	if (!ms->nmount)
		return;
	family(f, "nfsrdma_mountstats_nfs_age_seconds_total", "counter", "Seconds the NFS mount has existed");
	for (unsigned i = 0; i < ms->nmount; i++)
		if (ms->m[i].has_age) {
			fputs("nfsrdma_mountstats_nfs_age_seconds_total", f);
			mount_labels(f, &ms->m[i], NULL);
			fprintf(f, " %" PRIu64 "\n", ms->m[i].age);
		}
	/* the bytes: and events: lines, a family a field */
	for (unsigned k = 0; k < KS_BYTES + KS_EVENTS; k++) {
		bool ev = k >= KS_BYTES;
		snprintf(name, sizeof(name), "nfsrdma_mountstats_nfs_%s%s_total", ev ? "event_" : "",
			 ev ? event_names[k - KS_BYTES] : bytes_names[k]);
		family(f, name, "counter", ev ? "The mount's events: line (fs/nfs iostat.h)"
					      : "The mount's bytes: line (fs/nfs iostat.h)");
		for (unsigned i = 0; i < ms->nmount; i++)
			if (ev ? ms->m[i].has_events : ms->m[i].has_bytes) {
				fputs(name, f);
				mount_labels(f, &ms->m[i], NULL);
				fprintf(f, " %" PRIu64 "\n", ev ? ms->m[i].events[k - KS_BYTES] : ms->m[i].bytes[k]);
			}
	}
	for (size_t x = 0; x < sizeof(xprt_metrics) / sizeof(xprt_metrics[0]); x++) {
		any = false;
		for (unsigned i = 0; i < ms->nmount; i++) {
			const struct ks_mount *m = &ms->m[i];
			int fi = m->nxprt ? field_index(m->xprt_layout, xprt_metrics[x].field) : -1;
			if (fi < 0)
				continue;
			snprintf(name, sizeof(name), "nfsrdma_mountstats_nfs_%s", xprt_metrics[x].metric);
			if (!any)
				family(f, name, xprt_metrics[x].gauge ? "gauge" : "counter", xprt_metrics[x].help);
			any = true;
			fputs(name, f);
			mount_labels(f, m, NULL);
			fprintf(f, " %" PRIu64 "\n", m->xprt[fi]);
		}
	}
	static const struct { const char *metric, *help; double scale; } op_metrics[KS_OP_FIELDS] = {
		{ "operations_requests_total", "RPCs of the operation sent", 1 },
		{ "operations_transmissions_total", "Transmissions of the operation (retransmissions included)", 1 },
		{ "operations_major_timeouts_total", "Major timeouts of the operation", 1 },
		{ "operations_sent_bytes_total", "Bytes sent for the operation, RPC headers included", 1 },
		{ "operations_received_bytes_total", "Bytes received for the operation, RPC headers included", 1 },
		{ "operations_queue_time_seconds_total", "Time the operation's RPCs waited to be sent", 1e-3 },
		{ "operations_response_time_seconds_total", "Time from send to reply (the kernel's RTT)", 1e-3 },
		{ "operations_request_time_seconds_total", "Time from the RPC's start to its end (execute)", 1e-3 },
		{ "operations_errors_total", "RPCs of the operation that ended in an error (statvers 1.1)", 1 },
	};
	for (unsigned k = 0; ops && k < KS_OP_FIELDS; k++) {
		snprintf(name, sizeof(name), "nfsrdma_mountstats_nfs_%s", op_metrics[k].metric);
		family(f, name, "counter", op_metrics[k].help);
		for (unsigned i = 0; i < ms->nmount; i++)
			for (unsigned o = 0; o < ms->m[i].nop; o++) {
				const struct ks_op *op = &ms->m[i].op[o];
				if (k >= op->n)
					continue;
				fputs(name, f);
				mount_labels(f, &ms->m[i], op->name);
				if (op_metrics[k].scale == 1)
					fprintf(f, " %" PRIu64 "\n", op->v[k]);
				else
					fprintf(f, " %.3f\n", (double)op->v[k] * op_metrics[k].scale);
			}
	}
}

/* ---- server ---- */

static void one(FILE *f, const char *name, const char *type, const char *help, const char *labels, uint64_t v)
{
	family(f, name, type, help);
	fprintf(f, "%s%s %" PRIu64 "\n", name, labels, v);
}

/* the name of procedure (op) i, or its number when not one we name */
static void proc_label(FILE *f, const char *nm, unsigned i)
{
	if (nm && nm[0] && nm[0] != '?' && strncmp(nm, "OP_", 3))
		metrics_label_value(f, nm);
	else
		fprintf(f, "%u", i);
}

static void write_nfsd(FILE *f, const struct ks_nfsd *n)
{
	if (n->has_rc) {
		one(f, "nfsrdma_nfsd_reply_cache_hits_total", "counter", "Duplicate reply cache hits", "", n->rc[0]);
		one(f, "nfsrdma_nfsd_reply_cache_misses_total", "counter", "Duplicate reply cache misses", "", n->rc[1]);
		one(f, "nfsrdma_nfsd_reply_cache_nocache_total", "counter", "Requests the reply cache does not hold", "",
		    n->rc[2]);
	}
	if (n->has_fh)
		one(f, "nfsrdma_nfsd_file_handles_stale_total", "counter", "Stale file handles", "", n->fh_stale);
	if (n->has_io) {
		one(f, "nfsrdma_nfsd_disk_bytes_read_total", "counter", "Bytes read from disk", "", n->io[0]);
		one(f, "nfsrdma_nfsd_disk_bytes_written_total", "counter", "Bytes written to disk", "", n->io[1]);
	}
	if (n->has_th)
		one(f, "nfsrdma_nfsd_server_threads", "gauge", "nfsd threads", "", n->threads);
	if (n->has_net) {
		family(f, "nfsrdma_nfsd_packets_total", "counter", "Packets (RPC messages) by protocol");
		fprintf(f, "nfsrdma_nfsd_packets_total{proto=\"udp\"} %" PRIu64 "\n", n->net[1]);
		fprintf(f, "nfsrdma_nfsd_packets_total{proto=\"tcp\"} %" PRIu64 "\n", n->net[2]);
		one(f, "nfsrdma_nfsd_connections_total", "counter", "Stream connections accepted", "", n->net[3]);
	}
	if (n->has_rpc) {
		one(f, "nfsrdma_nfsd_server_rpcs_total", "counter", "RPC calls received", "", n->rpc[0]);
		family(f, "nfsrdma_nfsd_rpc_errors_total", "counter", "RPC calls refused, by reason");
		fprintf(f, "nfsrdma_nfsd_rpc_errors_total{error=\"fmt\"} %" PRIu64 "\n", n->rpc[2]);
		fprintf(f, "nfsrdma_nfsd_rpc_errors_total{error=\"auth\"} %" PRIu64 "\n", n->rpc[3]);
		fprintf(f, "nfsrdma_nfsd_rpc_errors_total{error=\"cInt\"} %" PRIu64 "\n", n->rpc[4]);
	}
	if (n->has_proc3 || n->has_proc4ops)
		family(f, "nfsrdma_nfsd_requests_total", "counter",
		       "NFS procedures (v3) and COMPOUND operations (v4) served");
	for (unsigned i = 0; n->has_proc3 && i < n->nproc3; i++) {
		fputs("nfsrdma_nfsd_requests_total{proto=\"3\",method=\"", f);
		proc_label(f, nfs3_proc_name(i), i);
		fprintf(f, "\"} %" PRIu64 "\n", n->proc3[i]);
	}
	for (unsigned i = 0; n->has_proc4ops && i < n->nproc4ops; i++) {
		if (i < 3)
			continue;    /* ops 0-2 do not exist */
		fputs("nfsrdma_nfsd_requests_total{proto=\"4\",method=\"", f);
		proc_label(f, nfs4_op_name(i), i);
		fprintf(f, "\"} %" PRIu64 "\n", n->proc4ops[i]);
	}
}

/* /proc/sys/sunrpc/svc_rdma/: the rdma_stat_* counters and the max_*
 * settings; a file of another name (a newer kernel's) counted */
static void write_svcrdma(FILE *f, const char *root, char *buf, size_t cap, struct ks_skips *sk)
{
	char dir[512], path[1024];
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/sys/sunrpc/svc_rdma", root);
	DIR *d = opendir(dir);
	if (!d)
		return;   /* no svcrdma module: not an RDMA server */
	struct ks_svcrdma s = { 0 };
	while ((de = readdir(d)) && s.n < KS_SVCRDMA_MAX) {
		if (de->d_name[0] == '.')
			continue;
		bool stat = !strncmp(de->d_name, "rdma_stat_", 10), max = !strncmp(de->d_name, "max_", 4);
		if ((!stat && !max) || strlen(de->d_name) >= sizeof(s.e[0].name)) {
			sk->n[KS_F_SVC_RDMA][KS_WHY_UNKNOWN]++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ssize_t n = ks_read_file(path, buf, cap < 64 ? cap : 64, KS_F_SVC_RDMA, sk);
		uint64_t v = 0;
		const char *p = buf;
		unsigned k = 0;
		while (n > 0 && *p >= '0' && *p <= '9' && k++ < 20)
			v = v * 10 + (uint64_t)(*p++ - '0');
		if (n <= 0 || !k || (*p != '\n' && *p)) {
			sk->n[KS_F_SVC_RDMA][n < 0 ? KS_WHY_READ : KS_WHY_NUMBER]++;
			continue;
		}
		strcpy(s.e[s.n].name, de->d_name);
		s.e[s.n++].v = v;
	}
	closedir(d);
	for (unsigned i = 0; i < s.n; i++) {
		char name[96];
		bool stat = !strncmp(s.e[i].name, "rdma_stat_", 10);
		if (stat)
			snprintf(name, sizeof(name), "nfsrdma_svcrdma_%s_total", s.e[i].name + 10);
		else
			snprintf(name, sizeof(name), "nfsrdma_svcrdma_%s", s.e[i].name);
		one(f, name, stat ? "counter" : "gauge",
		    stat ? "svcrdma's counter of the same name (/proc/sys/sunrpc/svc_rdma/)"
			 : "svcrdma's setting of the same name (/proc/sys/sunrpc/svc_rdma/)", "", s.e[i].v);
	}
}

void ks_write_metrics(FILE *f, const char *root, struct ks_skips *sk)
{
	static const char *const file_names[KS_F_N] = { "mountstats", "nfsd", "svc_rdma" };
	char path[512];
	char *buf = malloc(KS_FILE_MAX);
	struct ks_mountstats *ms = malloc(sizeof(*ms));
	ssize_t n;

	if (buf && ms) {
		snprintf(path, sizeof(path), "%s/self/mountstats", root);
		if ((n = ks_read_file(path, buf, KS_FILE_MAX, KS_F_MOUNTSTATS, sk)) >= 0) {
			ks_mountstats_parse(buf, (size_t)n, ms, sk);
			write_mounts(f, ms);
		}
		snprintf(path, sizeof(path), "%s/net/rpc/nfsd", root);
		if ((n = ks_read_file(path, buf, KS_FILE_MAX, KS_F_NFSD, sk)) >= 0) {
			struct ks_nfsd nd;
			ks_nfsd_parse(buf, (size_t)n, &nd, sk);
			write_nfsd(f, &nd);
		}
		write_svcrdma(f, root, buf, KS_FILE_MAX, sk);
	}
	free(ms);
	free(buf);
	/* one log line per file and reason, the first time: the counter says how many since */
	for (unsigned i = 0; i < KS_F_N; i++)
		for (unsigned w = 0; w < KS_WHY_N; w++)
			if (sk->n[i][w] && !(sk->logged[i] & (1u << w))) {
				sk->logged[i] |= 1u << w;
				log_warn("kernel counters: %s under %s: %s (counted in nfsrdma_kstat_skipped_total)",
					 file_names[i], root, ks_why_name(w));
			}
	family(f, "nfsrdma_kstat_skipped_total", "counter",
	       "Lines or files of the kernel's counters not taken (a format not known, cut, vanished), by file and why");
	for (unsigned i = 0; i < KS_F_N; i++)
		for (unsigned w = 0; w < KS_WHY_N; w++)
			fprintf(f, "nfsrdma_kstat_skipped_total{file=\"%s\",why=\"%s\"} %" PRIu64 "\n", file_names[i],
				ks_why_name(w), sk->n[i][w]);
}
