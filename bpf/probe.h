/* Shared between the kernel-view BPF programs (rpc_client.bpf.c,
 * rpc_server.bpf.c) and their user-space loader (src/probe_*.c).
 *
 * Tracepoint records are read at offsets that the loader takes from the
 * running kernel's tracefs format files and writes into a `const volatile`
 * table (probe_fld) before load: see docs/probes.md for why this and not
 * CO-RE against module BTF. */
#ifndef NFSRDMA_PROBE_H
#define NFSRDMA_PROBE_H

#include <linux/types.h>

#define PROBE_FLD_NONE 0xffff  /* field absent in this kernel: reads give 0 */
#define PROBE_STR_MAX  24      /* procedure / program names kept */
#define PROBE_PROG_MAX 16
#define PROBE_ADDR_STR 48      /* an rpc_xprt's RPC_DISPLAY_ADDR (INET6_ADDRSTRLEN + scope) */

/* Where a field lives in a tracepoint record; size 1, 2, 4 or 8, or
 * PROBE_FLD_DATALOC for a __data_loc string (u32 offset | len << 16). */
struct probe_fld {
	__u16 off;
	__u16 size;
};
#define PROBE_FLD_DATALOC 0x8000

/* Every field the programs read, as one flat table indexed below (PFLD_,
 * not PF_: <sys/socket.h> owns PF_MAX). */
enum probe_field_id {
	/* sunrpc:rpc_task_begin */
	PFLD_TB_TASK, PFLD_TB_CLIENT,
	/* rpcrdma:xprtrdma_marshal */
	PFLD_MA_TASK, PFLD_MA_CLIENT, PFLD_MA_XID, PFLD_MA_HDRLEN, PFLD_MA_HEADLEN, PFLD_MA_PAGELEN,
	PFLD_MA_TAILLEN, PFLD_MA_RTYPE, PFLD_MA_WTYPE,
	/* rpcrdma:xprtrdma_chunk_read */
	PFLD_CR_TASK, PFLD_CR_CLIENT, PFLD_CR_POS, PFLD_CR_LENGTH,
	/* rpcrdma:xprtrdma_chunk_write / _wp / _reply (one event class) */
	PFLD_CW_TASK, PFLD_CW_CLIENT, PFLD_CW_LENGTH,
	/* rpcrdma:xprtrdma_post_send */
	PFLD_PS_TASK, PFLD_PS_CLIENT,
	/* rpcrdma:xprtrdma_reply */
	PFLD_RP_TASK, PFLD_RP_CLIENT, PFLD_RP_XID, PFLD_RP_CREDITS,
	/* sunrpc:rpc_clnt_new (the peer address of each rpc_clnt) */
	PFLD_CN_CLIENT, PFLD_CN_ADDR,
	/* sunrpc:rpc_stats_latency (xprt_id: 6.12 on) */
	PFLD_SL_TASK, PFLD_SL_CLIENT, PFLD_SL_XID, PFLD_SL_VERSION, PFLD_SL_PROGNAME, PFLD_SL_PROCNAME,
	PFLD_SL_BACKLOG, PFLD_SL_RTT, PFLD_SL_EXECUTE, PFLD_SL_XPRT_ID,
	/* rpcrdma:svcrdma_decode_rqst (cq_id, completion_id: the receive, 5.10 on) */
	PFLD_DR_XID, PFLD_DR_VERS, PFLD_DR_PROC, PFLD_DR_CREDITS, PFLD_DR_HDRLEN, PFLD_DR_CQ, PFLD_DR_CID,
	/* rpcrdma:svcrdma_read_finished (6.12 on: the receive whose READs are done) */
	PFLD_RF_CQ, PFLD_RF_CID,
	/* rpcrdma:svcrdma_post_read_chunk / _write_chunk / _reply_chunk, svcrdma_post_send */
	PFLD_PC_CQ, PFLD_PC_CID,
	/* rpcrdma:svcrdma_wc_read */
	PFLD_WR_CQ, PFLD_WR_CID, PFLD_WR_LATENCY, PFLD_WR_BYTES,
	/* rpcrdma:svcrdma_wc_write (completion of a Write chunk's RDMA WRITEs;
	 * before 6.12 also of a Reply chunk's) */
	PFLD_WW_CQ, PFLD_WW_CID,
	/* rpcrdma:svcrdma_wc_reply (6.12 on: completion of a Reply chunk's RDMA WRITEs) */
	PFLD_WP_CQ, PFLD_WP_CID,
	/* rpcrdma:svcrdma_post_send */
	PFLD_SS_CQ, PFLD_SS_CID,
	/* rpcrdma:svcrdma_wc_send */
	PFLD_WS_CQ, PFLD_WS_CID,
	/* rpcrdma:svcrdma_wc_send_flush / _err (6.1 on: a Send that failed) */
	PFLD_WF_CQ, PFLD_WF_CID,
	/* sunrpc:svc_process */
	PFLD_SP_XID, PFLD_SP_VERS, PFLD_SP_PROC, PFLD_SP_SERVICE, PFLD_SP_PROCEDURE,
	/* sunrpc:svc_stats_latency: the caller as a sockaddr (client, 6.1 on)
	 * or as text (addr, "%pISpc", before 6.1) */
	PFLD_SS2_CLIENT, PFLD_SS2_XID, PFLD_SS2_EXECUTE, PFLD_SS2_PROCEDURE, PFLD_SS2_ADDR,
	/* rpcrdma:svcrdma_wc_recv (a Receive completed: the request is in) */
	PFLD_RC_CQ, PFLD_RC_CID,
	PFLD_MAX
};

enum probe_side { PROBE_SIDE_CLIENT = 1, PROBE_SIDE_SERVER = 2 };

/* Timestamps (bpf_ktime_get_ns, ns since boot) kept per RPC. */
enum probe_ts {
	/* client */
	PT_BEGIN,      /* rpc_task_begin: the task starts running */
	PT_MARSHAL,    /* first xprtrdma_marshal: the call enters the transport */
	PT_SEND,       /* first xprtrdma_post_send */
	PT_SEND_LAST,  /* last xprtrdma_post_send (retransmissions) */
	PT_REPLY,      /* xprtrdma_reply: the reply matched to the task */
	PT_DONE,       /* rpc_stats_latency: the task's RPC is complete */
	/* server */
	PT_DECODE,     /* the request received: its Receive's completion
	                * (svcrdma_wc_recv), else svcrdma_decode_rqst, which
	                * fires only once an nfsd thread takes the request up */
	PT_READ_POST,  /* first svcrdma_post_read_chunk */
	PT_READ_FIRST, /* earliest RDMA READ start (completion - its latency) */
	PT_READ_DONE,  /* last svcrdma_wc_read */
	PT_PROCESS,    /* svc_process: dispatch to the program */
	PT_STATS,      /* svc_stats_latency: result ready, before sendto */
	PT_WRITE_POST, /* first svcrdma_post_write_chunk / _reply_chunk */
	PT_SEND_POST,  /* svcrdma_post_send: the reply is posted */
	PT_SEND_DONE,  /* svcrdma_wc_send: the reply Send completed */
	PT_MARSHAL_LAST, /* last xprtrdma_marshal: the kernel's RTT starts at
	                  * the latest transmission, not the first */
	PT_WRITE_DONE, /* server: last svcrdma_wc_write of the RPC's chunks */
	PT_MAX
};

/* probe_event.seen: which events contributed. */
enum probe_seen {
	PS_BEGIN = 1 << 0, PS_MARSHAL = 1 << 1, PS_CHUNK = 1 << 2, PS_POST_SEND = 1 << 3,
	PS_REPLY = 1 << 4, PS_STATS = 1 << 5, PS_DECODE = 1 << 6, PS_READ = 1 << 7,
	PS_PROCESS = 1 << 8, PS_WRITE = 1 << 9, PS_SEND_DONE = 1 << 10,
	PS_RETRANSMIT = 1 << 11, PS_READ_POS0 = 1 << 12, PS_XID_MISMATCH = 1 << 13,
	PS_CHUNK_NEW = 1 << 14, /* chunks registered since the last marshal */
	PS_WRITE_DONE = 1 << 15, /* server: an RDMA WRITE completion was joined */
	PS_PARKED = 1 << 16,     /* server, 6.12: the thread's copy of a request parked for its
	                          * READs (sparked holds it; another thread resumes it) */
};

/* One completed RPC as the kernel saw it; also the join state kept in the
 * maps while the RPC is in flight.  Fixed size, no pointers. */
struct probe_event {
	__u8  side;             /* enum probe_side */
	__u8  addr_family;      /* server: caller address family (2 / 10), 0 unknown */
	__u16 caller_port;
	__u32 seen;             /* enum probe_seen */
	__u32 xid;              /* as on the wire, in host order as tracepoints print it */
	__u32 client_id;        /* client: rpc_clnt id */
	__u32 task_id;          /* client: task id; server: nfsd thread pid */
	__u32 vers;
	__u32 proc;             /* server: svc_process proc number */
	__u32 credits;          /* client: granted in the reply; server: asked in the call */
	__u32 hdrlen;           /* RPC-over-RDMA header of the call */
	__u32 headlen, pagelen, taillen; /* client: XDR of the call */
	__u32 rtype, wtype;     /* client: chunk types chosen by the marshaller */
	__u32 rdma_proc;        /* server: RDMA_MSG / RDMA_NOMSG ... of the call */
	__u32 n_transmits;      /* client: xprtrdma_marshal count */
	__u16 n_read_segs, n_write_segs, n_reply_segs, n_reads;
	__u16 n_writes, rdma_vers;
	__u32 xprt_id;          /* client: the rpc_xprt's id (rpc_stats_latency, 6.12 on), 0 unknown */
	__u64 read_chunk_bytes, write_chunk_bytes, reply_chunk_bytes;
	__u64 read_bytes;       /* server: RDMA READ bytes (svcrdma_wc_read totalbytes) */
	__u64 read_lat_ns;      /* server: sum of the READs' own latencies */
	__u64 k_backlog_us, k_rtt_us, k_exec_us; /* what the kernel itself reported */
	__u64 t[PT_MAX];
	__u8  caller_addr[16];
	char  prog[PROBE_PROG_MAX];   /* client: progname ("nfs"); server: service ("nfsd") */
	char  procname[PROBE_STR_MAX];
};

/* Counters (per-CPU array, summed by the loader): drops are never silent. */
enum probe_stat {
	PST_EVENTS,        /* tracepoint hits handled */
	PST_RECORDS,       /* probe_events written to the ring buffer */
	PST_RB_DROPS,      /* ring buffer full: record lost */
	PST_NO_STATE,      /* an event found no in-flight RPC to join (started before attach, or evicted) */
	PST_MAP_FULL,      /* join map insert failed */
	PST_FILTERED,      /* completed RPCs not sent because of a filter */
	PST_MAX
};

#define PROBE_HIST_SLOTS 64        /* log2(ns) buckets */
#define PROBE_HIST_SUM   64        /* slot holding the sum of ns */

/* Per-op latency histogram: key side, program, version, procedure; the
 * value holds every log2 slot and the sum, so that a record costs one
 * hash look-up (a key per slot cost two, each hashing the names). */
struct probe_hist_key {
	__u8  side;
	__u8  vers;
	__u16 pad;
	char  prog[PROBE_PROG_MAX];
	char  proc[PROBE_STR_MAX];
};
struct probe_hist_val {
	__u64 slot[PROBE_HIST_SLOTS + 1];  /* [PROBE_HIST_SUM]: the sum of ns */
};

#endif
