/* The transport-side length bounds of dissect/ at their edge (issue 32,
 * item 2; the XDR ones are in test_bounds.c): each IP/UDP/TCP header
 * length at the most the packet holds decodes, one step more is INVALID
 * at that field; an RPC record mark of exactly RN_MARK_MAX (16 MiB) is a
 * fragment to read, one byte more is refused as not record marking,
 * counted, with one line naming it; an InfiniBand LRH's PktLen and an
 * ERF record's rlen at the least (and, for PktLen, the most) the packet
 * allows.  tests/unit/bounds_list.sh reads the sites of both tables. */
#include <errno.h>

#include "test_rpc_net.h"

#include "dissect/erf.h"
#include "dissect/ib.h"
#include "dissect/ip_l4.h"
#include "dissect/roce.h"
#include "dissect/rpc_net_int.h"

/* A packet from its IP header: IPv4 or IPv6, then UDP or TCP, then 4
 * bytes of payload, v the value of the field under test; F_EXTLEN: IPv6
 * with a hop-by-hop header alone (no next header). */
enum field { F_IHL, F_TOT, F_UDPLEN, F_TCPOFF, F_PLEN, F_EXTLEN, F_GRHLEN };

struct hcase {
	const char *site;
	enum field field;
	int ok, bad;           /* the edge, and one step past it */
	size_t err_off;        /* where the refusal points */
	bool roce;             /* through roce.c's own parser: UDP to 4791, BTH + ICRC (16 bytes) */
};

static const struct hcase hdrs[] = {
	{ "ip_l4.c:IPv4 header length < 20", F_IHL, 5, 4, 0, false },
	{ "ip_l4.c:IPv4 total length outside the frame", F_TOT, 32, 33, 2, false },
	{ "ip_l4.c:UDP length outside the IP payload", F_UDPLEN, 12, 13, 24, false },
	{ "ip_l4.c:TCP data offset outside the segment", F_TCPOFF, 6, 7, 32, false },
	{ "ip_l4.c:IPv6 payload length outside the frame", F_PLEN, 20, 21, 4, false },
	/* a hop-by-hop header filling the 16-byte payload: 16 fit, 24 do not */
	{ "ip_l4.c:IPv6 extension header outside the payload", F_EXTLEN, 1, 2, 41, false },
	/* RoCE's parser of the same headers (a 16-byte UDP payload) */
	{ "roce.c:IPv4 header length < 20", F_IHL, 5, 4, 0, true },
	{ "roce.c:IPv4 total length outside the frame", F_TOT, 44, 45, 2, true },
	{ "roce.c:UDP length outside the IP payload", F_UDPLEN, 24, 25, 24, true },
	{ "roce.c:RoCEv2 UDP payload shorter than BTH + ICRC", F_UDPLEN, 24, 23, 28, true },
	{ "roce.c:IPv6 payload length outside the frame", F_PLEN, 32, 33, 4, true },
	{ "roce.c:IPv6 extension header outside the payload", F_EXTLEN, 1, 2, 41, true },
	/* RoCEv1: a GRH then BTH + ICRC, PayLen 16 */
	{ "roce.c:RoCEv1 GRH PayLen outside the frame", F_GRHLEN, 16, 17, 4, true },
	{ "roce.c:RoCEv1 GRH PayLen outside the frame", F_GRHLEN, 16, 15, 4, true },
};

static size_t packet(uint8_t *b, enum field f, int v, bool roce)
{
	struct fb x = { .n = 0 };
	bool v6 = f == F_PLEN || f == F_EXTLEN, tcp = f == F_TCPOFF;
	size_t data = roce ? 16 : 4;
	size_t l4 = tcp ? 24 : 8 + data;       /* TCP: 4 bytes of options, no payload */

	if (f == F_GRHLEN) {
		fb_be32(&x, 0x60000000);
		fb_be16(&x, (uint16_t)v);
		fb_u8(&x, 0x1b);
		fb_u8(&x, 64);
		for (int i = 0; i < 32; i++)
			fb_u8(&x, (uint8_t)i);
		for (int i = 0; i < 16; i++)
			fb_u8(&x, i == 0 ? 0x04 : 0);   /* BTH: SEND_ONLY, then the ICRC */
		memcpy(b, x.b, x.n);
		return x.n;
	}
	if (!v6) {
		fb_u8(&x, (uint8_t)(0x40 | (f == F_IHL ? v : 5)));
		fb_u8(&x, 0);
		fb_be16(&x, (uint16_t)(f == F_TOT ? v : (int)(20 + l4)));
		fb_be32(&x, 0);
		fb_u8(&x, 64);
		fb_u8(&x, tcp ? 6 : 17);
		fb_be16(&x, 0);
		fb_be32(&x, 0x0a000001);
		fb_be32(&x, 0x0a000002);
	} else if (f == F_EXTLEN) {
		fb_be32(&x, 0x60000000);   /* payload 16: the hop-by-hop header alone */
		fb_be16(&x, 16);
		fb_u8(&x, 0);
		fb_u8(&x, 64);
		for (int i = 0; i < 32; i++)
			fb_u8(&x, (uint8_t)i);
		fb_u8(&x, 59);
		fb_u8(&x, (uint8_t)v);
		for (int i = 0; i < 14; i++)
			fb_u8(&x, 0);
		memcpy(b, x.b, x.n);
		return x.n;
	} else {
		/* a hop-by-hop header of 8 bytes before the UDP header */
		fb_be32(&x, 0x60000000);
		fb_be16(&x, (uint16_t)(f == F_PLEN ? v : (int)(8 + l4)));
		fb_u8(&x, 0);
		fb_u8(&x, 64);
		for (int i = 0; i < 32; i++)
			fb_u8(&x, (uint8_t)i);
		fb_u8(&x, 17);
		fb_u8(&x, 0);
		for (int i = 0; i < 6; i++)
			fb_u8(&x, 0);
	}
	if (tcp) {
		fb_be16(&x, 800);
		fb_be16(&x, 2049);
		fb_be32(&x, 1);
		fb_be32(&x, 0);
		fb_u8(&x, (uint8_t)(v << 4));
		fb_u8(&x, 0x18);
		fb_be16(&x, 65535);
		fb_be32(&x, 0);
		fb_be32(&x, 0x01010100);   /* options: NOP NOP NOP EOL */
	} else {
		fb_be16(&x, 800);
		fb_be16(&x, roce ? 4791 : 2049);
		fb_be16(&x, (uint16_t)(f == F_UDPLEN ? v : (int)(8 + data)));
		fb_be16(&x, 0);
		for (size_t i = 0; i < data; i++)
			fb_u8(&x, i == 0 && roce ? 0x04 : 0x11);
	}
	memcpy(b, x.b, x.n);
	return x.n;
}

static int parse(const struct hcase *k, struct cursor *c, size_t n, struct l4_pkt *p, struct ib_frame *f)
{
	memset(f, 0, sizeof(*f));
	if (k->field == F_GRHLEN)
		return roce_parse_ethertype(c, ETHERTYPE_ROCE, n, f);
	return k->roce ? roce_parse_ip(c, n, f) : ip_l4_parse(c, n, p);
}

static void header(const struct hcase *k)
{
	uint8_t b[128];
	struct l4_pkt p = { 0 };
	struct ib_frame f;

	size_t n = packet(b, k->field, k->ok, k->roce);
	struct cursor c = cur_make(b, n);
	int rc = parse(k, &c, n, &p, &f);
	int want = k->field == F_EXTLEN ? 0 : 1;   /* no next header: not TCP/UDP, but whole */
	CHECK(rc == want && cur_ok(&c), "%s: %d (the edge) must decode, got %d, %s (%s)", k->site, k->ok, rc,
	      cur_err_name(c.err), c.err_what ? c.err_what : "");
	if (want && k->roce)
		CHECK_EQ_U64(f.wire_len, 12);      /* BTH: the ICRC stripped */
	else if (want)
		CHECK_EQ_U64(p.wire_len, k->field == F_TCPOFF ? 0 : 4);
	else
		CHECK_EQ_U64(c.off, n);

	n = packet(b, k->field, k->bad, k->roce);
	c = cur_make(b, n);
	rc = parse(k, &c, n, &p, &f);
	const char *what = strchr(k->site, ':') + 1;
	CHECK(rc == -EINVAL && c.err == CUR_INVALID && c.err_what && !strcmp(c.err_what, what) &&
	      c.err_off == k->err_off, "%s: %d (one step past) must be INVALID at %zu, got %d, %s at %zu (%s)",
	      k->site, k->bad, k->err_off, rc, cur_err_name(c.err), c.err_off, c.err_what ? c.err_what : "");
}

/* Link headers: a native InfiniBand packet from its LRH (LNH 2: BTH
 * next; 3: a GRH first), PktLen v words, holding `body` bytes after the
 * headers (then the ICRC and the VCRC); an ERF record header of rlen v,
 * with one extension header when ext. */
enum lfield { L_LRH_MIN, L_GRH_MIN, L_LRH_MAX, L_ERF, L_ERF_EXT };

struct lcase {
	const char *site;
	enum lfield field;
	int ok, bad;
	size_t err_off;
};

static const struct lcase links[] = {
	/* LRH + BTH = 20 bytes = 5 words; with a GRH 60 = 15 */
	{ "ib.c:LRH PktLen shorter than the headers", L_LRH_MIN, 5, 4, 4 },
	{ "ib.c:LRH PktLen shorter than the headers", L_GRH_MIN, 15, 14, 4 },
	/* 32 bytes on the wire (LRH, BTH, 8 of payload, ICRC): 8 words, or 9
	 * when the capture dropped the ICRC; 10 is more than the packet */
	{ "ib.c:LRH PktLen longer than the packet", L_LRH_MAX, 9, 10, 4 },
	{ "erf.c:ERF rlen shorter than the header", L_ERF, 16, 15, 10 },
	{ "erf.c:ERF extension headers run past rlen", L_ERF_EXT, 24, 23, 16 },
};

static size_t link_hdr(uint8_t *b, enum lfield f, int v)
{
	struct fb x = { .n = 0 };

	if (f == L_ERF || f == L_ERF_EXT) {
		fb_be32(&x, 0);
		fb_be32(&x, 1);
		fb_u8(&x, (uint8_t)(ERF_TYPE_INFINIBAND_LINK | (f == L_ERF_EXT ? 0x80 : 0)));
		fb_u8(&x, 0);
		fb_be16(&x, (uint16_t)v);
		fb_be16(&x, 0);
		fb_be16(&x, 20);
		if (f == L_ERF_EXT)
			for (int i = 0; i < 8; i++)
				fb_u8(&x, i == 0 ? 0x05 : 0);   /* no further extension */
		memcpy(b, x.b, x.n);
		return x.n;
	}
	bool grh = f == L_GRH_MIN;
	size_t body = f == L_LRH_MAX ? 8 : 0;
	fb_u8(&x, 0x02);
	fb_u8(&x, grh ? 3 : 2);
	fb_be16(&x, 0x0011);
	fb_be16(&x, (uint16_t)v);
	fb_be16(&x, 0x0022);
	if (grh) {
		fb_be32(&x, 0x60000000);
		fb_be16(&x, (uint16_t)(12 + body + 4));
		fb_u8(&x, 0x1b);
		fb_u8(&x, 64);
		for (int i = 0; i < 32; i++)
			fb_u8(&x, (uint8_t)i);
	}
	fb_u8(&x, 0x04);    /* BTH: SEND_ONLY */
	for (int i = 1; i < 12; i++)
		fb_u8(&x, 0);
	for (size_t i = 0; i < body; i++)
		fb_u8(&x, 0x11);
	fb_be32(&x, 0);     /* ICRC */
	if (f != L_LRH_MAX)
		fb_be16(&x, 0); /* VCRC */
	memcpy(b, x.b, x.n);
	return x.n;
}

static int link_parse(enum lfield f, struct cursor *c, size_t n)
{
	if (f == L_ERF || f == L_ERF_EXT) {
		struct erf_hdr e;
		return erf_parse(c, &e);
	}
	struct ib_frame fr;
	memset(&fr, 0, sizeof(fr));
	int rc = ib_parse_lrh_frame(c, n, &fr);
	return rc;
}

static void link(const struct lcase *k)
{
	uint8_t b[128];
	size_t n = link_hdr(b, k->field, k->ok);
	struct cursor c = cur_make(b, n);
	int rc = link_parse(k->field, &c, n);
	int want = k->field == L_ERF || k->field == L_ERF_EXT ? 0 : 1;
	CHECK(rc == want && cur_ok(&c), "%s: %d (the edge) must decode, got %d, %s (%s)", k->site, k->ok, rc,
	      cur_err_name(c.err), c.err_what ? c.err_what : "");

	n = link_hdr(b, k->field, k->bad);
	c = cur_make(b, n);
	rc = link_parse(k->field, &c, n);
	const char *what = strchr(k->site, ':') + 1;
	CHECK(rc == -EINVAL && c.err == CUR_INVALID && c.err_what && !strcmp(c.err_what, what) &&
	      c.err_off == k->err_off, "%s: %d (one step past) must be INVALID at %zu, got %d, %s at %zu (%s)",
	      k->site, k->bad, k->err_off, rc, cur_err_name(c.err), c.err_off, c.err_what ? c.err_what : "");
}

struct mcase {
	const char *site;
	uint32_t len;
	bool refused;
};

static const struct mcase marks[] = {
	{ "rpc_record.c:RN_MARK_MAX", RN_MARK_MAX, false },
	{ "rpc_record.c:RN_MARK_MAX", RN_MARK_MAX + 1, true },
};

/* A stream opened by its SYN whose first record mark says len (the last
 * fragment), followed by the first bytes of a GETATTR call. */
static void mark(uint32_t len, bool refused)
{
	struct bs c = { .n = 0 };
	bs_mark(&c, true, len);
	c.n += call_msg(c.b + c.n, 0x81);

	start();
	syn();
	cseg(&c, 0, c.n);
	CHECK_EQ_U64(st()->rpc_bad_marks, refused ? 1 : 0);
	CHECK_EQ_U64(h.r.ndiag, refused ? 1 : 0);
	if (refused) {
		char want[32];
		snprintf(want, sizeof(want), "0x%08x", 0x80000000u | len);
		CHECK(h.r.ndiag == 1 && strstr(h.r.diag[0], want) && strstr(h.r.diag[0], "frame 3,"),
		      "one line naming frame 3 and the mark %s: %s", want, h.r.ndiag ? h.r.diag[0] : "");
	}
	th_done(&h);
}

/* The bytes one RPC message keeps: a record of exactly RN_COPY_MAX bytes
 * is kept whole (the buffer grows to that and no further); one byte more
 * keeps RN_COPY_MAX of them and flags the message cut. */
static const struct mcase copies[] = {
	{ "rpc_record.c:RN_COPY_MAX", (uint32_t)RN_COPY_MAX, false },
	{ "rpc_record.c:RN_COPY_MAX", (uint32_t)RN_COPY_MAX + 1, true },
};

static void copy_cap(uint32_t len, bool cut)
{
	static uint8_t rec[4 + RN_COPY_MAX + 1];
	size_t n = 0;
	put32(rec, &n, 0x80000000u | len);
	n += call_msg(rec + n, 0x82);
	memset(rec + n, 0x5a, 4 + len - n);
	n = 4 + (size_t)len;

	start();
	syn();
	for (size_t off = 0; off < n; off += 8000)
		tcp_seg(&cli, &srv, CISN + 1 + (uint32_t)off, 0x18, rec + off, n - off < 8000 ? n - off : 8000);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(e != NULL, "a record of %u bytes gives its message", len);
	if (e) {
		CHECK_EQ_U64(e->ev.msg_len, len);
		CHECK_EQ_U64(e->ev.data_len, cut ? RN_COPY_MAX : len);
		CHECK_EQ_U64(!!(e->ev.flags & RDMA_EVF_TRUNC_DATA), cut);
		CHECK(e->ev.data_len > 0 && rd32(e->ev.data) == 0x82 && e->ev.data[e->ev.data_len - 1] == 0x5a,
		      "the message's first and last kept bytes are the record's");
	}
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 1);
	th_done(&h);
}

/* A TCP segment of any size up to IPv4's (65,495 bytes of data), built
 * here since the harness's frames stop at 9 KiB. */
static void big_seg(const struct rhost *s, const struct rhost *d, uint32_t seq, const uint8_t *p, size_t n)
{
	static uint8_t f[14 + 20 + 20 + 65495];
	size_t k = 0;
	memcpy(f, d->mac, 6);
	memcpy(f + 6, s->mac, 6);
	f[12] = 0x08, f[13] = 0x00;
	k = 14;
	f[k++] = 0x45, f[k++] = 0;
	f[k++] = (uint8_t)((40 + n) >> 8), f[k++] = (uint8_t)(40 + n);
	f[k++] = 0, f[k++] = 1, f[k++] = 0x40, f[k++] = 0, f[k++] = 64, f[k++] = 6, f[k++] = 0, f[k++] = 0;
	put32(f, &k, s->ip);
	put32(f, &k, d->ip);
	f[k++] = (uint8_t)(s->sport >> 8), f[k++] = (uint8_t)s->sport;
	f[k++] = (uint8_t)(d->sport >> 8), f[k++] = (uint8_t)d->sport;
	put32(f, &k, seq);
	put32(f, &k, 0);
	f[k++] = 0x50, f[k++] = 0x18, f[k++] = 0xff, f[k++] = 0xff;
	put32(f, &k, 0);
	memcpy(f + k, p, n);
	h.ts += 1000;
	transport_packet(h.t, h.ts, ++h.frame, f, k + n, k + n);
}

/* Out-of-order segments held per direction: RN_OOO_SEGS of them (here
 * one call record each, all after a missing first one) wait for the gap
 * to fill, one more gives the gap up; so do RN_OOO_BYTES held bytes (128
 * segments of 32 KiB) and one byte more. */
struct ocase {
	const char *site;
	unsigned segs;
	size_t seg_len, last_len;   /* 0: one call record each */
	bool gives_up;
};

static const struct ocase ooo[] = {
	{ "tcp_reasm.c:RN_OOO_SEGS", RN_OOO_SEGS, 0, 0, false },
	{ "tcp_reasm.c:RN_OOO_SEGS", RN_OOO_SEGS + 1, 0, 0, true },
	{ "tcp_reasm.c:RN_OOO_BYTES", 128, 32768, 32768, false },
	{ "tcp_reasm.c:RN_OOO_BYTES", 128, 32768, 32769, true },
};

static void held(const struct ocase *k)
{
	static uint8_t buf[128 * 32768 + 64];
	start();
	syn();
	if (!k->seg_len) {
		struct bs c = { .n = 0 };
		for (unsigned i = 0; i <= k->segs; i++)
			bs_call(&c, 0x900 + i);
		for (unsigned i = 1; i <= k->segs; i++)
			cseg(&c, (size_t)i * REC_CALL, (size_t)(i + 1) * REC_CALL);
		CHECK_EQ_U64(st()->tcp_gaps, k->gives_up ? 1 : 0);
		cseg(&c, 0, REC_CALL);
		/* held: every call; given up: the first is lost, the rest come */
		CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), k->gives_up ? k->segs : k->segs + 1);
	} else {
		/* one record whose body is the held segments, after a first
		 * segment of 8 bytes that comes last */
		size_t total = 8 + (k->segs - 1) * k->seg_len + k->last_len, n = 0;
		put32(buf, &n, 0x80000000u | (uint32_t)(total - 4));
		put32(buf, &n, 0x77);
		memset(buf + 8, 0x33, total - 8);
		for (unsigned i = 0; i < k->segs; i++) {
			size_t off = 8 + (size_t)i * k->seg_len, len = i + 1 == k->segs ? k->last_len : k->seg_len;
			big_seg(&cli, &srv, CISN + 1 + (uint32_t)off, buf + off, len);
		}
		CHECK_EQ_U64(st()->tcp_gaps, k->gives_up ? 1 : 0);
		CHECK_EQ_U64(st()->tcp_out_of_order, k->gives_up ? k->segs - 1 : k->segs);
		big_seg(&cli, &srv, CISN + 1, buf, 8);
		CHECK_EQ_U64(st()->tcp_gaps, k->gives_up ? 1 : 0);
	}
	th_done(&h);
}

/* A segment up to 64 MiB ahead of the next expected byte is held for the
 * gap to fill; further ahead the stream is taken as lost track of. */
static void far_ahead(uint32_t ahead, bool lost)
{
	uint8_t p[8] = { 0 };
	start();
	syn();
	tcp_seg(&cli, &srv, CISN + 1 + ahead, 0x18, p, sizeof(p));
	CHECK(st()->tcp_out_of_order == !lost && st()->tcp_gaps == lost,
	      "a segment %u bytes ahead: %s (held %llu, gaps %llu)", ahead, lost ? "lost track" : "held",
	      (unsigned long long)st()->tcp_out_of_order, (unsigned long long)st()->tcp_gaps);
	th_done(&h);
}

/* The search for a record mark after the stream lost it covers a whole
 * segment of the largest size IPv4 allows: a call at its very end (at
 * 65,439, under RN_SCAN_MAX) is found.  A segment cannot be longer than
 * that, so RN_SCAN_MAX itself is never reached from the wire. */
static const struct mcase scans[] = {
	{ "rpc_record.c:RN_SCAN_MAX", 65495, false },
};

static void scan_cap(uint32_t seglen)
{
	static uint8_t g[65495];
	uint8_t bad[4] = { 0x81, 0x00, 0x00, 0x01 };   /* a fragment of 16 MiB + 1: not RPC */
	struct bs c = { .n = 0 };
	bs_call(&c, 0x91);

	start();
	syn();
	cseg(&c, 0, REC_CALL);
	tcp_seg(&cli, &srv, CISN + 1 + REC_CALL, 0x18, bad, 4);
	memset(g, 0, seglen);
	memcpy(g + seglen - REC_CALL, c.b, REC_CALL);
	g[seglen - REC_CALL + 7] = 0x92;               /* its own xid */
	big_seg(&cli, &srv, CISN + 1 + REC_CALL + 4, g, seglen);
	CHECK_EQ_U64(st()->rpc_bad_marks, 1);
	CHECK_EQ_U64(st()->rpc_resyncs, 1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 2);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(e && e->ev.data_len == CALL_LEN && rd32(e->ev.data) == 0x92,
	      "rpc_record.c:RN_SCAN_MAX: the call found at the end of a 65,495-byte segment");
	th_done(&h);
}

/* An IP fragment reaching to FRAG_BYTES (64 KiB) is taken, one byte past
 * it is dropped with one line. */
static const struct mcase frags[] = {
	{ "ip_frag.c:FRAG_BYTES", 65536, false },
	{ "ip_frag.c:FRAG_BYTES", 65537, true },
};

static void frag_cap(uint32_t end, bool refused)
{
	uint8_t p[16];
	memset(p, 0x44, sizeof(p));
	struct fb f;
	uint32_t off = 65528;
	fb_eth_ipv4(&f, &cli, &srv, 17, end - off, 9, (uint16_t)(off / 8));
	fb_mem(&f, p, end - off);
	start();
	th_feed(&h, &f);
	CHECK_EQ_U64(st()->ip_frags, 1);
	CHECK_EQ_U64(st()->ip_frag_dropped, refused ? 1 : 0);
	CHECK_EQ_U64(h.r.ndiag, refused ? 1 : 0);
	if (refused)
		CHECK(h.r.ndiag == 1 && strstr(h.r.diag[0], "beyond 64 KiB") && strstr(h.r.diag[0], "frame 1,"),
		      "one line naming frame 1 and the 64 KiB: %s", h.r.ndiag ? h.r.diag[0] : "");
	th_done(&h);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++)
		header(&hdrs[i]);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		link(&links[i]);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		mark(marks[i].len, marks[i].refused);
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
		copy_cap(copies[i].len, copies[i].refused);
	for (size_t i = 0; i < sizeof(ooo) / sizeof(ooo[0]); i++)
		held(&ooo[i]);
	scan_cap(scans[0].len);
	far_ahead(64u << 20, false);
	far_ahead((64u << 20) + 1, true);
	for (size_t i = 0; i < sizeof(frags) / sizeof(frags[0]); i++)
		frag_cap(frags[i].len, frags[i].refused);
	return check_summary("test_bounds_net");
}
