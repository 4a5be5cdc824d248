/* InfiniBand LRH/GRH/BTH decoding and the opcode table (IBA vol. 1
 * ch. 9; FLUSH and ATOMIC WRITE from IBA 1.5 as in Linux ib_pack.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dissect/ib.h"

/* Extended-header sets per operation (the low 5 opcode bits). */
#define P IBH_PAYLOAD
#define OP(b, nm, h, k) [(b)] = { nm, (h), (k), 0 }

/* Operations shared by RC, UC, RD and XRC; the services differ only in
 * which of them exist and in the per-service headers added below. */
static const struct ib_opinfo ops[32] = {
	OP(0x00, "SEND First",                    P,                     IBK_SEND_FIRST),
	OP(0x01, "SEND Middle",                   P,                     IBK_SEND_MIDDLE),
	OP(0x02, "SEND Last",                     P,                     IBK_SEND_LAST),
	OP(0x03, "SEND Last with Immediate",      P | IBH_IMMDT,         IBK_SEND_LAST),
	OP(0x04, "SEND Only",                     P,                     IBK_SEND_ONLY),
	OP(0x05, "SEND Only with Immediate",      P | IBH_IMMDT,         IBK_SEND_ONLY),
	OP(0x06, "RDMA WRITE First",              P | IBH_RETH,          IBK_WRITE_FIRST),
	OP(0x07, "RDMA WRITE Middle",             P,                     IBK_WRITE_MIDDLE),
	OP(0x08, "RDMA WRITE Last",               P,                     IBK_WRITE_LAST),
	OP(0x09, "RDMA WRITE Last with Immediate", P | IBH_IMMDT,        IBK_WRITE_LAST),
	OP(0x0a, "RDMA WRITE Only",               P | IBH_RETH,          IBK_WRITE_ONLY),
	OP(0x0b, "RDMA WRITE Only with Immediate", P | IBH_RETH | IBH_IMMDT, IBK_WRITE_ONLY),
	OP(0x0c, "RDMA READ Request",             IBH_RETH,              IBK_READ_REQ),
	OP(0x0d, "RDMA READ Response First",      P | IBH_AETH,          IBK_READ_RESP_FIRST),
	OP(0x0e, "RDMA READ Response Middle",     P,                     IBK_READ_RESP_MIDDLE),
	OP(0x0f, "RDMA READ Response Last",       P | IBH_AETH,          IBK_READ_RESP_LAST),
	OP(0x10, "RDMA READ Response Only",       P | IBH_AETH,          IBK_READ_RESP_ONLY),
	OP(0x11, "Acknowledge",                   IBH_AETH,              IBK_ACK),
	OP(0x12, "ATOMIC Acknowledge",            IBH_AETH | IBH_ATOMICACKETH, IBK_ATOMIC_ACK),
	OP(0x13, "CmpSwap",                       IBH_ATOMICETH,         IBK_ATOMIC),
	OP(0x14, "FetchAdd",                      IBH_ATOMICETH,         IBK_ATOMIC),
	OP(0x15, "RESYNC",                        0,                     IBK_RESYNC),
	OP(0x16, "SEND Last with Invalidate",     P | IBH_IETH,          IBK_SEND_LAST),
	OP(0x17, "SEND Only with Invalidate",     P | IBH_IETH,          IBK_SEND_ONLY),
	OP(0x1c, "FLUSH",                         IBH_FETH | IBH_RETH,   IBK_FLUSH),
	OP(0x1d, "ATOMIC WRITE",                  P | IBH_RETH,          IBK_ATOMIC_WRITE),
};

/* Which operations each service has (bit n = op n). */
#define OPS_RC  (0x3fffffu | (1u << 0x16) | (1u << 0x17) | (1u << 0x1c) | (1u << 0x1d))
#define OPS_RC_NO_RESYNC (OPS_RC & ~(1u << 0x15))
#define OPS_UC  (0x0fffu & ~(1u << 0x0c))        /* SEND and WRITE only */
#define OPS_RD  (0x3fffffu)                      /* incl. RESYNC, no Inv */
#define OPS_UD  ((1u << 0x04) | (1u << 0x05))

static struct ib_opinfo table[256];
static const struct ib_opinfo reserved = { "reserved", 0, IBK_INVALID, 0 };

/* Names are "RC SEND Only" etc.; built once into static storage so the
 * lookup in the hot path is one array index. */
static char names[256][40];

static void fill(unsigned svc, const char *prefix, uint32_t mask, uint16_t extra)
{
	for (unsigned op = 0; op < 32; op++) {
		unsigned code = (svc << 5) | op;
		if (!(mask & (1u << op)) || !ops[op].name)
			continue;
		struct ib_opinfo *o = &table[code];
		snprintf(names[code], sizeof(names[code]), "%s %s", prefix, ops[op].name);
		o->name = names[code];
		o->hdrs = ops[op].hdrs | extra;
		o->kind = ops[op].kind;
		o->service = (uint8_t)svc;
	}
}

static void build_table(void)
{
	for (unsigned i = 0; i < 256; i++)
		table[i] = reserved;
	fill(IBS_RC, "RC", OPS_RC_NO_RESYNC, 0);
	fill(IBS_UC, "UC", OPS_UC, 0);
	fill(IBS_RD, "RD", OPS_RD, IBH_RDETH | IBH_DETH);
	fill(IBS_UD, "UD", OPS_UD, IBH_DETH);
	fill(IBS_XRC, "XRC", OPS_RC_NO_RESYNC, IBH_XRCETH);
	/* RD acknowledgements carry no DETH (IBA 9.3.3). */
	for (unsigned op = 0x0d; op <= 0x12; op++)
		table[(IBS_RD << 5) | op].hdrs &= (uint16_t)~IBH_DETH;
	table[0x81] = (struct ib_opinfo){ "CNP", 0, IBK_CNP, IBS_CNP };
}

/* Built before main(); the table is read-only afterwards. */
__attribute__((constructor)) static void ib_table_init(void)
{
	build_table();
}

const struct ib_opinfo *ib_opinfo(uint8_t opcode)
{
	return &table[opcode];
}

const char *ib_aeth_name(uint8_t syn)
{
	static const char *const nak[] = {
		"NAK PSN sequence error", "NAK invalid request", "NAK remote access error",
		"NAK remote operational error", "NAK invalid RD request",
	};
	switch (ib_aeth_class(syn)) {
	case AETH_ACK:     return "ACK";
	case AETH_RNR_NAK: return "RNR NAK";
	case AETH_NAK:     return (syn & 0x1f) < 5 ? nak[syn & 0x1f] : "NAK reserved code";
	default:           return "reserved syndrome";
	}
}

static int ib_parse_lrh(struct cursor *c, struct ib_lrh *l)
{
	uint8_t b0 = cur_u8(c, "LRH");
	uint8_t b1 = cur_u8(c, "LRH");
	l->dlid = cur_be16(c, "LRH DLID");
	uint16_t w = cur_be16(c, "LRH PktLen");
	l->slid = cur_be16(c, "LRH SLID");
	if (!cur_ok(c))
		return -EBADMSG;
	l->vl = b0 >> 4;
	l->lver = b0 & 0xf;
	l->sl = b1 >> 4;
	l->lnh = b1 & 3;
	l->pktlen = w & 0x7ff;
	return 0;
}

int ib_parse_grh(struct cursor *c, struct ib_grh *g)
{
	uint32_t w0 = cur_be32(c, "GRH");
	g->paylen = cur_be16(c, "GRH PayLen");
	g->nxthdr = cur_u8(c, "GRH NxtHdr");
	g->hoplmt = cur_u8(c, "GRH HopLmt");
	const uint8_t *s = cur_bytes(c, 16, "GRH SGID");
	const uint8_t *d = cur_bytes(c, 16, "GRH DGID");
	if (!cur_ok(c))
		return -EBADMSG;
	g->ipver = (uint8_t)(w0 >> 28);
	g->tclass = (uint8_t)(w0 >> 20);
	g->flow = w0 & 0xfffff;
	memcpy(g->sgid, s, 16);
	memcpy(g->dgid, d, 16);
	return 0;
}

int ib_parse_lrh_frame(struct cursor *c, size_t wire_len, struct ib_frame *f)
{
	struct ib_lrh l;
	size_t start = c->off, hdr = IB_LRH_LEN, pkt;

	f->layer = "ib";
	f->kind = IBF_IB;
	f->family = 'L';
	f->has_grh = false;
	f->sport = 0;
	if (ib_parse_lrh(c, &l) < 0)
		return -EBADMSG;
	f->slid = l.slid;
	f->dlid = l.dlid;
	memset(f->src, 0, sizeof(f->src));
	memset(f->dst, 0, sizeof(f->dst));
	if (l.lnh < 2)   /* raw or IPv6-in-IB without BTH: not ours */
		return 0;
	/* PktLen covers LRH..ICRC in 4-byte words; the VCRC follows it. */
	pkt = (size_t)l.pktlen * 4;
	if (pkt < IB_LRH_LEN + IB_BTH_LEN + (l.lnh == 3 ? IB_GRH_LEN : 0)) {
		c->off = start + 4;
		cur_fail(c, CUR_INVALID, "LRH PktLen shorter than the headers");
		return -EINVAL;
	}
	if (l.lnh == 3) {
		struct ib_grh g;
		if (ib_parse_grh(c, &g) < 0)
			return -EBADMSG;
		if (g.nxthdr != 0x1b) {  /* IBA transport */
			c->off = start + IB_LRH_LEN + 6;
			cur_fail(c, CUR_INVALID, "GRH NxtHdr is not 0x1B (IBA transport)");
			return -EINVAL;
		}
		f->has_grh = true;
		memcpy(f->src, g.sgid, 16);
		memcpy(f->dst, g.dgid, 16);
		f->ecn = g.tclass & 3;
		hdr += IB_GRH_LEN;
	}
	/* Trust PktLen for the end of the packet: it excludes the VCRC and any
	 * ERF padding.  A capture that dropped the ICRC is PktLen*4 - 4 long
	 * and has nothing to strip. */
	if (wire_len < pkt && wire_len + IB_ICRC_LEN != pkt) {
		c->off = start + 4;
		cur_fail(c, CUR_INVALID, "LRH PktLen longer than the packet");
		return -EINVAL;
	}
	f->wire_len = pkt - hdr - IB_ICRC_LEN;
	cur_clip_into(&f->bth, c, f->wire_len);
	return 1;
}

int ib_parse_bth(struct ib_frame *f, struct ib_pkt *p)
{
	struct cursor *c = &f->bth;
	size_t start = c->off;

	f->layer = "ib";
	p->opcode = cur_u8(c, "BTH");
	uint8_t b1 = cur_u8(c, "BTH");
	p->pkey = cur_be16(c, "BTH P_Key");
	p->dqpn = cur_be32(c, "BTH DestQP") & 0xffffff;
	uint32_t w = cur_be32(c, "BTH PSN");
	if (!cur_ok(c))
		return -EBADMSG;
	p->se = b1 >> 7;
	p->migreq = (b1 >> 6) & 1;
	p->pad = (b1 >> 4) & 3;
	p->tver = b1 & 0xf;
	p->ackreq = (uint8_t)(w >> 31);
	p->psn = w & 0xffffff;
	p->op = ib_opinfo(p->opcode);
	if (p->op->kind == IBK_INVALID) {
		c->off = start;
		cur_fail(c, CUR_INVALID, "BTH opcode is reserved");
		return -EINVAL;
	}
	if (p->tver != 0) {
		c->off = start + 1;
		cur_fail(c, CUR_INVALID, "BTH TVer is not 0");
		return -EINVAL;
	}

	uint16_t h = p->op->hdrs;
	if (h & IBH_RDETH)
		p->rdeth_eec = cur_be32(c, "RDETH") & 0xffffff;
	if (h & IBH_DETH) {
		p->deth_qkey = cur_be32(c, "DETH Q_Key");
		p->deth_srcqp = cur_be32(c, "DETH SrcQP") & 0xffffff;
	}
	if (h & IBH_XRCETH)
		p->xrc_srq = cur_be32(c, "XRCETH") & 0xffffff;
	if (h & IBH_FETH)
		p->feth = cur_be32(c, "FETH");
	if (h & IBH_RETH) {
		p->reth_va = cur_be64(c, "RETH VA");
		p->reth_rkey = cur_be32(c, "RETH R_Key");
		p->reth_len = cur_be32(c, "RETH DMA Length");
	}
	if (h & IBH_ATOMICETH) {
		p->atomic_va = cur_be64(c, "AtomicETH VA");
		p->atomic_rkey = cur_be32(c, "AtomicETH R_Key");
		p->atomic_swap = cur_be64(c, "AtomicETH Swap");
		p->atomic_cmp = cur_be64(c, "AtomicETH Compare");
	}
	if (h & IBH_AETH) {
		p->aeth_syn = cur_u8(c, "AETH Syndrome");
		p->aeth_msn = cur_be24(c, "AETH MSN");
	}
	if (h & IBH_ATOMICACKETH)
		p->atomic_orig = cur_be64(c, "AtomicAckETH");
	if (h & IBH_IMMDT)
		p->imm = cur_be32(c, "ImmDt");
	if (h & IBH_IETH)
		p->ieth_rkey = cur_be32(c, "IETH R_Key");
	if (!cur_ok(c))
		return -EBADMSG;

	/* Payload: what is left on the wire after the headers, minus pad.
	 * Headers are whole words and the pad aligns the payload, so the
	 * transport part is a multiple of 4 bytes. */
	size_t hdrs = c->off - start;
	if (f->wire_len & 3) {
		c->off = start + 1;
		cur_fail(c, CUR_INVALID, "transport length not a multiple of 4 (wrong pad count?)");
		return -EINVAL;
	}
	if (hdrs + p->pad > f->wire_len) {
		c->off = start + 1;
		cur_fail(c, CUR_INVALID, "packet shorter than its headers and pad");
		return -EINVAL;
	}
	p->payload_len = f->wire_len - hdrs - p->pad;
	if (!(h & IBH_PAYLOAD) && p->payload_len) {
		/* Extra bytes after a header-only packet: report, do not guess. */
		cur_fail(c, CUR_INVALID, "payload after a header-only opcode");
		return -EINVAL;
	}
	size_t avail = cur_left(c);
	p->payload_cap = avail < p->payload_len ? avail : p->payload_len;
	p->payload_off = c->off;
	p->payload = p->payload_cap ? cur_bytes(c, p->payload_cap, "payload") : NULL;
	return 0;
}

uint16_t roce_rxe_sport(uint32_t qpn)
{
	/* hash_32(qpn, 14) with GOLDEN_RATIO_32, as in rxe_qp.c. */
	uint32_t h = (qpn * 0x61C88647u) >> (32 - 14);
	return (uint16_t)(0xC000 + (h & 0x3fff));
}

uint16_t roce_flow_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	v ^= v >> 20;
	v ^= v >> 40;
	uint32_t fl = (uint32_t)(v & 0xfffff);
	uint32_t lo = fl & 0x3fff, hi = fl & 0xfc000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | 0xC000);
}
