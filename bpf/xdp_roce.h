/* The record layout shared by bpf/xdp_roce.bpf.c (the XDP fast path) and
 * its user-space readers (pcap/source_xdp.c, pcap/xdp_feed.c, the tests).
 *
 * One record per RoCE frame (RoCEv2 = UDP 4791, RoCEv1 = Ethertype 0x8915)
 * and per malformed frame:
 *
 *   hdr_size bytes of struct xdp_roce_rec   what the XDP program parsed
 *   cap_len bytes                           the first cap_len bytes of the frame
 *
 * Records are compact: hdr_size is XDP_REC_BASE (the struct up to the
 * RPC-over-RDMA summary) unless rr_status != RR_NONE, i.e. only a SEND
 * First/Only carries the summary.  cap_len is the snap length, except that
 * a frame longer than the snap length that does not start a message (SEND,
 * RDMA WRITE Middle/Last, READ Response Middle/Last) keeps only its
 * headers: behind the first packet's snap bytes there is already a gap,
 * so those bytes could never be decoded (the dissector reads a message's
 * bytes only up to its first gap).  A reader zero-fills the missing tail of
 * the struct (xdp_rec_check).
 *
 * ts_ns is 0 on the middle packets of a message (SEND, RDMA WRITE, READ
 * Response Middle) and on ACKNOWLEDGEs (ACK and NAK, opcode 0x11) unless
 * snap_len is XDP_ROCE_SNAP_MAX (whole frames): a clock read costs as much
 * as the whole parse, and per-XID times come from a message's first and
 * last packets.  An ACK's time reaches no per-XID record: only its
 * connection's first/last time, its RDMA_EV_ACK event (frame notes carry
 * no time), the 1 s grace after a CM close and xdp_conns.last_ns.  Readers
 * give an untimed record the time of the record before it.
 *
 * User space never trusts a record: magic, hdr_size and cap_len are checked
 * against the bytes actually received (pcap/xdp_feed.c).  Only fixed-size
 * types, no pointers; the layout is the same on both sides (natural
 * alignment, explicit padding). */
#ifndef NFSRDMA_XDP_ROCE_H
#define NFSRDMA_XDP_ROCE_H

#include <linux/types.h>

#define XDP_ROCE_MAGIC        0x58525231u  /* "XRR1" */
#define XDP_ROCE_UDP_PORT     4791
#define XDP_ROCE_SNAP_DEFAULT 512          /* frame bytes copied per record */
#define XDP_ROCE_SNAP_MAX     4352         /* MTU 4096 RoCE frame + headers (4170) */

/* Records go to one ring per CPU (map "xdp_ring", a BPF_F_MMAPABLE array
 * with one slot per possible CPU, mapped by the reader).  A slot is
 *
 *   struct xdp_ring_ctl   head (the program's), tail (the reader's)
 *   ring bytes            records at position & (ring bytes - 1)
 *   slack                 the tail of a record that starts near the end
 *
 * so a record is always contiguous.  Positions only grow; the program
 * never lets head - tail exceed the ring bytes.  Each slot has exactly one
 * writer (XDP runs with migration disabled and does not nest on a CPU),
 * so there is no lock and one atomic per record (the head update, which
 * orders the record's bytes before it on every architecture); the
 * BPF ring buffer this replaces cost a spinlock, a header and a commit
 * per record.  The reader merges the CPUs' rings by frame number. */
struct xdp_ring_ctl {
	__u64 head;          /* written by the program: end of the last record */
	__u64 pad0[7];
	__u64 tail;          /* written by the reader: start of the first unread record */
	__u64 pad1[7];
};
#define XDP_RING_CTL          128          /* sizeof(struct xdp_ring_ctl) */
#define XDP_RING_EXTRA        8192         /* ctl + slack: >= 128 + record header + SNAP_MAX */
#define XDP_RING_DEFAULT      (2u << 20)   /* ring bytes per CPU */
#define XDP_RING_MIN          (64u << 10)
#define XDP_RING_MAX          (2u << 20)   /* a slot must stay <= 4 MB (KMALLOC_MAX_SIZE) */
/* Header bytes of a record without / with the RPC-over-RDMA summary. */
#define XDP_REC_BASE          __builtin_offsetof(struct xdp_roce_rec, xid)
#define XDP_REC_FULL          sizeof(struct xdp_roce_rec)
/* Bytes a record takes in a ring: header + frame bytes, 8-aligned. */
#define XDP_REC_SPACE(hdr, cap) (((hdr) + (cap) + 7) & ~7ull)

/* xdp_roce_rec.status */
enum xdp_rec_status {
	XR_ROCE = 1,        /* a well-formed RoCE packet: every field below valid */
	XR_MALFORMED = 2,   /* failed a check on the way; mal_layer says where */
};

/* xdp_roce_rec.mal_layer: the layer that failed (same names as the
 * dissector's ib_frame.layer). */
enum xdp_mal_layer {
	XM_NONE = 0, XM_ETH, XM_VLAN, XM_IPV4, XM_IPV6, XM_UDP, XM_ROCE, XM_IB,
};

/* xdp_roce_rec.kind (matches enum ib_frame_kind) */
enum xdp_frame_kind { XK_ROCE_V2 = 1, XK_ROCE_V1 = 2 };

/* xdp_roce_rec.bth_flags */
enum xdp_bth_flags {
	XB_SE = 1u << 0, XB_MIGREQ = 1u << 1, XB_ACKREQ = 1u << 2,
	/* bits 4-5: pad count */
};
#define XB_PAD(f) (((f) >> 4) & 3)

/* xdp_roce_rec.hdrs: extended headers present (same bits as enum ib_hdr) */
enum xdp_hdr {
	XH_RDETH = 1u << 0, XH_DETH = 1u << 1, XH_XRCETH = 1u << 2, XH_FETH = 1u << 3,
	XH_RETH = 1u << 4, XH_ATOMICETH = 1u << 5, XH_AETH = 1u << 6,
	XH_ATOMICACKETH = 1u << 7, XH_IMMDT = 1u << 8, XH_IETH = 1u << 9,
	XH_PAYLOAD = 1u << 10,
};

/* xdp_roce_rec.rr_status: RPC-over-RDMA header at the start of a SEND
 * First / SEND Only payload (not UD). */
enum xdp_rr_status {
	RR_NONE = 0,      /* not a SEND First/Only, or UD */
	RR_OK = 1,        /* a whole version 1 header: every rr_ field valid */
	RR_SHORT = 2,     /* the header runs past the packet (fixed fields valid if payload >= 16) */
	RR_BAD = 3,       /* version 1, but invalid (bad discriminator, proc, error code) */
	RR_NOT_V1 = 4,    /* vers != 1: xid, vers, credits, proc as on the wire */
	RR_OVERFLOW = 5,  /* valid so far but more list entries than the bounded parser reads */
};
#define XDP_RR_MAX_RSEGS    32  /* Read list entries parsed */
#define XDP_RR_MAX_WCHUNKS  16  /* Write list chunks parsed */
#define XDP_RR_LIST_LIMIT   4096 /* as RPCRDMA_LIST_LIMIT: a longer count is invalid */

/* xdp_roce_rec.rr_flags */
enum xdp_rr_flags { XRR_P0 = 1u << 0, XRR_REPLY = 1u << 1 };

struct xdp_seg {
	__u32 handle;
	__u32 length;
	__u64 offset;
};

struct xdp_roce_rec {
	__u32 magic;        /* XDP_ROCE_MAGIC */
	__u16 hdr_size;     /* sizeof(struct xdp_roce_rec) */
	__u16 cap_len;      /* frame bytes following this header */
	__u64 ts_ns;        /* bpf_ktime_get_ns() (CLOCK_MONOTONIC); 0: untimed (above) */
	__u64 frame;        /* 1-based number of the frame among all the program saw */
	__u32 wire_len;     /* frame length (all fragments; see frame_len() in the program) */
	__u8  status;       /* xdp_rec_status */
	__u8  mal_layer;    /* xdp_mal_layer */
	__u8  kind;         /* xdp_frame_kind */
	__u8  family;       /* 4, 6 (RoCEv2), 'G' (RoCEv1 GID) */
	__u8  src[16];      /* IPv4 in the first 4 bytes */
	__u8  dst[16];
	__u16 sport;        /* RoCEv2 UDP source port */
	__u16 pkey;
	__u8  opcode;
	__u8  bth_flags;    /* xdp_bth_flags */
	__u8  ecn;
	__u8  aeth_syn;
	__u32 dqpn;
	__u32 psn;
	__u16 hdrs;         /* xdp_hdr */
	__u16 pad0;
	__u32 tp_len;       /* IB transport part on the wire: BTH .. end of pad (no ICRC) */
	__u32 payload_off;  /* frame offset of the payload */
	__u32 payload_len;  /* payload on the wire, pad excluded */
	__u32 aeth_msn;
	__u32 reth_rkey;
	__u64 reth_va;
	__u32 reth_len;
	__u32 imm;
	__u32 ieth_rkey;
	__u32 deth_qkey;
	__u32 deth_srcqp;
	/* RPC-over-RDMA (SEND First / Only) */
	__u8  rr_status;    /* xdp_rr_status */
	__u8  rr_flags;     /* xdp_rr_flags */
	__u16 rr_hdr_len;   /* RR_OK: bytes of transport header */
	/* XDP_REC_BASE: a record without the summary ends here */
	__u32 xid, vers, credits, proc;
	__u32 rr_err;       /* RDMA_ERROR code */
	__u16 n_rsegs;      /* Read list entries */
	__u16 n_wchunks;    /* Write list chunks */
	__u32 n_wsegs;      /* segments over all Write chunks */
	__u32 n_rpsegs;     /* Reply chunk segments (XRR_REPLY) */
	__u32 rd_pos;       /* position of the first Read segment */
	__u64 rd_total;     /* sum of Read segment lengths */
	struct xdp_seg rd1, wr1, rp1; /* first Read / Write / Reply segment */
};

/* Global counters: per-CPU array "xdp_stats" of one struct xdp_stats_val
 * (one map lookup per frame, whatever it counts). */
enum xdp_stat {
	XS_FRAMES = 0,     /* every frame */
	XS_ROCE,           /* well-formed RoCE frames */
	XS_MALFORMED,      /* malformed frames (any layer) */
	XS_RECORDS,        /* records written to the ring buffer */
	XS_RB_DROPS,       /* records lost: ring buffer full */
	XS_SAMPLED_OUT,    /* records skipped by sampling */
	XS_RPCRDMA,        /* SEND First/Only with a whole v1 header */
	XS_CONN_FULL,      /* per-connection slot taken over from another key */
	XS_WAKEUPS,        /* reader wakeups sent (a ring's backlog crossed its threshold) */
	XS_MIRROR_DROPS,   /* mirror port: frames for another host, dropped after counting */
	XS_MAX,
};

struct xdp_stats_val {
	__u64 v[XS_MAX];
};

/* Per-connection (per-direction) counters: per-CPU array "xdp_conns" of
 * XDP_CONN_MAX slots, used as a 4-way set-associative table.  A key lives
 * in one of the XDP_CONN_WAYS slots from hash(key) on (on each CPU on its
 * own; user space sums slots with equal keys over slots and CPUs).  When
 * all 4 hold other keys, the least recently used of them is taken over
 * (counted in XS_CONN_FULL).  An empty slot has family 0. */
struct xdp_conn_key {
	__u8  family;
	__u8  pad[3];
	__u32 dqpn;
	__u8  src[16];
	__u8  dst[16];
};

struct xdp_conn_val {
	__u64 pkts, bytes;          /* frames, frame bytes */
	__u64 sends, writes, read_reqs, read_resps, acks, naks;
	__u64 rpcrdma;              /* SEND First/Only with a whole v1 header */
	__u64 last_ns;              /* time of the last frame that got a timed record */
	__u64 last_frame;           /* number of the last frame (the LRU order) */
};

struct xdp_conn_slot {
	struct xdp_conn_key k;
	struct xdp_conn_val v;
};
#define XDP_CONN_WAYS 4
#define XDP_CONN_MAX 4096          /* slots, a power of two */

#endif
