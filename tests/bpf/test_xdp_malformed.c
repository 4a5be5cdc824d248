/* Malformed, truncated and re-framed packets through the XDP fast path
 * with BPF_PROG_TEST_RUN.  Every variant is built from a real RoCE frame of
 * the captures given as arguments:
 *
 *   - cut at every length from 14 bytes to the end of the RPC-over-RDMA
 *     header, and at the last bytes;
 *   - one header field at a time set to an impossible value (IP version,
 *     IHL, total length, UDP length, BTH opcode, TVer, pad, ...), and the
 *     RPC-over-RDMA header broken (version, procedure, discriminator,
 *     segment counts, cut short inside a consistent packet);
 *   - 20000 frames with random bytes overwritten in the headers
 *     (fixed seed);
 *   - re-framed as 802.1Q, QinQ, four and five tags, IPv6 and RoCEv1, so
 *     the other parse paths meet real payloads too.
 *
 * Each must return XDP_PASS, and its record (or the absence of one) must
 * equal what the dissector's decoders say about the same bytes (the
 * oracle of tests/xdp/xdp_test.h); the program's malformed counter must
 * equal the number of variants the dissector rejects.  Needs root. */
#include "../xdp/xdp_test.h"

static struct txdp X;
static unsigned variants, mismatches, not_pass, want_mal, want_rr_bad;
static const char *cur_what;

static void try_frame(const uint8_t *p, size_t len, const char *what)
{
	struct xdp_roce_rec e;
	size_t before = X.recs.n;

	if (len < 14)
		return;
	variants++;
	int act = txdp_run(&X, p, len);
	if (act != XDP_PASS)
		not_pass++;
	int has = oracle(p, len, X.skel->bss->frame_seq, X.snap, &e);
	if (has && e.status == XR_MALFORMED)
		want_mal++;
	if (has && e.status == XR_ROCE && e.rr_status >= RR_SHORT)
		want_rr_bad++;
	struct xdp_roce_rec gbuf;
	const struct xdp_roce_rec *g;
	const char *why = trec_verdict(&X.recs, before, has, &e, p, &gbuf, &g);
	if (why) {
		if (mismatches++ < 10)
			fprintf(stderr, "%s / %s (len %zu): %s differs\n", cur_what, what, len, why);
	}
	trecs_clear(&X.recs);
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v & 0xffff); }

/* Offsets of a plain Ethernet/IPv4/UDP RoCEv2 frame. */
struct lay {
	size_t ip, udp, bth, pay;
	size_t paylen;
	int rr;     /* SEND First/Only with a v1 header */
};

static int layout(const uint8_t *p, size_t len, struct lay *l)
{
	struct xdp_roce_rec e;

	if (len < 14 + 20 + 8 + 12 || p[12] != 0x08 || p[13] != 0x00)
		return -1;
	if (oracle(p, len, 1, 0, &e) != 1 || e.status != XR_ROCE || e.family != 4)
		return -1;
	l->ip = 14;
	l->udp = 14 + (size_t)(p[14] & 0xf) * 4;
	l->bth = l->udp + 8;
	l->pay = e.payload_off;
	l->paylen = e.payload_len;
	l->rr = e.rr_status == RR_OK;
	return 0;
}

static void corruptions(const uint8_t *f, size_t len, const struct lay *l)
{
	uint8_t *b = malloc(len + 64);
	if (!b)
		return;
#define MUT(name, stmt) do { memcpy(b, f, len); stmt; try_frame(b, len, name); } while (0)
	MUT("ip version 5", b[l->ip] = (uint8_t)((b[l->ip] & 0xf) | 0x50));
	MUT("ip ihl 4", b[l->ip] = 0x44);
	MUT("ip ihl 15", b[l->ip] = 0x4f);
	MUT("ip tot_len 0xffff", put16(b + l->ip + 2, 0xffff));
	MUT("ip tot_len 10", put16(b + l->ip + 2, 10));
	MUT("ip fragment", put16(b + l->ip + 6, 0x2000));
	MUT("ip DF only", put16(b + l->ip + 6, 0x4000));
	MUT("udp len 7", put16(b + l->udp + 4, 7));
	MUT("udp len 0xffff", put16(b + l->udp + 4, 0xffff));
	MUT("udp len 23", put16(b + l->udp + 4, 23));
	MUT("udp len -1", put16(b + l->udp + 4, ((unsigned)b[l->udp + 4] << 8 | b[l->udp + 5]) - 1));
	MUT("udp len -4", put16(b + l->udp + 4, ((unsigned)b[l->udp + 4] << 8 | b[l->udp + 5]) - 4));
	MUT("udp dport 4792", put16(b + l->udp + 2, 4792));
	MUT("bth opcode 0x18", b[l->bth] = 0x18);
	MUT("bth opcode 0x9f", b[l->bth] = 0x9f);
	MUT("bth opcode UC READ", b[l->bth] = 0x2c);
	MUT("bth opcode CNP", b[l->bth] = 0x81);
	MUT("bth opcode UD SEND", b[l->bth] = 0x64);
	MUT("bth opcode RD SEND", b[l->bth] = 0x44);
	MUT("bth opcode XRC SEND", b[l->bth] = 0xa4);
	MUT("bth opcode ACK", b[l->bth] = 0x11);
	MUT("bth opcode READ req", b[l->bth] = 0x0c);
	MUT("bth opcode atomic", b[l->bth] = 0x13);
	MUT("bth tver 1", b[l->bth + 1] |= 1);
	MUT("bth pad 3", b[l->bth + 1] |= 0x30);
	MUT("ethertype 802.3 length", put16(b + 12, 0x05dc));
	MUT("ethertype unknown", put16(b + 12, 0x88cc));
	if (l->rr) {
		MUT("rpcrdma vers 2", put32(b + l->pay + 4, 2));
		MUT("rpcrdma vers 0", put32(b + l->pay + 4, 0));
		MUT("rpcrdma proc 7", put32(b + l->pay + 12, 7));
		MUT("rpcrdma proc DONE", put32(b + l->pay + 12, 3));
		MUT("rpcrdma proc ERROR vers", (put32(b + l->pay + 12, 4), put32(b + l->pay + 16, 1)));
		MUT("rpcrdma proc ERROR chunk", (put32(b + l->pay + 12, 4), put32(b + l->pay + 16, 2)));
		MUT("rpcrdma proc ERROR 9", (put32(b + l->pay + 12, 4), put32(b + l->pay + 16, 9)));
		MUT("rpcrdma proc MSGP", put32(b + l->pay + 12, 2));
		MUT("rpcrdma read disc 5", put32(b + l->pay + 16, 5));
		MUT("rpcrdma write disc 2", (put32(b + l->pay + 16, 0), put32(b + l->pay + 20, 2)));
		MUT("rpcrdma write nsegs 5000", (put32(b + l->pay + 16, 0), put32(b + l->pay + 20, 1),
						 put32(b + l->pay + 24, 5000)));
		MUT("rpcrdma write nsegs 200", (put32(b + l->pay + 16, 0), put32(b + l->pay + 20, 1),
						put32(b + l->pay + 24, 200)));
		MUT("rpcrdma reply nsegs 0", (put32(b + l->pay + 16, 0), put32(b + l->pay + 20, 0),
					      put32(b + l->pay + 24, 1), put32(b + l->pay + 28, 0)));
		/* Consistent packets whose SEND payload ends inside the header:
		 * the IP and UDP lengths shrink with it, so only the RPC-over-RDMA
		 * layer is short. */
		for (size_t cut = 0; cut < 40 && cut < l->paylen; cut += 4) {
			size_t nlen = l->pay + cut + 4;   /* + ICRC */
			memcpy(b, f, nlen);
			put16(b + l->ip + 2, (unsigned)(nlen - l->ip));
			put16(b + l->udp + 4, (unsigned)(nlen - l->udp));
			b[l->bth + 1] &= 0xcf;            /* pad 0 */
			try_frame(b, nlen, "rpcrdma cut short");
		}
		/* A Read list longer than the parser's bound: overflow */
		size_t n = 40, need = l->pay + 16 + n * 24 + 12 + 4;
		uint8_t *big = calloc(1, need);
		if (big) {
			memcpy(big, f, l->pay + 16);
			for (size_t i = 0; i < n; i++) {
				put32(big + l->pay + 16 + i * 24, 1);
				put32(big + l->pay + 16 + i * 24 + 4, (uint32_t)(i * 4096));
				put32(big + l->pay + 16 + i * 24 + 12, 4096);
			}
			put16(big + l->ip + 2, (unsigned)(need - l->ip));
			put16(big + l->udp + 4, (unsigned)(need - l->udp));
			big[l->bth + 1] &= 0xcf;
			try_frame(big, need, "rpcrdma 40 read segments");
			/* 30 segments: within the bound, parsed whole */
			size_t need2 = l->pay + 16 + 30 * 24 + 12 + 4;
			memset(big + l->pay + 16 + 30 * 24, 0, 12);
			put16(big + l->ip + 2, (unsigned)(need2 - l->ip));
			put16(big + l->udp + 4, (unsigned)(need2 - l->udp));
			try_frame(big, need2, "rpcrdma 30 read segments");
			free(big);
		}
	}
#undef MUT
	free(b);
}

/* Re-framings of an IPv4 RoCEv2 frame: VLAN tags, IPv6, RoCEv1. */
static void reframe(const uint8_t *f, size_t len, const struct lay *l)
{
	uint8_t *b = malloc(len + 128);
	if (!b)
		return;
	static const unsigned tags[][5] = {
		{ 0x8100 }, { 0x88a8, 0x8100 }, { 0x9100, 0x8100, 0x8100, 0x8100 },
		{ 0x8100, 0x8100, 0x8100, 0x8100, 0x8100 },
	};
	static const int ntags[] = { 1, 2, 4, 5 };
	for (int t = 0; t < 4; t++) {
		size_t o = 12;
		memcpy(b, f, 12);
		for (int i = 0; i < ntags[t]; i++, o += 4) {
			put16(b + o, tags[t][i]);
			put16(b + o + 2, 100 + (unsigned)i);
		}
		memcpy(b + o, f + 12, len - 12);
		try_frame(b, len + (size_t)ntags[t] * 4, "vlan");
		try_frame(b, o + 1, "vlan cut");
	}
	/* IPv6: same UDP datagram, 40-byte header */
	size_t udp_len = len - l->udp;
	unsigned ulen = (unsigned)f[l->udp + 4] << 8 | f[l->udp + 5];
	memcpy(b, f, 12);
	put16(b + 12, 0x86dd);
	memset(b + 14, 0, 40);
	b[14] = 0x60;
	b[15] = 0x20;                      /* traffic class low bits: ECN 2 */
	put16(b + 18, ulen);
	b[20] = 17;
	b[21] = 64;
	b[22] = 0xfe; b[23] = 0x80; b[37] = 0x01;   /* fe80::1 */
	b[38] = 0xfe; b[39] = 0x80; b[53] = 0x02;   /* fe80::2 */
	memcpy(b + 54, f + l->udp, udp_len);
	try_frame(b, 54 + udp_len, "ipv6");
	/* with a hop-by-hop and a destination-options header */
	{
		uint8_t *c = malloc(54 + 16 + udp_len);
		if (c) {
			memcpy(c, b, 54);
			c[20] = 0;                 /* hop-by-hop */
			put16(c + 18, ulen + 16);
			memset(c + 54, 0, 16);
			c[54] = 60; c[55] = 0;     /* -> dest opts, 8 bytes */
			c[62] = 17; c[63] = 0;     /* -> UDP, 8 bytes */
			memcpy(c + 70, f + l->udp, udp_len);
			try_frame(c, 70 + udp_len, "ipv6 ext");
			/* an extension longer than what is left of the payload
			 * (expressible when the datagram is under ~2 KB) */
			if (ulen / 8 + 1 <= 255) {
				c[63] = (uint8_t)(ulen / 8 + 1);
				try_frame(c, 70 + udp_len, "ipv6 ext too long");
			}
			free(c);
		}
	}
	put16(b + 18, ulen + 100);         /* payload length past the frame */
	try_frame(b, 54 + udp_len, "ipv6 plen");
	b[14] = 0x50;
	try_frame(b, 54 + udp_len, "ipv6 version");
	/* RoCEv1: GRH + the IB part of the UDP payload */
	size_t ib = ulen - 8;
	memcpy(b, f, 12);
	put16(b + 12, 0x8915);
	memset(b + 14, 0, 40);
	b[14] = 0x60;
	put16(b + 18, (unsigned)ib);
	b[20] = 0x1b;
	b[21] = 64;
	memcpy(b + 22, f + l->ip + 12, 4);  /* GIDs from the IPv4 addresses */
	memcpy(b + 38, f + l->ip + 16, 4);
	memcpy(b + 54, f + l->bth, ib);
	try_frame(b, 54 + ib, "rocev1");
	b[20] = 0x11;
	try_frame(b, 54 + ib, "rocev1 nxthdr");
	b[20] = 0x1b;
	put16(b + 18, 8);
	try_frame(b, 54 + ib, "rocev1 paylen");
	free(b);
}

int main(int argc, char **argv)
{
	unsigned frames = 0;
	uint32_t rng = 0x12345678;

	if (geteuid() != 0) {
		printf("bpf-xdp-malformed: needs root to load programs\n");
		return 1;
	}
	int err = txdp_open(&X, 256, 1);
	CHECK(err == 0, "load/verify xdp_roce: %d (%s)", err, strerror(-err));
	if (err)
		return check_summary("bpf-xdp-malformed");
	txdp_reset(&X);
	for (int i = 1; i < argc; i++) {
		struct tcap c;
		if (access(argv[i], R_OK) != 0) {
			CHECK_SKIP("%s absent", argv[i]);
			continue;
		}
		if (tcap_load(&c, argv[i]) < 0 || c.linktype != LINKTYPE_ETHERNET) {
			if (c.f)
				tcap_free(&c);
			continue;
		}
		cur_what = argv[i];
		/* A handful of distinct RoCE frames per capture: the first of
		 * each opcode. */
		int seen[256] = { 0 };
		for (size_t k = 0; k < c.n; k++) {
			struct lay l;
			const uint8_t *f = c.f[k].data;
			size_t len = c.f[k].cap;
			if (layout(f, len, &l) < 0 || seen[f[l.bth]]++)
				continue;
			frames++;
			size_t end = l.pay + (l.rr ? 64 : 8);
			for (size_t cut = 14; cut < len && cut <= end; cut++)
				try_frame(f, cut, "truncated");
			try_frame(f, len - 1, "truncated by 1");
			try_frame(f, len - 4, "truncated by 4");
			corruptions(f, len, &l);
			reframe(f, len, &l);
			/* random bytes in the first 96 */
			uint8_t *b = malloc(len);
			if (!b)
				continue;
			for (int r = 0; r < 400; r++) {
				memcpy(b, f, len);
				int nflip = 1 + (int)((rng = rng * 1103515245u + 12345u) >> 16) % 4;
				for (int j = 0; j < nflip; j++) {
					rng = rng * 1103515245u + 12345u;
					size_t pos = (rng >> 8) % (len < 96 ? len : 96);
					rng = rng * 1103515245u + 12345u;
					b[pos] = (uint8_t)(rng >> 16);
				}
				try_frame(b, len, "random bytes");
			}
			free(b);
		}
		tcap_free(&c);
	}
	CHECK(frames > 0, "no RoCE frame to mutate");
	CHECK(not_pass == 0, "%u of %u variants did not get XDP_PASS", not_pass, variants);
	CHECK(mismatches == 0, "%u of %u variants differ from the dissector", mismatches, variants);
	CHECK(want_mal > 0, "no variant was malformed");
	CHECK(want_rr_bad > 0, "no variant had a broken RPC-over-RDMA header");
	CHECK_EQ_U64(txdp_stat(&X, XS_MALFORMED), want_mal);
	CHECK_EQ_U64(txdp_stat(&X, XS_FRAMES), variants);
	printf("bpf-xdp-malformed: %u variants of %u frames, %u malformed, %u broken RPC-over-RDMA headers, all XDP_PASS, records agree with the dissector\n",
	       variants, frames, want_mal, want_rr_bad);
	txdp_close(&X);
	return check_summary("bpf-xdp-malformed");
}
