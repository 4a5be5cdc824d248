// SPDX-License-Identifier: GPL-2.0
/* rpc_server: knfsd's view of every RPC that arrives over RDMA.  An nfsd
 * thread handles one request at a time from svc_rdma_recvfrom to
 * svc_rdma_sendto (6.12: apart from the wait for its RDMA READs, see
 * svcrdma_read_finished), so the request's state is keyed by the thread id:
 *
 *   svcrdma_wc_recv           (completion) the request arrived: time kept by
 *                             the receive's (cq, cid) until a thread decodes it
 *   svcrdma_decode_rqst       (thread)  XID, transport header; received at the
 *                             completion's time (a request that waited for a
 *                             thread waited in the server's queue, not on the
 *                             network)
 *   svcrdma_post_read_chunk   (thread)  READ context (cq, cid) -> thread
 *   svcrdma_wc_read           (completion, any context) bytes + latency, joined by (cq, cid)
 *   svcrdma_read_finished     (6.12 on: any thread) the request resumes on this
 *                             thread once its READs are done: 6.12 does not
 *                             wait for them on the thread that posted them, so
 *                             from the first READ post the state is parked by
 *                             the receive's (cq, cid) until then
 *   svc_process               (thread)  program / version / procedure
 *   svc_stats_latency         (thread)  the kernel's execute time, caller address
 *   svcrdma_post_write_chunk / _reply_chunk (thread) result push starts;
 *                             WRITE context (cq, cid) -> (xid, thread)
 *   svcrdma_wc_write          (completion) the push's RDMA WRITEs are done:
 *                             time kept by (xid, thread) until the record goes out
 *   svcrdma_wc_reply          (completion, 6.12 on) the same for a Reply chunk,
 *                             which 6.12 completes apart from Write chunks
 *   svcrdma_post_send         (thread)  reply posted; state moves to (cq, cid)
 *   svcrdma_wc_send           (completion) reply Send done -> one probe_event
 *   svcrdma_wc_send_flush / _err (completion, 6.1 on) the Send failed: the
 *                             probe_event goes out without its completion
 *
 * Without svcrdma_wc_send the event goes out at post_send, without
 * post_send at svc_stats_latency (and that is also the path for requests
 * that did not come over RDMA). */
#include "probe_bpf.h"
#include "probe_addr.h"

/* Which optional events the loader could attach. */
const volatile bool have_post_send = false;
const volatile bool have_wc_send = false;
const volatile bool have_wc_write = false;
const volatile bool have_wc_reply = false;
const volatile bool have_read_finished = false;
const volatile bool have_wc_recv = false;

struct cidkey {
	__u32 cq_id;
	__u32 cid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);  /* nfsd thread id */
	__type(value, struct probe_event);
} sreqs SEC(".maps");

/* A posted READ: the thread that posted it, and (6.12) the receive whose
 * request is parked while it runs. */
struct readref {
	__u32 tid;
	struct cidkey recv;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct cidkey);
	__type(value, struct readref);
} sreads SEC(".maps");

/* 6.12: the receive (cq, cid) of each thread's current request... */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct cidkey);
} srecv SEC(".maps");

/* Receive completions not yet decoded: their time, by (cq, cid). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct cidkey);
	__type(value, __u64);
} srecvd SEC(".maps");

/* ...and the requests waiting for their READs, by that receive */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct cidkey);
	__type(value, struct probe_event);
} sparked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct cidkey);
	__type(value, struct probe_event);
} ssends SEC(".maps");

/* A request's result push, by the (xid, thread) that posted it: the WRITE
 * completion may come before svc_stats_latency (a Write chunk is pushed
 * while the result is encoded) or after the reply Send is posted (when the
 * state has moved to ssends), so its time waits here for the emit. */
struct wkey {
	__u32 xid;
	__u32 tid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct cidkey);
	__type(value, struct wkey);
} swrites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct wkey);
	__type(value, __u64);
} swdone SEC(".maps");

/* Before a record goes out: the last RDMA WRITE completion of its push. */
static __always_inline void join_write_done(struct probe_event *e)
{
	struct wkey w = { .xid = e->xid, .tid = e->task_id };
	__u64 *t;

	if (!(e->seen & PS_WRITE))
		return;
	t = bpf_map_lookup_elem(&swdone, &w);
	if (!t)
		return;
	e->t[PT_WRITE_DONE] = *t;
	e->seen |= PS_WRITE_DONE;
	bpf_map_delete_elem(&swdone, &w);
}

static __always_inline __u32 thread_id(void) { return (__u32)bpf_get_current_pid_tgid(); }

static __always_inline struct probe_event *req_new(__u32 tid)
{
	struct probe_event *e;

	if (bpf_map_update_elem(&sreqs, &tid, &probe_zero_event, BPF_ANY)) {
		stat_add(PST_MAP_FULL, 1);
		return NULL;
	}
	e = bpf_map_lookup_elem(&sreqs, &tid);
	if (e) {
		e->side = PROBE_SIDE_SERVER;
		e->task_id = tid;
	}
	return e;
}

static __always_inline __u64 server_total(const struct probe_event *e)
{
	__u64 start = e->t[PT_DECODE] ? e->t[PT_DECODE] : e->t[PT_PROCESS];
	__u64 end = e->t[PT_SEND_POST] ? e->t[PT_SEND_POST] : e->t[PT_STATS];
	__u64 d = dur(start, end);

	return d ? d : e->k_exec_us * 1000;
}

/* The record goes out, with the last RDMA WRITE completion of its push. */
static __always_inline void send_record(struct probe_event *e)
{
	join_write_done(e);
	emit(e, server_total(e), PFLD_SS2_EXECUTE);
}

/* An event about the request this thread is working on: its state, or
 * NULL (counted) when the thread has none. */
static __always_inline struct probe_event *thread_req(__u32 tid)
{
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&sreqs, &tid);
	if (!e)
		stat_add(PST_NO_STATE, 1);
	return e;
}

/* An event naming xid on this thread: the thread's state for it, new when
 * the thread holds none or another XID's (a request from another
 * transport, or one that began before attach). */
static __always_inline struct probe_event *thread_req_xid(__u32 tid, __u32 xid)
{
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&sreqs, &tid);
	if (!e || e->xid != xid) {
		e = req_new(tid);
		if (e)
			e->xid = xid;
	}
	return e;
}

SEC("tracepoint/rpcrdma/svcrdma_wc_recv")
int tp_wc_recv(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_RC_CQ), .cid = (__u32)fld(ctx, PFLD_RC_CID) };
	__u64 now = bpf_ktime_get_ns();

	stat_add(PST_EVENTS, 1);
	if (bpf_map_update_elem(&srecvd, &k, &now, BPF_ANY))
		stat_add(PST_MAP_FULL, 1);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_decode_rqst")
int tp_decode_rqst(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = req_new(thread_id());
	if (!e)
		return 0;
	e->t[PT_DECODE] = bpf_ktime_get_ns();
	if (have_wc_recv) {
		/* the request came in when its Receive completed; the thread
		 * that decodes it may have been busy long after */
		struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_DR_CQ), .cid = (__u32)fld(ctx, PFLD_DR_CID) };
		__u64 *t = bpf_map_lookup_elem(&srecvd, &k);

		if (t) {
			if (*t <= e->t[PT_DECODE])
				e->t[PT_DECODE] = *t;
			bpf_map_delete_elem(&srecvd, &k);
		}
	}
	e->seen |= PS_DECODE;
	e->xid = (__u32)fld(ctx, PFLD_DR_XID);
	e->rdma_vers = (__u16)fld(ctx, PFLD_DR_VERS);
	e->rdma_proc = (__u32)fld(ctx, PFLD_DR_PROC);
	e->credits = (__u32)fld(ctx, PFLD_DR_CREDITS);
	e->hdrlen = (__u32)fld(ctx, PFLD_DR_HDRLEN);
	if (have_read_finished) {
		__u32 tid = thread_id();
		struct cidkey r = { .cq_id = (__u32)fld(ctx, PFLD_DR_CQ), .cid = (__u32)fld(ctx, PFLD_DR_CID) };

		if (bpf_map_update_elem(&srecv, &tid, &r, BPF_ANY))
			stat_add(PST_MAP_FULL, 1);
	}
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_post_read_chunk")
int tp_post_read_chunk(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_PC_CQ), .cid = (__u32)fld(ctx, PFLD_PC_CID) };
	struct readref ref = { .tid = thread_id() };
	struct probe_event *e = thread_req(ref.tid);
	struct cidkey *r;
	bool first;

	if (!e)
		return 0;
	first = !e->t[PT_READ_POST];
	if (first)
		e->t[PT_READ_POST] = bpf_ktime_get_ns();
	if (have_read_finished) {
		/* the thread goes on to other requests: park this one (once,
		 * so a later post does not undo a READ already completed) */
		r = bpf_map_lookup_elem(&srecv, &ref.tid);
		if (!r) {
			stat_add(PST_NO_STATE, 1);
			return 0;
		}
		ref.recv = *r;
		if (first && bpf_map_update_elem(&sparked, &ref.recv, e, BPF_ANY))
			stat_add(PST_MAP_FULL, 1);
		/* this thread's copy stays for its later READ posts, but the
		 * request is sparked's now: the in-flight read skips the copy */
		e->seen |= PS_PARKED;
	}
	if (bpf_map_update_elem(&sreads, &k, &ref, BPF_ANY))
		stat_add(PST_MAP_FULL, 1);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_read_finished")
int tp_read_finished(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey r = { .cq_id = (__u32)fld(ctx, PFLD_RF_CQ), .cid = (__u32)fld(ctx, PFLD_RF_CID) };
	__u32 tid = thread_id();
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&sparked, &r);
	if (!e) {
		stat_add(PST_NO_STATE, 1);
		return 0;
	}
	/* the request is this thread's now */
	e->task_id = tid;
	if (bpf_map_update_elem(&sreqs, &tid, e, BPF_ANY))
		stat_add(PST_MAP_FULL, 1);
	bpf_map_delete_elem(&sparked, &r);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_wc_read")
int tp_wc_read(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_WR_CQ), .cid = (__u32)fld(ctx, PFLD_WR_CID) };
	struct readref *ref;
	struct probe_event *e;
	__u64 now, lat, first;

	stat_add(PST_EVENTS, 1);
	ref = bpf_map_lookup_elem(&sreads, &k);
	if (!ref) {
		stat_add(PST_NO_STATE, 1);
		return 0;
	}
	e = have_read_finished ? bpf_map_lookup_elem(&sparked, &ref->recv) : bpf_map_lookup_elem(&sreqs, &ref->tid);
	bpf_map_delete_elem(&sreads, &k);
	if (!e) {
		stat_add(PST_NO_STATE, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	/* read_latency is signed microseconds; ignore nonsense. */
	lat = fld(ctx, PFLD_WR_LATENCY);
	if ((__s64)lat < 0 || lat > 3600ULL * 1000000)
		lat = 0;
	lat *= 1000;
	first = now - lat;
	/* before 6.1 the completion carries no latency: the READ starts at
	 * its post, as far as the probe can tell */
	if (probe_fld[PFLD_WR_LATENCY].off == PROBE_FLD_NONE && e->t[PT_READ_POST])
		first = e->t[PT_READ_POST];
	e->n_reads++;
	e->read_bytes += (__u32)fld(ctx, PFLD_WR_BYTES);
	e->read_lat_ns += lat;
	if (!e->t[PT_READ_FIRST] || first < e->t[PT_READ_FIRST])
		e->t[PT_READ_FIRST] = first;
	e->t[PT_READ_DONE] = now;
	e->seen |= PS_READ;
	return 0;
}

SEC("tracepoint/sunrpc/svc_process")
int tp_svc_process(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e = thread_req_xid(thread_id(), (__u32)fld(ctx, PFLD_SP_XID));

	if (!e)
		return 0;
	e->t[PT_PROCESS] = bpf_ktime_get_ns();
	e->seen |= PS_PROCESS;
	e->vers = (__u32)fld(ctx, PFLD_SP_VERS);
	e->proc = (__u32)fld(ctx, PFLD_SP_PROC);
	fld_str(ctx, PFLD_SP_SERVICE, e->prog);
	fld_str(ctx, PFLD_SP_PROCEDURE, e->procname);
	return 0;
}

/* struct sockaddr_in / sockaddr_in6 prefix, as the tracepoint copies it. */
struct sa_prefix {
	__u16 family;
	__u16 port;  /* network order */
	__u8  a[20]; /* in: addr at 0; in6: flowinfo(4) then addr at 4 */
};

/* Before 6.1 the caller is text (bpf/probe_addr.h): IPv4 is parsed, IPv6
 * text leaves the caller unknown. */
static __always_inline void caller_text(void *ctx, struct probe_event *e)
{
	__u32 loc = (__u32)fld(ctx, PFLD_SS2_ADDR);
	char s[PROBE_ADDR_TEXT] = {};
	__u8 a[4] = {};
	__u16 port = 0;

	if (!(loc & 0xffff))
		return;
	bpf_probe_read_kernel_str(s, sizeof(s), (char *)tp_raw(ctx) + (loc & 0xffff));
	if (!probe_addr_text4(s, a, &port))
		return;
	e->addr_family = 2;
	e->caller_port = port;
	__builtin_memcpy(e->caller_addr, a, 4);
}

SEC("tracepoint/sunrpc/svc_stats_latency")
int tp_svc_stats_latency(void *raw)
{
	PROBE_TP_LOAD(raw);
	__u32 tid = thread_id();
	struct probe_event *e = thread_req_xid(tid, (__u32)fld(ctx, PFLD_SS2_XID));
	struct sa_prefix sa = {};
	__u32 loc;

	if (!e)
		return 0;
	e->t[PT_STATS] = bpf_ktime_get_ns();
	e->seen |= PS_STATS;
	e->k_exec_us = fld(ctx, PFLD_SS2_EXECUTE);
	if (!e->procname[0])
		fld_str(ctx, PFLD_SS2_PROCEDURE, e->procname);
	loc = (__u32)fld(ctx, PFLD_SS2_CLIENT);
	if (probe_fld[PFLD_SS2_CLIENT].off == PROBE_FLD_NONE)
		caller_text(ctx, e);
	else if ((loc & 0xffff) && (loc >> 16) >= 8) {
		bpf_probe_read_kernel(&sa, sizeof(sa), (char *)tp_raw(ctx) + (loc & 0xffff));
		e->caller_port = (__u16)((sa.port >> 8) | (sa.port << 8));
		if (sa.family == 2) {
			e->addr_family = 2;
			__builtin_memcpy(e->caller_addr, sa.a, 4);
		} else if (sa.family == 10 && (loc >> 16) >= 24) {
			e->addr_family = 10;
			__builtin_memcpy(e->caller_addr, sa.a + 4, 16);
		}
	}
	if (!(e->seen & PS_DECODE) || !have_post_send) {
		send_record(e);
		bpf_map_delete_elem(&sreqs, &tid);
	}
	return 0;
}

static __always_inline int post_push(void *ctx)
{
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_PC_CQ), .cid = (__u32)fld(ctx, PFLD_PC_CID) };
	__u32 tid = thread_id();
	struct probe_event *e = thread_req(tid);
	struct wkey w;

	if (!e)
		return 0;
	if (!e->t[PT_WRITE_POST])
		e->t[PT_WRITE_POST] = bpf_ktime_get_ns();
	e->n_writes++;
	e->seen |= PS_WRITE;
	if ((have_wc_write || have_wc_reply) && (k.cq_id || k.cid)) {
		w.xid = e->xid;
		w.tid = tid;
		if (bpf_map_update_elem(&swrites, &k, &w, BPF_ANY))
			stat_add(PST_MAP_FULL, 1);
	}
	return 0;
}

/* A push's RDMA WRITEs completed (its context's cq_id, completion_id). */
static __always_inline int push_done(void *ctx, int f_cq, int f_cid)
{
	struct cidkey k = { .cq_id = (__u32)fld(ctx, f_cq), .cid = (__u32)fld(ctx, f_cid) };
	struct wkey *wp, w;
	__u64 now;

	stat_add(PST_EVENTS, 1);
	wp = bpf_map_lookup_elem(&swrites, &k);
	if (!wp)
		return 0;  /* a push this probe did not see posted (before attach) */
	w = *wp;
	bpf_map_delete_elem(&swrites, &k);
	now = bpf_ktime_get_ns();
	/* a Write chunk and a Reply chunk complete in posting order (one
	 * send queue): the later completion is the push's end */
	if (bpf_map_update_elem(&swdone, &w, &now, BPF_ANY))
		stat_add(PST_MAP_FULL, 1);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_wc_write")
int tp_svc_wc_write(void *raw)
{
	PROBE_TP_LOAD(raw);

	return push_done(ctx, PFLD_WW_CQ, PFLD_WW_CID);
}

SEC("tracepoint/rpcrdma/svcrdma_wc_reply")
int tp_svc_wc_reply(void *raw)
{
	PROBE_TP_LOAD(raw);

	return push_done(ctx, PFLD_WP_CQ, PFLD_WP_CID);
}

SEC("tracepoint/rpcrdma/svcrdma_post_write_chunk")
int tp_post_write_chunk(void *raw)
{
	PROBE_TP_LOAD(raw);

	return post_push(ctx);
}

SEC("tracepoint/rpcrdma/svcrdma_post_reply_chunk")
int tp_post_reply_chunk(void *raw)
{
	PROBE_TP_LOAD(raw);

	return post_push(ctx);
}

SEC("tracepoint/rpcrdma/svcrdma_post_send")
int tp_svc_post_send(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_SS_CQ), .cid = (__u32)fld(ctx, PFLD_SS_CID) };
	__u32 tid = thread_id();
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&sreqs, &tid);
	/* Sends of error replies (before svc_stats_latency) and of backchannel
	 * calls have no completed request on this thread. */
	if (!e || !(e->seen & PS_STATS))
		return 0;
	e->t[PT_SEND_POST] = bpf_ktime_get_ns();
	if (have_wc_send) {
		if (bpf_map_update_elem(&ssends, &k, e, BPF_ANY)) {
			stat_add(PST_MAP_FULL, 1);
			send_record(e);
		}
	} else {
		send_record(e);
	}
	bpf_map_delete_elem(&sreqs, &tid);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_wc_send")
int tp_svc_wc_send(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_WS_CQ), .cid = (__u32)fld(ctx, PFLD_WS_CID) };
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&ssends, &k);
	if (!e)
		return 0;  /* a Send this probe did not track (backchannel, error reply) */
	e->t[PT_SEND_DONE] = bpf_ktime_get_ns();
	e->seen |= PS_SEND_DONE;
	send_record(e);
	bpf_map_delete_elem(&ssends, &k);
	return 0;
}

/* 6.1 on, a Send that did not complete (flushed when the connection is
 * lost, or failed) is reported by these, not svcrdma_wc_send: the reply
 * was posted, so its record goes out as one without a completion time
 * (PS_SEND_DONE unset), and its slot is freed. */
static __always_inline int send_failed(void *ctx)
{
	struct cidkey k = { .cq_id = (__u32)fld(ctx, PFLD_WF_CQ), .cid = (__u32)fld(ctx, PFLD_WF_CID) };
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = bpf_map_lookup_elem(&ssends, &k);
	if (!e)
		return 0;
	send_record(e);
	bpf_map_delete_elem(&ssends, &k);
	return 0;
}

SEC("tracepoint/rpcrdma/svcrdma_wc_send_flush")
int tp_svc_wc_send_flush(void *raw)
{
	PROBE_TP_LOAD(raw);

	return send_failed(ctx);
}

SEC("tracepoint/rpcrdma/svcrdma_wc_send_err")
int tp_svc_wc_send_err(void *raw)
{
	PROBE_TP_LOAD(raw);

	return send_failed(ctx);
}

char LICENSE[] SEC("license") = "GPL";
