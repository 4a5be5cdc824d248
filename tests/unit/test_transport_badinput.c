/* The transport bad-input corpus (tests/badinput/transport): each NAME.bin
 * (fuzz_transport input format, tests/fuzz/fuzz_transport_input.h) must
 * produce exactly the diagnostics in NAME.expect, one per line
 * ("frame N, offset O: layer: message"; empty file = none), and never
 * crash.  The corpus is written by this program:
 *     build/tests/test_transport_badinput --generate tests/badinput/transport
 * (review the .expect files it writes before committing them). */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"
#include "dissect/erf.h"
#include "dissect/ib.h"
#include "test_transport_frames.h"
#include "tests/fuzz/fuzz_transport_input.h"

static const struct rhost C = { { 0x52, 0x54, 0, 0, 0, 2 }, 0x0a090002, 0xc002 };
static const struct rhost S = { { 0x52, 0x54, 0, 0, 0, 1 }, 0x0a090001, 0xc001 };

enum { M_ETH = 0, M_SLL = 1, M_ERF = 2, M_IB = 3, M_SLL2 = 4, M_IPOIB = 5, M_CAP = 0x40, M_MULTI = 0x80 };

struct input {
	uint8_t b[16384];
	size_t n;
};

static void in_single(struct input *in, uint8_t mode, const struct fb *f, size_t len)
{
	in->b[0] = mode;
	memcpy(in->b + 1, f->b, len);
	in->n = 1 + len;
}

static void in_start(struct input *in, uint8_t mode)
{
	in->b[0] = (uint8_t)(mode | M_MULTI);
	in->n = 1;
}

static void in_add(struct input *in, const struct fb *f, size_t caplen, uint8_t x)
{
	in->b[in->n++] = (uint8_t)(caplen >> 8);
	in->b[in->n++] = (uint8_t)caplen;
	in->b[in->n++] = x;
	memcpy(in->b + in->n, f->b, caplen);
	in->n += caplen;
}

static uint8_t pl[4096];

static void send_only(struct ibp *p, uint32_t dqpn, uint32_t psn, size_t n)
{
	ibp_init(p, 0x04, dqpn, psn);
	p->payload = pl;
	p->plen = n;
}

/* An IPv4 header from C to S (no options unless ihl says so). */
static void fb_ipv4_hdr(struct fb *f, uint8_t ihl, uint16_t total, uint8_t proto)
{
	fb_u8(f, (uint8_t)(0x40 | ihl));
	fb_u8(f, 0);
	fb_be16(f, total);
	fb_zero(f, 4);
	fb_u8(f, 64);
	fb_u8(f, proto);
	fb_zero(f, 2);
	fb_be32(f, C.ip);
	fb_be32(f, S.ip);
}

/* IP over InfiniBand: DLT_IPOIB frames (40 bytes of addresses, the
 * encapsulation header) and an IPoIB datagram in a native UD SEND. */
static void ipoib_cases(void (*fn)(const char *name, const struct input *in, void *ctx), void *ctx)
{
	static struct fb f, ip;
	static struct input in;
	struct ibp p;

	f.n = 0;
	fb_zero(&f, 30);
	in_single(&in, M_IPOIB, &f, f.n);
	fn("ipoib-short", &in, ctx);

	f.n = 0;
	fb_zero(&f, 40);
	fb_be32(&f, 0x08000000u);
	fb_ipv4_hdr(&f, 3, 40, 6);
	fb_zero(&f, 20);
	in_single(&in, M_IPOIB, &f, f.n);
	fn("ipoib-ipv4-ihl", &in, ctx);

	ip.n = 0;
	fb_be32(&ip, 0x08000000u);
	fb_ipv4_hdr(&ip, 5, 400, 6);
	fb_zero(&ip, 20);
	ibp_init(&p, 0x64, 0x552, 7);
	ibp_deth(&p, 0x0b1b, 0x551);
	p.payload = ip.b;
	p.plen = ip.n;
	fb_ib(&f, 2, 1, NULL, NULL, &p);
	in_single(&in, M_IB, &f, f.n);
	fn("ib-ud-ipoib-total-length", &in, ctx);
}

/* Calls fn(name, input) for every case. */
static void cases(void (*fn)(const char *name, const struct input *in, void *ctx), void *ctx)
{
	static struct fb f;
	static struct input in;
	struct ibp p;
	uint8_t mad[256];

	send_only(&p, 0x200, 1, 20);
	fb_rocev2(&f, &C, &S, &p);

	in_single(&in, M_ETH, &f, 10);
	fn("eth-short", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	f.b[14] = 0x44;
	in_single(&in, M_ETH, &f, f.n);
	fn("ipv4-ihl", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	fb_put_be16(&f, 16, 9000);
	in_single(&in, M_ETH, &f, f.n);
	fn("ipv4-total-length", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	fb_put_be16(&f, 38, 6);
	in_single(&in, M_ETH, &f, f.n);
	fn("udp-length", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	fb_put_be16(&f, 38, 8 + 12);
	in_single(&in, M_ETH, &f, f.n);
	fn("roce-no-room-for-icrc", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	f.b[42] = 0x15;
	in_single(&in, M_ETH, &f, f.n);
	fn("bth-reserved-opcode", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	f.b[43] |= 0x03;
	in_single(&in, M_ETH, &f, f.n);
	fn("bth-tver", &in, ctx);

	fb_rocev2(&f, &C, &S, &p);
	in_start(&in, M_ETH);
	in_add(&in, &f, 42 + 7, 10);
	fn("bth-truncated", &in, ctx);

	ibp_init(&p, 0x0c, 0x200, 5);
	ibp_reth(&p, 0x1000, 0x42, 4096);
	fb_rocev2(&f, &C, &S, &p);
	in_start(&in, M_ETH);
	in_add(&in, &f, 42 + 12 + 9, 10);
	fn("reth-truncated", &in, ctx);

	ibp_init(&p, 0x11, 0x100, 5);
	ibp_aeth(&p, 0x1f, 0);
	p.payload = pl;
	p.plen = 8;
	fb_rocev2(&f, &S, &C, &p);
	in_single(&in, M_ETH, &f, f.n);
	fn("ack-with-payload", &in, ctx);

	send_only(&p, 0x200, 1, 0);
	p.pad = 3;
	fb_rocev2(&f, &C, &S, &p);
	in_single(&in, M_ETH, &f, f.n);
	fn("pad-without-payload", &in, ctx);

	send_only(&p, 0x200, 1, 20);
	f.n = 0;
	fb_mem(&f, S.mac, 6);
	fb_mem(&f, C.mac, 6);
	fb_be16(&f, 0x8100);
	fb_u8(&f, 0);
	in_single(&in, M_ETH, &f, f.n);
	fn("vlan-truncated", &in, ctx);

	f.n = 0;
	fb_mem(&f, S.mac, 6);
	fb_mem(&f, C.mac, 6);
	fb_be16(&f, 0x8915);
	fb_be32(&f, 0x60000000u);
	fb_be16(&f, 500);
	fb_u8(&f, 0x1b);
	fb_u8(&f, 1);
	fb_zero(&f, 32);
	fb_ib_transport(&f, &p);
	fb_be32(&f, 0);
	in_single(&in, M_ETH, &f, f.n);
	fn("rocev1-paylen", &in, ctx);

	f.n = 0;
	fb_mem(&f, S.mac, 6);
	fb_mem(&f, C.mac, 6);
	fb_be16(&f, 0x86dd);
	fb_be32(&f, 0x60000000u);
	fb_be16(&f, 1000);
	fb_u8(&f, 17);
	fb_u8(&f, 64);
	fb_zero(&f, 32);
	fb_zero(&f, 8);
	in_single(&in, M_ETH, &f, f.n);
	fn("ipv6-payload-length", &in, ctx);

	/* ERF */
	fb_ib(&f, 2, 1, NULL, NULL, &p);
	fb_erf_wrap(&f, ERF_TYPE_INFINIBAND, false);
	fb_put_be16(&f, 10, 12);
	in_single(&in, M_ERF, &f, f.n);
	fn("erf-rlen", &in, ctx);

	fb_ib(&f, 2, 1, NULL, NULL, &p);
	fb_erf_wrap(&f, ERF_TYPE_INFINIBAND, true);
	memset(f.b + 16, 0x80, f.n - 16);
	in_single(&in, M_ERF, &f, f.n);
	fn("erf-extension-runaway", &in, ctx);

	fb_ib(&f, 2, 1, NULL, NULL, &p);
	fb_erf_wrap(&f, ERF_TYPE_INFINIBAND, false);
	in_single(&in, M_ERF, &f, 12);
	fn("erf-truncated", &in, ctx);

	/* native IB */
	fb_ib(&f, 2, 1, NULL, NULL, &p);
	in_single(&in, M_IB, &f, f.n - 10);
	fn("ib-pktlen-past-packet", &in, ctx);

	fb_ib(&f, 2, 1, NULL, NULL, &p);
	fb_put_be16(&f, 4, 3);
	in_single(&in, M_IB, &f, f.n);
	fn("ib-pktlen-below-headers", &in, ctx);

	uint8_t g[16] = { 0xfe, 0x80 };
	fb_ib(&f, 2, 1, g, g, &p);
	f.b[8 + 6] = 0x3b;
	in_single(&in, M_IB, &f, f.n);
	fn("ib-grh-nxthdr", &in, ctx);

	fb_ib(&f, 2, 1, NULL, NULL, &p);
	in_single(&in, M_IB, &f, 5);
	fn("ib-lrh-truncated", &in, ctx);

	/* cooked */
	fb_rocev2(&f, &C, &S, &p);
	in_single(&in, M_SLL, &f, 9);
	fn("sll-truncated", &in, ctx);
	in_single(&in, M_SLL2, &f, 15);
	fn("sll2-truncated", &in, ctx);

	/* CM MAD cut by the snaplen */
	{
		struct cmspec s;
		memset(&s, 0, sizeof(s));
		s.attr = 0x13;
		s.local_qpn = 0x200;
		ibp_cm(&p, mad, &s, 1);
		fb_rocev2(&f, &S, &C, &p);
		in_start(&in, M_ETH);
		in_add(&in, &f, 42 + 12 + 8 + 30, 60);
		fn("cm-mad-truncated", &in, ctx);
	}

	/* Valid conversations: no diagnostic (seeds for the fuzzer too). */
	{
		struct cmspec s;
		in_start(&in, M_ETH);
		memset(&s, 0, sizeof(s));
		s.attr = 0x10;
		s.local_comm = 1;
		s.service_id = 0x0000000001064e51ull;
		s.local_qpn = 0x100;
		s.start_psn = 10;
		s.mtu = 3;
		s.cma_hdr = true;
		s.cma_src = C.ip;
		s.cma_dst = S.ip;
		s.rpcrdma = true;
		s.rr_version = 1;
		s.rr_flags = 1;
		s.rr_send = 3;
		s.rr_recv = 3;
		ibp_cm(&p, mad, &s, 1);
		fb_rocev2(&f, &C, &S, &p);
		in_add(&in, &f, f.n, 0);
		s.attr = 0x13;
		s.local_comm = 2;
		s.remote_comm = 1;
		s.local_qpn = 0x200;
		s.start_psn = 20;
		s.cma_hdr = false;
		ibp_cm(&p, mad, &s, 1);
		fb_rocev2(&f, &S, &C, &p);
		in_add(&in, &f, f.n, 0);
		static const uint8_t ops[] = { 0x00, 0x01, 0x02 };
		for (int i = 0; i < 3; i++) {
			ibp_init(&p, ops[i], 0x200, 20 + (uint32_t)i);
			p.payload = pl;
			p.plen = i < 2 ? 1024 : 100;
			fb_rocev2(&f, &C, &S, &p);
			in_add(&in, &f, f.n, 0);
		}
		ibp_init(&p, 0x0c, 0x100, 10);
		ibp_reth(&p, 0x5000, 7, 2000);
		fb_rocev2(&f, &S, &C, &p);
		in_add(&in, &f, f.n, 0);
		ibp_init(&p, 0x0d, 0x200, 10);
		ibp_aeth(&p, 0x1f, 0);
		p.payload = pl;
		p.plen = 1024;
		fb_rocev2(&f, &C, &S, &p);
		in_add(&in, &f, f.n, 0);
		ibp_init(&p, 0x0f, 0x200, 11);
		ibp_aeth(&p, 0x1f, 0);
		p.payload = pl;
		p.plen = 976;
		fb_rocev2(&f, &C, &S, &p);
		in_add(&in, &f, f.n, 0);
		ibp_init(&p, 0x0a, 0x100, 12);
		ibp_reth(&p, 0x6000, 8, 33);
		p.payload = pl;
		p.plen = 33;
		fb_rocev2(&f, &S, &C, &p);
		in_add(&in, &f, f.n - 20, 5);                /* snaplen cut */
		ibp_init(&p, 0x17, 0x100, 13);
		ibp_ext_be32(&p, 8);
		p.payload = pl;
		p.plen = 60;
		fb_rocev2(&f, &S, &C, &p);
		in_add(&in, &f, f.n, 0);
		in_add(&in, &f, f.n, 0);                      /* duplicate */
		ibp_init(&p, 0x04, 0x100, 20);
		p.payload = pl;
		p.plen = 10;
		fb_rocev2(&f, &S, &C, &p);
		in_add(&in, &f, f.n, 0);                      /* PSN gap */
		s.attr = 0x15;
		s.local_comm = 1;
		s.remote_comm = 2;
		s.remote_qpn = 0x200;
		s.rpcrdma = false;
		ibp_cm(&p, mad, &s, 1);
		fb_rocev2(&f, &C, &S, &p);
		in_add(&in, &f, f.n, 0);
		ibp_init(&p, 0x04, 0x200, 23);
		p.payload = pl;
		p.plen = 10;
		fb_rocev2(&f, &C, &S, &p);
		in_add(&in, &f, f.n, 0x80);                   /* 2 s after the close */
		fn("ok-cm-conversation", &in, ctx);

		/* the same packets as native IB in ERF records, CM dropped */
		in_start(&in, M_ERF);
		for (int i = 0; i < 3; i++) {
			ibp_init(&p, ops[i], 0x200, 20 + (uint32_t)i);
			p.payload = pl;
			p.plen = i < 2 ? 1024 : 100;
			fb_ib(&f, 2, 1, NULL, NULL, &p);
			fb_erf_wrap(&f, ERF_TYPE_INFINIBAND, i == 1);
			in_add(&in, &f, f.n, 0);
		}
		ibp_init(&p, 0x11, 0x100, 22);
		ibp_aeth(&p, 0x1f, 0);
		fb_ib(&f, 1, 2, NULL, NULL, &p);
		fb_erf_wrap(&f, ERF_TYPE_INFINIBAND, false);
		in_add(&in, &f, f.n, 0);
		fn("ok-erf-ib-midconn", &in, ctx);
	}
	ipoib_cases(fn, ctx);
}

/* ---------------------------------------------------------------- run */

struct diags {
	char text[4096];
	size_t len;
};

static void collect(const struct diag *d, void *ctx)
{
	struct diags *x = ctx;
	int n = snprintf(x->text + x->len, sizeof(x->text) - x->len, "frame %llu, offset %zu: %s: %s\n",
			 (unsigned long long)d->frame, d->offset, d->layer, d->msg);
	if (n > 0 && x->len + (size_t)n < sizeof(x->text))
		x->len += (size_t)n;
}

static void run(const uint8_t *b, size_t n, struct diags *out)
{
	out->len = 0;
	out->text[0] = 0;
	struct transport *t = transport_new(NULL, collect, out);
	fti_run(t, b, n);
	transport_free(t);
}

static void gen_one(const char *name, const struct input *in, void *ctx)
{
	const char *dir = ctx;
	char path[512];
	struct diags d;
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(in->b, 1, in->n, f) != in->n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	run(in->b, in->n, &d);
	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(d.text, 1, d.len, f) != d.len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	printf("%s: %s", name, d.len ? d.text : "(no diagnostic)\n");
}

static size_t read_file(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return (size_t)-1;
	size_t n = fread(buf, 1, max, f);
	fclose(f);
	return n;
}

/* Every generated case must be in the corpus, and every corpus file must
 * give its expected lines. */
static void check_one(const char *name, const struct input *in, void *ctx)
{
	const char *dir = ctx;
	char path[512];
	static uint8_t buf[65536];
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	size_t n = read_file(path, buf, sizeof(buf));
	CHECK(n == in->n && memcmp(buf, in->b, n) == 0, "%s differs from the generator (regenerate?)", path);
}

static void check_corpus(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	static uint8_t buf[65536];
	static char want[4096];
	int files = 0;
	if (!d) {
		CHECK(0, "cannot open %s", dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".bin") != 0)
			continue;
		char path[1024];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		size_t n = read_file(path, buf, sizeof(buf));
		if ((size_t)snprintf(path, sizeof(path), "%s/%.*s.expect", dir, (int)(l - 4) & 0xff, e->d_name) >= sizeof(path))
			continue;
		size_t w = read_file(path, (uint8_t *)want, sizeof(want) - 1);
		CHECK(n != (size_t)-1 && w != (size_t)-1, "%s: .bin or .expect missing", e->d_name);
		if (n == (size_t)-1 || w == (size_t)-1)
			continue;
		want[w] = 0;
		struct diags got;
		run(buf, n, &got);
		CHECK(strcmp(got.text, want) == 0, "%s:\n got: %s want: %s", e->d_name, got.text, want);
		files++;
	}
	closedir(d);
	CHECK(files >= 20, "only %d corpus files", files);
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)i;
	if (argc == 3 && strcmp(argv[1], "--generate") == 0) {
		mkdir(argv[2], 0755);
		cases(gen_one, argv[2]);
		return 0;
	}
	char dir[256];
	check_path("tests/badinput/transport", dir, sizeof(dir));
	cases(check_one, dir);
	check_corpus(dir);
	return check_summary("test_transport_badinput");
}
