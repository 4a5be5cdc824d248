/* THE per-XID record: one schema for every source in the project (wire
 * capture, client probe, server probe, XDP).  Plain C, fixed-size fields
 * only, so the BPF side can mirror the leading part of it field for field.
 * Times are nanoseconds since the Unix epoch (wire) or since boot (probes);
 * 0 means "not seen".  docs/record.md documents every field. */
#ifndef NFSRDMA_RECORD_H
#define NFSRDMA_RECORD_H

#include <stdbool.h>
#include <stdint.h>

/* 2: the phases partition the total (rec_phase); 3: the transport field
 * (records of version 2 and older have it 0: RDMA, all they could be);
 * 4: the vantages (which sources contributed, each one's timestamps) and
 * the fused end-to-end phases of a joined record */
#define NFSRDMA_RECORD_VERSION 4

enum rec_source {
	REC_SRC_WIRE = 1,          /* nfsrdma-dissect on a capture */
	REC_SRC_CLIENT_PROBE = 2,  /* BPF on the RPC client */
	REC_SRC_SERVER_PROBE = 3,  /* BPF on the RPC server */
	REC_SRC_XDP = 4,           /* XDP on a RoCE port */
	REC_SRC_JOINED = 5,        /* src/join: one RPC fused from several vantages */
};

/* rec.vantages (version 4): the points of view a record holds */
enum rec_vantage {
	REC_VT_CLIENT = 1u << 0,   /* the client kernel (client probe) */
	REC_VT_WIRE   = 1u << 1,   /* the wire (capture, XDP) */
	REC_VT_SERVER = 1u << 2,   /* the server kernel (server probe) */
	REC_VT_ALL    = 7,
};
static inline const char *rec_vantage_name(unsigned bit)
{
	return bit == REC_VT_CLIENT ? "client" : bit == REC_VT_WIRE ? "wire" : bit == REC_VT_SERVER ? "server" : "?";
}

/* rec.vt_client[]: the client kernel's times of the RPC (its own clock
 * unless the record is joined: then every time is on the record's one
 * timeline, see rec.f_clock) */
enum rec_client_ts {
	RCT_BEGIN,     /* the RPC task began (rpc_stats_latency end - execute) */
	RCT_MARSHAL,   /* the call was marshalled (xprtrdma_marshal) */
	RCT_SEND,      /* the call's Send was posted (xprtrdma_post_send) */
	RCT_REPLY,     /* the reply was received (xprtrdma_reply) */
	RCT_END,       /* the task completed (rpc_stats_latency) */
	RCT_N
};
/* rec.vt_server[]: the server kernel's times */
enum rec_server_ts {
	RST_RECV,       /* the request was received (svcrdma_decode_rqst) */
	RST_READ_POST,  /* first RDMA READ of the arguments posted */
	RST_READ_DONE,  /* last RDMA READ completed */
	RST_DISPATCH,   /* a thread started executing it (svc_stats_latency - execute) */
	RST_EXEC_DONE,  /* execute done, the reply is built (svc_stats_latency) */
	RST_WRITE_POST, /* first RDMA WRITE of the results posted */
	RST_WRITE_DONE, /* last RDMA WRITE completed */
	RST_SEND_POST,  /* the reply's Send posted */
	RST_SEND_DONE,  /* the reply's Send completed */
	RST_N
};

/* The fused end-to-end phases of a joined record, in time order; together
 * they partition [task begin, task end] on the client (docs/record.md
 * "Fused phases" gives every boundary).  A phase whose boundary no
 * contributing vantage saw is merged with the next: f_merged bit i says
 * phase i runs on into phase i + 1, and its time is in f_phase[i]. */
enum rec_fphase {
	REC_FP_CLIENT_QUEUE,  /* task begin .. call marshalled */
	REC_FP_CLIENT_SEND,   /* marshalled .. Send posted */
	REC_FP_NET_OUT,       /* Send posted .. server received the request */
	REC_FP_SERVER_QUEUE,  /* received .. first RDMA READ posted (or execute start) */
	REC_FP_PULL,          /* first RDMA READ posted .. execute start */
	REC_FP_EXECUTE,       /* execute start .. execute done */
	REC_FP_REPLY_BUILD,   /* execute done .. first RDMA WRITE posted (or reply Send) */
	REC_FP_PUSH,          /* first RDMA WRITE posted .. reply Send posted */
	REC_FP_NET_BACK,      /* reply Send posted .. reply received by the client */
	REC_FP_CLIENT_DONE,   /* reply received .. task end */
	REC_FP_N
};
static inline const char *rec_fphase_name(unsigned ph)
{
	static const char *const n[REC_FP_N] = { "client_queue", "client_send", "net_out", "server_queue",
						 "pull", "execute", "reply_build", "push", "net_back",
						 "client_done" };
	return ph < REC_FP_N ? n[ph] : "?";
}

/* rec.f_merged bit REC_FM_NET_PAIR: the clocks cannot tell net_out from
 * net_back at this RPC (their alignment's uncertainty is over
 * REC_DIR_MERGE_PM per mille of the two together): f_phase[REC_FP_NET_OUT]
 * holds both, named "net_out+net_back", and net_back is not a phase of its
 * own.  The two are not adjacent, but their sum needs no clock. */
#define REC_FM_NET_PAIR (1u << 31)
#define REC_DIR_MERGE_PM 250   /* uncertainty above this share of a one-way pair: merged */
#define REC_DIR_SHOW_PM   50   /* above this share: a direction is printed with +/- */

/* The name of fused phase ph as a record shows it: a merged span joins the
 * names of the phases it covers with '+' ("server_queue+pull+execute"). */
static inline const char *rec_fphase_span_name(uint32_t merged, unsigned ph, char *buf, unsigned len)
{
	unsigned n = 0;
	bool back = false;

	if (!len)
		return "";
	for (unsigned i = ph; i < REC_FP_N; i++) {
		const char *s = rec_fphase_name(i);
		if (i != ph && n + 1 < len)
			buf[n++] = '+';
		while (*s && n + 1 < len)
			buf[n++] = *s++;
		back |= i == REC_FP_NET_BACK;
		if (!(merged & (1u << i)))
			break;
	}
	if (ph == REC_FP_NET_OUT && (merged & REC_FM_NET_PAIR) && !back)
		for (const char *s = "+net_back"; *s && n + 1 < len; )
			buf[n++] = *s++;
	buf[n] = 0;
	return buf;
}

/* Is fused phase ph inside a span that starts earlier (not a key of its
 * own in any output)? */
static inline bool rec_fphase_inside(uint32_t merged, uint32_t mask, unsigned ph)
{
	if (mask & (1u << ph))
		return false;
	if (ph == REC_FP_NET_BACK && (merged & REC_FM_NET_PAIR))
		return true;
	return ph && (merged & (1u << (ph - 1)));
}

/* Where an RPC's time went, in the words of a diagnosis: the places a
 * joined record's time is divided among (docs/record.md "Segments and the
 * verdict").  client_net / server_net: the network between the client
 * (server) kernel and the capture point, both directions together. */
enum rec_place {
	REC_PL_CLIENT_HOST,   /* client_queue, client_send, client_done */
	REC_PL_CLIENT_NET,
	REC_PL_SERVER_NET,
	REC_PL_SERVER_QUEUE,
	REC_PL_EXECUTE,
	REC_PL_PULL,
	REC_PL_PUSH,
	REC_PL_REPLY_WAIT,    /* reply_build: execute done .. the results leave */
	REC_PL_N
};
static inline const char *rec_place_name(unsigned pl)
{
	static const char *const n[REC_PL_N] = { "client_host", "client_net", "server_net", "server_queue",
						 "execute", "pull", "push", "reply_wait" };
	return pl < REC_PL_N ? n[pl] : "?";
}
/* the same, as a sentence says it */
static inline const char *rec_place_words(unsigned pl)
{
	static const char *const n[REC_PL_N] = { "client host", "client-side network", "server-side network",
						 "server queue", "server execute", "argument pull", "result push",
						 "reply wait" };
	return pl < REC_PL_N ? n[pl] : "?";
}

/* rec.f_seg[]: clock-free network round trips of a joined record with the
 * wire, and their one-way halves (which need the clocks) */
enum rec_segment {
	REC_SEG_CLIENT_NET,    /* (client reply - client Send) - (wire reply - wire call) */
	REC_SEG_SERVER_NET,    /* (wire reply - wire call) - (server Send - server received) */
	REC_SEG_CLIENT_OUT,    /* wire call - client Send */
	REC_SEG_CLIENT_BACK,   /* client reply - wire reply */
	REC_SEG_SERVER_OUT,    /* server received - wire call */
	REC_SEG_SERVER_BACK,   /* wire reply - server Send */
	REC_SEG_N
};
static inline const char *rec_seg_name(unsigned s)
{
	static const char *const n[REC_SEG_N] = { "client_net", "server_net", "client_net_out",
						  "client_net_back", "server_net_out", "server_net_back" };
	return s < REC_SEG_N ? n[s] : "?";
}

/* one share of a joined record's time: ns spent in a place, or in a span
 * the data cannot divide among several (places: bits of enum rec_place) */
struct rec_place_ns {
	uint64_t ns;
	uint16_t places;
};

/* rec.f_flags: what the join says about a fused record */
enum rec_fuse_flags {
	RECFF_NEGATIVE   = 1u << 0,  /* a boundary came before the one it follows after alignment (clamped to 0, flagged) */
	RECFF_UNBOUNDED  = 1u << 1,  /* a clock was aligned from one direction only: a guess, not an interval */
	RECFF_NO_CLOCK   = 1u << 2,  /* a vantage could not be aligned at all (no causal pair yet) */
	RECFF_RETRANSMIT = 1u << 3,  /* several wire calls with this XID: the first one is kept */
	RECFF_DUP_XID    = 1u << 4,  /* a vantage had this XID twice: the other RPC is its own record */
	RECFF_EVICTED    = 1u << 5,  /* left the join window before every vantage came: partial */
	RECFF_CLOCK_STEP = 1u << 6,  /* a clock step was seen on one of its host pairs */
	/* why a phase was negative (with RECFF_NEGATIVE; docs/record.md): the
	 * two boundaries out of order both came from the client kernel, the
	 * wire, the server kernel (that vantage contradicts itself, on its own
	 * clock: no alignment involved), or from two vantages (their clocks'
	 * alignment, or one of them, is off by more than the stated uncertainty) */
	RECFF_NEG_CLIENT = 1u << 7,
	RECFF_NEG_WIRE   = 1u << 8,
	RECFF_NEG_SERVER = 1u << 9,
	RECFF_NEG_CLOCK  = 1u << 10,
};
#define RECFF_NEG_REASONS (RECFF_NEG_CLIENT | RECFF_NEG_WIRE | RECFF_NEG_SERVER | RECFF_NEG_CLOCK)
/* The reasons' names in every tool's counts, in RECFF_NEG_* order
 * (JSON "negative_by", the reason="" label) */
#define REC_NEG_N 4
static const char *const rec_neg_reason[REC_NEG_N] = { "client", "wire", "server", "clock" };

/* rec.transport: what carried the RPC */
enum rec_transport {
	REC_TR_RDMA = 0,           /* RPC-over-RDMA (the zero of older records) */
	REC_TR_TCP = 1,            /* ONC RPC record marking over TCP */
	REC_TR_UDP = 2,            /* one UDP datagram per message */
	REC_TR_N
};

static inline const char *rec_transport_name(unsigned t)
{
	static const char *const n[REC_TR_N] = { "rdma", "tcp", "udp" };
	return t < REC_TR_N ? n[t] : "?";
}

/* rec.flags */
enum rec_flags {
	RECF_CALL        = 1u << 0,  /* the call was seen */
	RECF_REPLY       = 1u << 1,  /* the reply was seen */
	RECF_BACKCHANNEL = 1u << 2,  /* call went server -> client (NFSv4.1 callback) */
	RECF_TIMEOUT     = 1u << 3,  /* flushed at capture end without a reply */
	RECF_NO_CALL     = 1u << 4,  /* reply whose call was not seen */
	RECF_ARGS_DDP    = 1u << 5,  /* whole call travelled in a position-zero Read chunk */
	RECF_RES_DDP     = 1u << 6,  /* whole reply travelled in the Reply chunk */
	RECF_CALL_PARTIAL  = 1u << 7, /* call arguments not fully decodable (truncated, missing chunk data) */
	RECF_REPLY_PARTIAL = 1u << 8,
	RECF_GAP         = 1u << 9,  /* packets missing on the connection while in flight */
	RECF_RETRANSMIT  = 1u << 10, /* some packet of this RPC was retransmitted */
	RECF_XID_HINT    = 1u << 11, /* an RDMA op was tied by the XID-in-offset hint, not by handle */
	RECF_RDMA_ERROR  = 1u << 12, /* the reply was RDMA_ERROR */
	RECF_GSS_BODY    = 1u << 13, /* RPCSEC_GSS integrity/privacy: body not decoded */
	RECF_NAME_CUT    = 1u << 14, /* name holds the first bytes only (bound, or a NUL byte) */
};

/* RPC outcome (rec.rpc_status): accept_stat for accepted replies, 100 +
 * reject_stat for denied ones, 200 + RDMA error code for RDMA_ERROR,
 * 300 + rdma_err for a version 2 RDMA2_ERROR. */
enum rec_rpc_status {
	REC_RPC_SUCCESS = 0, REC_RPC_PROG_UNAVAIL = 1, REC_RPC_PROG_MISMATCH = 2,
	REC_RPC_PROC_UNAVAIL = 3, REC_RPC_GARBAGE_ARGS = 4, REC_RPC_SYSTEM_ERR = 5,
	REC_RPC_DENIED_MISMATCH = 100, REC_RPC_DENIED_AUTH = 101,
	REC_RPC_RDMA_ERR_VERS = 201, REC_RPC_RDMA_ERR_CHUNK = 202,
	REC_RPC_RDMA2_ERR = 300,    /* + rdma_err of an RDMA2_ERROR (v2 draft-07 section 7) */
	REC_RPC_NONE = 0xffff,      /* no reply */
};

struct rec_endpoint {
	uint8_t  family;     /* 4, 6, 'G' (GID), 'L' (LID only), 0 unknown */
	uint8_t  ip_proto;   /* 6 / 17: a TCP / UDP socket, port is its port; 0: RDMA */
	uint8_t  pad[2];
	uint8_t  addr[16];
	uint32_t qpn;
	uint16_t lid;
	uint16_t port;       /* RDMA: RoCEv2 UDP source port, 0 otherwise; TCP/UDP: the port */
};

#define REC_MAX_OPS      24  /* NFSv4 COMPOUND ops kept (count kept even if more) */
#define REC_MAX_FINDINGS 8
#define REC_NAME_MAX     48

/* One NFSv4 COMPOUND operation (or the single procedure of other programs). */
struct rec_op {
	uint16_t op;         /* nfs_opnum4 */
	uint16_t flags;      /* REC_OPF_* */
	uint32_t status;     /* nfsstat4 of this op; REC_STATUS_NONE if no reply */
	uint64_t fh_hash;    /* current filehandle hash (PUTFH / result of LOOKUP...) */
	uint64_t offset;     /* READ/WRITE/COMMIT/LAYOUTGET offset */
	uint32_t count;      /* READ/WRITE/COMMIT count */
	uint32_t seqid;      /* stateid seqid (READ/WRITE/CLOSE/LOCK...) or SEQUENCE seqid */
};
enum rec_op_flags {
	REC_OPF_FH = 1, REC_OPF_OFFSET = 2, REC_OPF_COUNT = 4, REC_OPF_SEQID = 8,
	REC_OPF_DDP = 16,    /* this op's payload moved by a chunk */
};
#define REC_STATUS_NONE 0xffffffffu

/* A conformance finding: id names the rule (see dissect/check.h for the
 * table with the section each one breaks); a/b are rule-specific values. */
struct rec_finding {
	uint16_t id;
	uint16_t pad;
	uint32_t a;
	uint64_t b;
};

/* Where an RPC's time went as the wire shows it, in time order.  Each
 * phase is an interval between two observed packets; together the phases
 * that happened partition [first call packet, last reply packet]
 * (docs/record.md defines every boundary). */
enum rec_phase {
	REC_PH_CALL,          /* the call's SEND, first to last packet */
	REC_PH_QUEUE,         /* call received .. first RDMA READ of its arguments */
	REC_PH_PULL,          /* the RDMA READs of the arguments (Read chunks) */
	REC_PH_SERVER,        /* arguments pulled .. first result byte (WRITE or reply) */
	REC_PH_QUEUE_SERVER,  /* no pull: queueing and execution, one interval on the wire */
	REC_PH_PUSH,          /* the RDMA WRITEs of the results (Write/Reply chunks) */
	REC_PH_WAIT,          /* last result WRITE .. the reply's SEND */
	REC_PH_REPLY,         /* the reply's SEND, first to last packet */
	REC_PH_N
};

/* The one name of each phase, in every output (text, JSON keys, CSV
 * columns, Prometheus labels, top, plots). */
static inline const char *rec_phase_name(unsigned ph)
{
	static const char *const n[REC_PH_N] = { "call", "queue", "pull", "server", "queue+server",
						 "push", "wait", "reply" };
	return ph < REC_PH_N ? n[ph] : "?";
}

struct nfsrdma_record {
	/* identity */
	uint16_t rec_version;     /* NFSRDMA_RECORD_VERSION */
	uint8_t  source;          /* enum rec_source */
	uint8_t  rdma_vers;       /* RPC-over-RDMA version (1, 2) */
	uint32_t flags;           /* enum rec_flags */
	uint32_t conn_id;
	uint32_t xid;
	struct rec_endpoint caller;  /* sender of the CALL */
	struct rec_endpoint callee;

	/* what */
	uint32_t prog, vers, proc;   /* ONC RPC; proc = COMPOUND (1) for NFSv4 */
	uint32_t minorvers;          /* NFSv4 COMPOUND minorversion */
	uint32_t rpc_status;         /* enum rec_rpc_status */
	uint32_t status;             /* program status: nfsstat3, COMPOUND status, ... */
	uint32_t auth_flavor;        /* 0 NONE, 1 SYS, 6 RPCSEC_GSS, ... */
	uint32_t auth_uid, auth_gid; /* AUTH_SYS */
	uint32_t gss_proc, gss_service, gss_seq; /* RPCSEC_GSS */
	uint8_t  call_rdma_proc;     /* RDMA_MSG 0, NOMSG 1, ... (0xff unseen) */
	uint8_t  reply_rdma_proc;
	uint16_t nops;               /* COMPOUND ops in the call (may exceed REC_MAX_OPS) */
	/* key arguments of the main operation (first READ/WRITE/...; v3 proc) */
	uint64_t fh_hash;
	uint64_t offset;
	uint32_t count;              /* bytes asked (READ/WRITE) */
	uint32_t res_count;          /* bytes done (READ/WRITE reply) */
	char     name[REC_NAME_MAX]; /* LOOKUP/CREATE/REMOVE... name: the wire's bytes, NUL-terminated (xdr_rec_name) */

	/* when (ns) */
	uint64_t t_call_first, t_call_last;
	uint64_t t_read_first, t_read_last;    /* RDMA READ: argument pull */
	uint64_t t_write_first, t_write_last;  /* RDMA WRITE: result push (Write and Reply chunks) */
	uint64_t t_reply_first, t_reply_last;
	/* the kernel's own view of the RPC (probe sources; 0 for the others) */
	uint64_t t_marshal;          /* client: first xprtrdma_marshal (queue = t_call_first..t_marshal) */
	uint32_t k_backlog_us;       /* client: rpc_stats_latency backlog */
	uint32_t k_rtt_us;           /* client: rpc_stats_latency rtt (from the latest transmission) */
	uint32_t k_exec_us;          /* rpc_stats_latency / svc_stats_latency execute */
	uint32_t k_xprt_id;          /* client: the rpc_xprt's id (rpc_stats_latency, kernel 6.12 on); 0 unknown */
	/* derived split (ns, rec_derive): the phases that happened partition
	 * [t_call_first, t_reply_last]; phase_mask says which happened (bit
	 * REC_PH_N: d_total is known, i.e. call and reply were both seen) */
	uint64_t d_phase[REC_PH_N];
	uint64_t d_total;
	uint32_t phase_mask;
	uint8_t  transport;          /* enum rec_transport (version 3 on) */
	uint8_t  transport_pad[3];
	uint64_t frame_call, frame_reply;      /* 1-based frame of the first packet */

	/* how many bytes, and how */
	uint32_t call_inline;        /* SEND payload of the call, RPC-over-RDMA header included
	                              * (TCP/UDP: the RPC message, record marks excluded) */
	uint32_t reply_inline;
	uint32_t call_hdr, reply_hdr; /* RPC-over-RDMA header sizes */
	uint64_t read_chunk_bytes;   /* advertised Read list total (all positions) */
	uint64_t read_bytes;         /* moved by RDMA READ */
	uint64_t write_chunk_bytes;  /* advertised Write list total */
	uint64_t write_bytes;        /* moved by RDMA WRITE into Write chunks */
	uint64_t reply_chunk_bytes;  /* advertised Reply chunk total */
	uint64_t reply_bytes;        /* moved by RDMA WRITE into the Reply chunk */
	uint64_t write_list_echo;    /* Write list lengths the reply echoed */
	uint16_t n_read_chunks, n_read_segs;
	uint16_t n_write_chunks, n_write_segs;
	uint16_t n_reply_segs;       /* 0: no Reply chunk */
	uint16_t n_rdma_reads, n_rdma_writes; /* RDMA operations tied to this XID */
	uint16_t credits_asked;      /* call header */
	uint16_t credits_granted;    /* reply header */
	uint16_t nfindings;
	uint16_t rdma_retrans;       /* packets of its RDMA messages the wire showed again or late
	                                (resends behind the PSN stream; rdma_event.nretrans) */
	uint16_t rdma_retrans_pad;
	uint64_t findings;           /* bitmask: 1 << finding id */
	struct rec_finding finding[REC_MAX_FINDINGS];

	struct rec_op ops[REC_MAX_OPS];

	/* version 4: vantages (0 in older records: the source says which) */
	uint8_t  vantages;           /* enum rec_vantage */
	uint8_t  f_clock;            /* joined: the vantage whose clock all times are on */
	uint16_t f_pad;
	uint32_t f_flags;            /* enum rec_fuse_flags */
	uint64_t vt_client[RCT_N];   /* enum rec_client_ts */
	uint64_t vt_server[RST_N];   /* enum rec_server_ts */
	/* joined: the fused split (src/join/fuse.c) */
	uint64_t f_phase[REC_FP_N];
	uint64_t f_total;
	uint32_t f_mask;             /* phases that happened (bit of a merged span's first phase) */
	uint32_t f_merged;           /* bit i: phase i merged with phase i + 1 */
	uint64_t f_uncert_ns;        /* the alignment's uncertainty (largest of its pairs) */
	/* joined: segments and the verdict (src/join/verdict.c) */
	uint64_t f_unc_ns[3];        /* per vantage (client, wire, server): its alignment's uncertainty; UINT64_MAX: unbounded */
	uint64_t f_dir_unc_ns;       /* uncertainty of the net_out / net_back split; UINT64_MAX: unbounded, or no such pair */
	uint64_t f_seg[REC_SEG_N];   /* enum rec_segment */
	uint32_t f_seg_mask;         /* segments known */
	uint16_t f_verdict;          /* places (bits) of the share holding most of f_total; 0: none */
	uint16_t f_verdict_pm;       /* that share, per mille */
	uint8_t  f_nplace;
	struct rec_place_ns f_place[REC_FP_N];   /* f_total divided among places, in the order of the phases; f_nplace of them */
};
/* Adds n resent packets to r's count, held at its most. */
static inline void rec_add_retrans(struct nfsrdma_record *r, uint32_t n)
{
	uint32_t v = (uint32_t)r->rdma_retrans + n;
	r->rdma_retrans = (uint16_t)(v > 0xffff ? 0xffff : v);
}


/* The vantages of any record: older ones (and single-source producers
 * that leave it 0) have the one their source names. */
static inline unsigned rec_vantages(const struct nfsrdma_record *r)
{
	if (r->vantages)
		return r->vantages;
	return r->source == REC_SRC_CLIENT_PROBE ? REC_VT_CLIENT :
	       r->source == REC_SRC_SERVER_PROBE ? REC_VT_SERVER :
	       r->source == REC_SRC_WIRE || r->source == REC_SRC_XDP ? REC_VT_WIRE : 0;
}

static inline bool rec_is_fused(const struct nfsrdma_record *r)
{
	return r->source == REC_SRC_JOINED;
}

/* bytes inline (call+reply) and by DDP */
static inline uint64_t rec_bytes_inline(const struct nfsrdma_record *r)
{
	return (uint64_t)r->call_inline + r->reply_inline;
}
static inline uint64_t rec_bytes_ddp(const struct nfsrdma_record *r)
{
	return r->read_bytes + r->write_bytes + r->reply_bytes;
}

static inline uint64_t rec_dur(uint64_t a, uint64_t b) { return (a && b && b >= a) ? b - a : 0; }

static inline bool rec_phase_seen(const struct nfsrdma_record *r, enum rec_phase ph)
{
	return r->phase_mask & (1u << ph);
}
static inline bool rec_total_known(const struct nfsrdma_record *r)
{
	return r->phase_mask & (1u << REC_PH_N);
}

/* Fills the derived split from the timestamps: a chain of boundaries from
 * the first call packet to the last reply packet, each kept between the one
 * before it and the end (packets reordered by the capture never make a
 * phase negative), so the phases that happened sum to d_total exactly. */
static inline void rec_derive(struct nfsrdma_record *r)
{
	const bool call = r->t_call_first && r->t_call_last;
	const bool pull = r->t_read_first && r->t_read_last;
	const bool push = r->t_write_first && r->t_write_last;
	const bool reply = r->t_reply_first && r->t_reply_last;
	uint64_t at[REC_PH_N + 1];
	unsigned ph[REC_PH_N], n = 0;

	for (unsigned i = 0; i < REC_PH_N; i++)
		r->d_phase[i] = 0;
	r->d_total = 0;
	r->phase_mask = 0;
	if (!call) {
		/* a reply whose call the capture missed: only its own parts */
		if (push) {
			r->d_phase[REC_PH_PUSH] = rec_dur(r->t_write_first, r->t_write_last);
			r->phase_mask |= 1u << REC_PH_PUSH;
		}
		if (push && reply) {
			r->d_phase[REC_PH_WAIT] = rec_dur(r->t_write_last, r->t_reply_first);
			r->phase_mask |= 1u << REC_PH_WAIT;
		}
		if (reply) {
			r->d_phase[REC_PH_REPLY] = rec_dur(r->t_reply_first, r->t_reply_last);
			r->phase_mask |= 1u << REC_PH_REPLY;
		}
		return;
	}
	/* phase ph[i] runs from at[i] to at[i + 1] */
	at[0] = r->t_call_first;
	ph[n] = REC_PH_CALL, at[++n] = r->t_call_last;
	if (pull) {
		ph[n] = REC_PH_QUEUE, at[++n] = r->t_read_first;
		ph[n] = REC_PH_PULL, at[++n] = r->t_read_last;
	}
	if (push || reply)
		ph[n] = pull ? REC_PH_SERVER : REC_PH_QUEUE_SERVER, at[++n] = push ? r->t_write_first : r->t_reply_first;
	if (push) {
		ph[n] = REC_PH_PUSH, at[++n] = r->t_write_last;
		if (reply)
			ph[n] = REC_PH_WAIT, at[++n] = r->t_reply_first;
	}
	if (reply)
		ph[n] = REC_PH_REPLY, at[++n] = r->t_reply_last;
	uint64_t end = at[n] > at[0] ? at[n] : at[0];
	for (unsigned i = 1; i <= n; i++) {
		if (at[i] < at[i - 1])
			at[i] = at[i - 1];
		if (at[i] > end)
			at[i] = end;
	}
	for (unsigned i = 0; i < n; i++) {
		r->d_phase[ph[i]] = at[i + 1] - at[i];
		r->phase_mask |= 1u << ph[i];
	}
	if (reply) {
		r->d_total = at[n] - at[0];
		r->phase_mask |= 1u << REC_PH_N;
	}
}

#endif
