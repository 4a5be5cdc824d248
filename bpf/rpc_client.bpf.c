// SPDX-License-Identifier: GPL-2.0
/* rpc_client: the NFS client's view of every RPC.  Events of one RPC are
 * joined on (client_id, task_id) in a slot array: the task starts
 * (rpc_task_begin), registers chunks (xprtrdma_chunk_*), is marshalled
 * (xprtrdma_marshal, which gives the XID) and posted (xprtrdma_post_send);
 * the reply is matched (xprtrdma_reply) and the task's RPC completes
 * (rpc_stats_latency, with the kernel's own backlog/RTT/execute).  At that
 * last event one probe_event goes to the ring buffer.
 *
 * Any event may be missing on a given kernel: the loader disables its
 * program and every handler copes with state it did not see. */
#include "probe_bpf.h"

/* In-flight tasks by slot: task ids are one counter for every rpc_clnt,
 * so task_id modulo the slots names a task until 8192 more have started.
 * An array, not a hash: an array look-up is a few instructions, where a
 * hash insert and delete per RPC (LRU lists, bucket locks) were most of
 * what the client's probes cost.  A slot is free when side is 0; a task
 * found in its slot by another (client, task) was evicted, as an LRU
 * hash would have. */
#define CTASK_SLOTS 8192
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CTASK_SLOTS);
	__type(key, __u32);
	__type(value, struct probe_event);
} ctasks SEC(".maps");

/* Client address filter: rpc_clnt_new names each rpc_clnt's peer; the
 * verdict (1 = the filter's address) is kept by client id.  Clients
 * created before attach have no verdict and are filtered out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} cpeer SEC(".maps");

SEC("tracepoint/sunrpc/rpc_clnt_new")
int tp_rpc_clnt_new(void *raw)
{
	PROBE_TP_LOAD(raw);
	char a[PROBE_ADDR_STR];
	__u32 id = (__u32)fld(ctx, PFLD_CN_CLIENT);
	__u8 m = 1;

	stat_add(PST_EVENTS, 1);
	if (!filter_peer[0])
		return 0;
	fld_str(ctx, PFLD_CN_ADDR, a);
	for (int i = 0; i < PROBE_ADDR_STR; i++) {
		if (a[i] != filter_peer[i]) {
			m = 0;
			break;
		}
		if (!a[i])
			break;
	}
	if (bpf_map_update_elem(&cpeer, &id, &m, BPF_ANY))
		stat_add(PST_MAP_FULL, 1);
	return 0;
}

static __always_inline bool peer_match(__u32 client_id)
{
	__u8 *m;

	if (!filter_peer[0])
		return true;
	m = bpf_map_lookup_elem(&cpeer, &client_id);
	return m && *m;
}

/* The in-flight state of the task an event names; created when create is
 * set (a task seen first mid-way, e.g. started before attach), started
 * afresh when reset is. */
static __always_inline struct probe_event *task_state(void *ctx, int f_client, int f_task,
						      bool create, bool reset)
{
	__u32 client = (__u32)fld(ctx, f_client), task = (__u32)fld(ctx, f_task);
	__u32 slot = task & (CTASK_SLOTS - 1);
	struct probe_event *e = bpf_map_lookup_elem(&ctasks, &slot);
	bool mine;

	if (!e)
		return NULL;
	mine = e->side && e->client_id == client && e->task_id == task;
	if (mine && !reset)
		return e;
	if (!mine && !create) {
		stat_add(PST_NO_STATE, 1);
		return NULL;
	}
	__builtin_memcpy(e, &probe_zero_event, sizeof(*e));
	e->side = PROBE_SIDE_CLIENT;
	e->client_id = client;
	e->task_id = task;
	return e;
}

SEC("tracepoint/sunrpc/rpc_task_begin")
int tp_rpc_task_begin(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = task_state(ctx, PFLD_TB_CLIENT, PFLD_TB_TASK, true, true);
	if (e) {
		e->t[PT_BEGIN] = bpf_ktime_get_ns();
		e->seen |= PS_BEGIN;
	}
	return 0;
}

/* Chunk events come before the marshal of each transmission; a
 * retransmission registers them again, so restart the counts then. */
static __always_inline struct probe_event *chunk_state(void *ctx, int f_client, int f_task)
{
	struct probe_event *e = task_state(ctx, f_client, f_task, true, false);

	if (!e)
		return NULL;
	if (!(e->seen & PS_CHUNK_NEW)) {
		e->read_chunk_bytes = e->write_chunk_bytes = e->reply_chunk_bytes = 0;
		e->n_read_segs = e->n_write_segs = e->n_reply_segs = 0;
		e->seen &= ~PS_READ_POS0;
		e->seen |= PS_CHUNK_NEW;
	}
	e->seen |= PS_CHUNK;
	return e;
}

SEC("tracepoint/rpcrdma/xprtrdma_chunk_read")
int tp_chunk_read(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = chunk_state(ctx, PFLD_CR_CLIENT, PFLD_CR_TASK);
	if (!e)
		return 0;
	e->read_chunk_bytes += (__u32)fld(ctx, PFLD_CR_LENGTH);
	e->n_read_segs++;
	if (fld(ctx, PFLD_CR_POS) == 0)
		e->seen |= PS_READ_POS0;
	return 0;
}

static __always_inline int chunk_wr(void *ctx, int kind)
{
	struct probe_event *e;
	__u32 len;

	stat_add(PST_EVENTS, 1);
	e = chunk_state(ctx, PFLD_CW_CLIENT, PFLD_CW_TASK);
	if (!e)
		return 0;
	len = (__u32)fld(ctx, PFLD_CW_LENGTH);
	if (kind) {
		e->reply_chunk_bytes += len;
		e->n_reply_segs++;
	} else {
		e->write_chunk_bytes += len;
		e->n_write_segs++;
	}
	return 0;
}

SEC("tracepoint/rpcrdma/xprtrdma_chunk_write")
int tp_chunk_write(void *raw)
{
	PROBE_TP_LOAD(raw);

	return chunk_wr(ctx, 0);
}

SEC("tracepoint/rpcrdma/xprtrdma_chunk_wp")
int tp_chunk_wp(void *raw)
{
	PROBE_TP_LOAD(raw);

	return chunk_wr(ctx, 0);
}

SEC("tracepoint/rpcrdma/xprtrdma_chunk_reply")
int tp_chunk_reply(void *raw)
{
	PROBE_TP_LOAD(raw);

	return chunk_wr(ctx, 1);
}

SEC("tracepoint/rpcrdma/xprtrdma_marshal")
int tp_marshal(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;
	__u64 now;

	stat_add(PST_EVENTS, 1);
	e = task_state(ctx, PFLD_MA_CLIENT, PFLD_MA_TASK, true, false);
	if (!e)
		return 0;
	now = bpf_ktime_get_ns();
	if (!e->t[PT_MARSHAL])
		e->t[PT_MARSHAL] = now;
	e->t[PT_MARSHAL_LAST] = now;
	if (e->n_transmits++)
		e->seen |= PS_RETRANSMIT;
	e->seen = (e->seen | PS_MARSHAL) & ~PS_CHUNK_NEW;
	e->xid = (__u32)fld(ctx, PFLD_MA_XID);
	e->hdrlen = (__u32)fld(ctx, PFLD_MA_HDRLEN);
	e->headlen = (__u32)fld(ctx, PFLD_MA_HEADLEN);
	e->pagelen = (__u32)fld(ctx, PFLD_MA_PAGELEN);
	e->taillen = (__u32)fld(ctx, PFLD_MA_TAILLEN);
	e->rtype = (__u32)fld(ctx, PFLD_MA_RTYPE);
	e->wtype = (__u32)fld(ctx, PFLD_MA_WTYPE);
	e->rdma_vers = 1;  /* the Linux client speaks RPC-over-RDMA version 1 only */
	return 0;
}

SEC("tracepoint/rpcrdma/xprtrdma_post_send")
int tp_post_send(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;
	__u64 now;

	stat_add(PST_EVENTS, 1);
	/* Sends without a task (credit-only, backchannel replies) carry
	 * task_id 0: nothing to join. */
	if (!fld(ctx, PFLD_PS_TASK))
		return 0;
	e = task_state(ctx, PFLD_PS_CLIENT, PFLD_PS_TASK, false, false);
	if (!e)
		return 0;
	now = bpf_ktime_get_ns();
	if (!e->t[PT_SEND])
		e->t[PT_SEND] = now;
	e->t[PT_SEND_LAST] = now;
	e->seen |= PS_POST_SEND;
	return 0;
}

SEC("tracepoint/rpcrdma/xprtrdma_reply")
int tp_reply(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;

	stat_add(PST_EVENTS, 1);
	e = task_state(ctx, PFLD_RP_CLIENT, PFLD_RP_TASK, false, false);
	if (!e)
		return 0;
	e->t[PT_REPLY] = bpf_ktime_get_ns();
	e->credits = (__u32)fld(ctx, PFLD_RP_CREDITS);
	if ((e->seen & PS_MARSHAL) && e->xid != (__u32)fld(ctx, PFLD_RP_XID))
		e->seen |= PS_XID_MISMATCH;
	e->seen |= PS_REPLY;
	return 0;
}

SEC("tracepoint/sunrpc/rpc_stats_latency")
int tp_rpc_stats_latency(void *raw)
{
	PROBE_TP_LOAD(raw);
	struct probe_event *e;
	__u64 total;

	stat_add(PST_EVENTS, 1);
	e = task_state(ctx, PFLD_SL_CLIENT, PFLD_SL_TASK, true, false);
	if (!e)
		return 0;
	e->t[PT_DONE] = bpf_ktime_get_ns();
	e->seen |= PS_STATS;
	e->xid = (__u32)fld(ctx, PFLD_SL_XID);
	e->vers = (__u32)fld(ctx, PFLD_SL_VERSION);
	fld_str(ctx, PFLD_SL_PROGNAME, e->prog);
	fld_str(ctx, PFLD_SL_PROCNAME, e->procname);
	/* The kernel reports these in microseconds. */
	e->k_backlog_us = fld(ctx, PFLD_SL_BACKLOG);
	e->k_rtt_us = fld(ctx, PFLD_SL_RTT);
	e->k_exec_us = fld(ctx, PFLD_SL_EXECUTE);
	/* 6.12 on: which transport carried it (rpc_clnt_new names only the
	 * client's first one; nconnect and trunking add more) */
	e->xprt_id = (__u32)fld(ctx, PFLD_SL_XPRT_ID);
	total = dur(e->t[PT_BEGIN], e->t[PT_DONE]);
	if (!total)
		total = e->k_exec_us * 1000;
	if (peer_match(e->client_id))
		emit(e, total, PFLD_SL_EXECUTE);
	else
		stat_add(PST_FILTERED, 1);
	e->side = 0;  /* the slot is free */
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
