/* InfiniBand transport headers: LRH, GRH, BTH and the extended transport
 * headers, the opcode table, and the common "RDMA frame" that every link
 * layer (native IB, ERF, RoCEv1, RoCEv2) reduces a packet to.  Native IB,
 * ERF type 21 and DLT_INFINIBAND all enter through ib_parse_lrh_frame, so
 * converted captures take exactly the same path as real ones. */
#ifndef NFSRDMA_IB_H
#define NFSRDMA_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"

#define IB_LRH_LEN   8
#define IB_GRH_LEN   40
#define IB_BTH_LEN   12
#define IB_ICRC_LEN  4
#define IB_VCRC_LEN  2

/* The cursor at c, narrowed to the next n bytes (or fewer if fewer were
 * captured), into *d -- field by field: the parsers have just advanced
 * c->off with narrow stores, and a wide copy of the struct right after
 * stalls store forwarding (it showed as a tenth of the packet path). */
static inline void cur_clip_into(struct cursor *d, const struct cursor *c, size_t n)
{
	size_t off = c->off, len = c->len;
	d->base = c->base;
	d->off = off;
	d->len = (off <= len && n < len - off) ? off + n : len;
	d->err = c->err;
	d->err_off = c->err_off;
	d->err_what = c->err_what;
}

/* Narrows a cursor to the next n bytes (or fewer if fewer were captured),
 * keeping offsets relative to the frame so diagnostics point into it. */
static inline void cur_clip(struct cursor *c, size_t n)
{
	if (c->off <= c->len && n < c->len - c->off)
		c->len = c->off + n;
}

/* Moves to an absolute offset (random access inside a fixed layout such
 * as a MAD); past the captured end it marks the cursor truncated instead,
 * so a later read can never run off the buffer. */
static inline bool cur_seek(struct cursor *c, size_t off, const char *what)
{
	if (c->err)
		return false;
	if (off > c->len) {
		cur_fail(c, CUR_TRUNCATED, what);
		return false;
	}
	c->off = off;
	return true;
}

/* What the link layers found: where the BTH starts, how long the IB
 * transport part is on the wire, and who sent it to whom. */
enum ib_frame_kind { IBF_ROCE_V2 = 1, IBF_ROCE_V1, IBF_IB };

struct ib_frame {
	uint8_t  kind;          /* ib_frame_kind */
	uint8_t  family;        /* rdma_endpoint family: 4, 6, 'G', 'L' */
	bool     has_grh;       /* native IB: a GRH was present (GIDs valid) */
	uint8_t  src[16], dst[16]; /* IPv4 in the first 4 bytes, IPv6 or GID */
	uint16_t slid, dlid;    /* native IB */
	uint16_t sport;         /* RoCEv2 UDP source port */
	uint8_t  ecn;           /* IP ECN bits / GRH traffic class low bits */
	/* Frame cursor positioned at the BTH, clipped to the end of the
	 * payload (pad included, ICRC and VCRC excluded) or to the captured
	 * bytes, whichever is shorter. */
	struct cursor bth;
	size_t   wire_len;      /* BTH .. end of payload on the wire */
	const char *layer;      /* on error: the layer that failed */
	/* RoCE only: bytes of ICRC the capture keeps after the payload (4,
	 * or 0 for a capture that lost them: see roce_parse_*_icrc), and
	 * where the IP header (RoCEv2) or GRH (RoCEv1) starts. */
	uint8_t  icrc_len;
	size_t   net_off;
	/* 4 or 6 once an IP header was found at net_off (also when the frame
	 * is not RoCE: TCP and UDP are read from there) */
	uint8_t  ip_ver;
};

/* Transport service, from the opcode's top 3 bits. */
enum ib_service { IBS_RC = 0, IBS_UC = 1, IBS_RD = 2, IBS_UD = 3, IBS_CNP = 4, IBS_XRC = 5 };

/* Extended header set of an opcode, in wire order. */
enum ib_hdr {
	IBH_RDETH        = 1u << 0,  /* 4 */
	IBH_DETH         = 1u << 1,  /* 8 */
	IBH_XRCETH       = 1u << 2,  /* 4 */
	IBH_FETH         = 1u << 3,  /* 4 (FLUSH) */
	IBH_RETH         = 1u << 4,  /* 16 */
	IBH_ATOMICETH    = 1u << 5,  /* 28 */
	IBH_AETH         = 1u << 6,  /* 4 */
	IBH_ATOMICACKETH = 1u << 7,  /* 8 */
	IBH_IMMDT        = 1u << 8,  /* 4 */
	IBH_IETH         = 1u << 9,  /* 4 */
	IBH_PAYLOAD      = 1u << 10, /* may carry payload */
};

/* What an opcode does, independent of service. */
enum ib_kind {
	IBK_INVALID = 0,
	IBK_SEND_FIRST, IBK_SEND_MIDDLE, IBK_SEND_LAST, IBK_SEND_ONLY,
	IBK_WRITE_FIRST, IBK_WRITE_MIDDLE, IBK_WRITE_LAST, IBK_WRITE_ONLY,
	IBK_READ_REQ,
	IBK_READ_RESP_FIRST, IBK_READ_RESP_MIDDLE, IBK_READ_RESP_LAST, IBK_READ_RESP_ONLY,
	IBK_ACK, IBK_ATOMIC_ACK, IBK_ATOMIC, IBK_RESYNC, IBK_FLUSH, IBK_ATOMIC_WRITE,
	IBK_CNP,
};

struct ib_opinfo {
	const char *name;   /* "RC SEND Only", ... ; "reserved" when invalid */
	uint16_t hdrs;      /* ib_hdr set */
	uint8_t  kind;      /* ib_kind */
	uint8_t  service;   /* ib_service */
};

/* Never NULL; reserved opcodes have kind IBK_INVALID. */
const struct ib_opinfo *ib_opinfo(uint8_t opcode);
static inline const char *ib_opcode_name(uint8_t opcode) { return ib_opinfo(opcode)->name; }
/* AETH syndrome, e.g. "ACK", "RNR NAK", "NAK PSN sequence error". */
const char *ib_aeth_name(uint8_t syndrome);

enum ib_aeth_class { AETH_ACK = 0, AETH_RNR_NAK = 1, AETH_RESERVED = 2, AETH_NAK = 3 };
enum ib_nak_code { NAK_PSN_SEQ = 0, NAK_INV_REQ = 1, NAK_REM_ACCESS = 2, NAK_REM_OP = 3, NAK_INV_RD_REQ = 4 };
static inline unsigned ib_aeth_class(uint8_t syn) { return syn >> 5; }

struct ib_lrh {
	uint8_t  vl, lver, sl, lnh;
	uint16_t dlid, slid, pktlen; /* pktlen in 4-byte words, LRH..ICRC */
};

struct ib_grh {
	uint8_t  ipver, tclass, nxthdr, hoplmt;
	uint32_t flow;
	uint16_t paylen;             /* bytes after the GRH, up to and incl. ICRC */
	uint8_t  sgid[16], dgid[16];
};

/* A decoded BTH and its extended headers. */
struct ib_pkt {
	uint8_t  opcode, se, migreq, pad, tver, ackreq;
	uint16_t pkey;
	uint32_t dqpn, psn;
	const struct ib_opinfo *op;
	/* extended headers (valid when op->hdrs has the bit) */
	uint32_t rdeth_eec;
	uint32_t deth_qkey, deth_srcqp;
	uint32_t xrc_srq;
	uint32_t feth;
	uint64_t reth_va;  uint32_t reth_rkey, reth_len;
	uint64_t atomic_va; uint32_t atomic_rkey; uint64_t atomic_swap, atomic_cmp;
	uint8_t  aeth_syn; uint32_t aeth_msn;
	uint64_t atomic_orig;
	uint32_t imm, ieth_rkey;
	/* payload: wire length excludes pad; captured part may be shorter */
	const uint8_t *payload;
	size_t   payload_len;   /* bytes on the wire, pad excluded */
	size_t   payload_cap;   /* bytes captured (<= payload_len) */
	size_t   payload_off;   /* frame offset of the payload */
};

/* Parses the LRH (and GRH when LNH says so) of a native IB packet that
 * starts at the cursor, and fills f.  wire_len is the packet length on the
 * wire from the LRH (VCRC and ICRC included, as in ERF and ibdump; a
 * packet without its CRCs is accepted too).  Returns 1 for an IBA
 * transport packet, 0 for raw/IP-non-IBA packets (LNH 0/1), negative errno
 * on bad input (cursor error set, f->layer names the layer). */
int ib_parse_lrh_frame(struct cursor *c, size_t wire_len, struct ib_frame *f);
int ib_parse_grh(struct cursor *c, struct ib_grh *g);

/* Parses the BTH and extended headers from f->bth (advanced past them).
 * Returns 0, or a negative errno with the cursor error set. */
int ib_parse_bth(struct ib_frame *f, struct ib_pkt *p);

/* 24-bit PSN arithmetic: signed distance a - b in (-2^23, 2^23]. */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}
static inline uint32_t psn_add(uint32_t a, uint32_t n) { return (a + n) & 0xffffff; }

/* Path MTU enum (CM REQ, 1..5) to bytes; 0 when unknown. */
static inline uint32_t ib_mtu_bytes(unsigned e) { return e >= 1 && e <= 5 ? 128u << e : 0; }

/* UDP source ports that RoCEv2 implementations derive from QP numbers;
 * used as pairing evidence, never as the only evidence of identity. */
/* Linux rxe: 0xC000 + hash_32(sender QPN, 14). */
uint16_t roce_rxe_sport(uint32_t qpn);
/* Linux rdma_get_udp_sport(rdma_calc_flow_label(lqpn, rqpn)), used by
 * mlx5 and others; symmetric in the two QPNs. */
uint16_t roce_flow_sport(uint32_t lqpn, uint32_t rqpn);

#endif
