/* Builds a large capture from real lab traffic for bench/dissect.sh.
 *
 *   mkbigcap [-x] OUT.pcap MEGABYTES SRC.pcap [SRC.pcap ...]
 *
 * Writes the sources' frames again and again, in order, until OUT reaches
 * MEGABYTES.  Each pass is one more run of the same lab workload, moved
 * later in time: past the previous pass plus 2 s, so the dissector sees
 * each pass's connections close (CM DREQ/DREP) before the next pass opens
 * them again with a new CM exchange, as after a remount.  Every pass is
 * therefore a new connection and its XIDs cannot collide with the
 * previous pass's; with -x the XIDs are shifted anyway (the rdma_xid and
 * RPC xid of every RPC-over-RDMA SEND, and the XID the Linux client keeps
 * in the top 32 bits of segment offsets and RETH VAs, ICRCs recomputed),
 * except the RPC xid inside Reply chunks and position-zero Read chunks,
 * which the dissector then reports.  Only classic little-endian Ethernet
 * pcaps (the lab's) are read; other frames are copied with the new time.
 *
 * Build: cc -O2 -o /tmp/mkbigcap bench/mkbigcap.c   (no project code used) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct frame { uint64_t ts_us; uint32_t len; uint8_t *p; };
struct src { struct frame *f; size_t n; uint64_t first, last; };

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }

static uint32_t crc_tab[256];
static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[n] = c;
	}
}
static uint32_t crc_run(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--)
		c = crc_tab[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

static int load(const char *path, struct src *s)
{
	FILE *f = fopen(path, "rb");
	uint8_t gh[24], rh[16];

	if (!f || fread(gh, 1, 24, f) != 24) {
		fprintf(stderr, "mkbigcap: %s: %s\n", path, f ? "short file" : strerror(errno));
		return -1;
	}
	uint32_t magic = gh[0] | gh[1] << 8 | gh[2] << 16 | (uint32_t)gh[3] << 24;
	uint32_t lt = gh[20] | gh[21] << 8 | gh[22] << 16 | (uint32_t)gh[23] << 24;
	if ((magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) || lt != 1) {
		fprintf(stderr, "mkbigcap: %s: not a little-endian Ethernet pcap\n", path);
		fclose(f);
		return -1;
	}
	size_t cap = 1024;
	s->f = malloc(cap * sizeof(*s->f));
	s->n = 0;
	while (fread(rh, 1, 16, f) == 16) {
		uint32_t sec = rh[0] | rh[1] << 8 | rh[2] << 16 | (uint32_t)rh[3] << 24;
		uint32_t sub = rh[4] | rh[5] << 8 | rh[6] << 16 | (uint32_t)rh[7] << 24;
		uint32_t len = rh[8] | rh[9] << 8 | rh[10] << 16 | (uint32_t)rh[11] << 24;
		if (s->n == cap)
			s->f = realloc(s->f, (cap *= 2) * sizeof(*s->f));
		struct frame *fr = &s->f[s->n];
		fr->ts_us = (uint64_t)sec * 1000000 + (magic == 0xa1b23c4d ? sub / 1000 : sub);
		fr->len = len;
		fr->p = malloc(len ? len : 1);
		if (fread(fr->p, 1, len, f) != len)
			break;
		s->n++;
	}
	fclose(f);
	if (!s->n)
		return -1;
	s->first = s->f[0].ts_us;
	s->last = s->f[s->n - 1].ts_us;
	return 0;
}

/* Shifts an XID kept in the top half of a 64-bit segment offset. */
static void shift_off64(uint8_t *p, uint32_t xid_lo, uint32_t xid_hi, uint32_t delta)
{
	uint32_t top = be32(p);
	if (top >= xid_lo && top <= xid_hi)
		put32(p, top + delta);
}

/* Rewrites one RoCEv2 frame for pass `pass`; returns 1 if it changed. */
static int rewrite(uint8_t *fr, uint32_t len, uint32_t delta, uint32_t lo, uint32_t hi)
{
	if (len < 14 + 20 + 8 + 12 + 4 || be16(fr + 12) != 0x0800 || fr[23] != 17)
		return 0;
	size_t ip = 14, ihl = (size_t)(fr[14] & 15) * 4;
	size_t udp = ip + ihl;
	if (ihl != 20 || be16(fr + udp + 2) != 4791)
		return 0;
	size_t ulen = be16(fr + udp + 4), bth = udp + 8;
	if (udp + ulen > len || ulen < 8 + 12 + 4)
		return 0;
	size_t end = udp + ulen - 4;      /* ICRC */
	uint8_t op = fr[bth];
	size_t pay = bth + 12;
	int changed = 0;
	switch (op & 0x1f) {
	case 0x06: case 0x0a: case 0x0c:  /* WRITE First/Only, READ Request: RETH */
		if (pay + 16 <= end) {
			shift_off64(fr + pay, lo, hi, delta);
			changed = 1;
		}
		break;
	case 0x00: case 0x04: case 0x05: case 0x17: {  /* SEND First/Only (+Imm, +Inv) */
		if ((op >> 5) != 0)
			break;
		if ((op & 0x1f) == 0x05 || (op & 0x1f) == 0x17)
			pay += 4;
		if (pay + 16 > end)
			break;
		uint8_t *m = fr + pay;
		uint32_t vers = be32(m + 4), proc = be32(m + 12);
		if (vers != 1 || be32(m) < lo || be32(m) > hi)
			break;
		put32(m, be32(m) + delta);
		changed = 1;
		/* chunk lists: shift the XID in the segment offsets, find the body */
		size_t o = 16, n = end - pay;
		if (proc > 2)
			break;
		while (o + 4 <= n && be32(m + o) == 1) {           /* read list */
			if (o + 24 > n)
				return changed;
			shift_off64(m + o + 16, lo, hi, delta);
			o += 24;
		}
		o += 4;
		while (o + 8 <= n && be32(m + o) == 1) {           /* write list */
			uint32_t k = be32(m + o + 4);
			o += 8;
			for (uint32_t i = 0; i < k && o + 16 <= n; i++, o += 16)
				shift_off64(m + o + 8, lo, hi, delta);
		}
		o += 4;
		if (o + 8 <= n && be32(m + o) == 1) {              /* reply chunk */
			uint32_t k = be32(m + o + 4);
			o += 8;
			for (uint32_t i = 0; i < k && o + 16 <= n; i++, o += 16)
				shift_off64(m + o + 8, lo, hi, delta);
		} else {
			o += 4;
		}
		if (proc == 2)
			o += 8;
		if (proc != 1 && o + 4 <= n && be32(m + o) >= lo && be32(m + o) <= hi)
			put32(m + o, be32(m + o) + delta);         /* the RPC xid */
		break;
	}
	default:
		break;
	}
	if (!changed)
		return 0;
	/* ICRC: 8 bytes of ones for the LRH, masked IPv4/UDP/BTH, the rest */
	uint8_t h[8 + 20 + 8 + 12];
	memset(h, 0xff, 8);
	memcpy(h + 8, fr + ip, 20);
	h[8 + 1] = h[8 + 8] = h[8 + 10] = h[8 + 11] = 0xff;
	memcpy(h + 28, fr + udp, 8);
	h[28 + 6] = h[28 + 7] = 0xff;
	memcpy(h + 36, fr + bth, 12);
	h[36 + 4] = 0xff;
	uint32_t c = crc_run(0xffffffffu, h, sizeof(h));
	c = ~crc_run(c, fr + bth + 12, end - bth - 12);
	fr[end] = (uint8_t)c;
	fr[end + 1] = (uint8_t)(c >> 8);
	fr[end + 2] = (uint8_t)(c >> 16);
	fr[end + 3] = (uint8_t)(c >> 24);
	return 1;
}

int main(int argc, char **argv)
{
	int shift_xids = argc > 1 && !strcmp(argv[1], "-x");
	if (shift_xids) {
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: mkbigcap [-x] OUT.pcap MEGABYTES SRC.pcap...\n");
		return 2;
	}
	crc_init();
	uint64_t target = strtoull(argv[2], NULL, 10) << 20;
	int ns = argc - 3;
	struct src *s = calloc((size_t)ns, sizeof(*s));
	for (int i = 0; i < ns; i++)
		if (load(argv[3 + i], &s[i]))
			return 1;
	FILE *o = fopen(argv[1], "wb");
	if (!o) {
		perror(argv[1]);
		return 1;
	}
	static char obuf[1 << 22];
	setvbuf(o, obuf, _IOFBF, sizeof(obuf));
	uint8_t gh[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			   0xff, 0xff, 0, 0, 1, 0, 0, 0 };
	fwrite(gh, 1, 24, o);
	uint64_t written = 24, t = s[0].first, frames = 0;
	uint32_t pass = 0;
	while (written < target) {
		for (int i = 0; i < ns && written < target; i++, pass++) {
			uint32_t delta = pass * 0x00100000u;   /* 1 M XIDs per pass */
			uint8_t *tmp = NULL;
			size_t tcap = 0;
			for (size_t k = 0; k < s[i].n; k++) {
				struct frame *f = &s[i].f[k];
				if (f->len > tcap)
					tmp = realloc(tmp, tcap = f->len);
				memcpy(tmp, f->p, f->len);
				if (shift_xids)
					rewrite(tmp, f->len, delta, 0, 0xffffffffu);
				uint64_t ts = t + (f->ts_us - s[i].first);
				uint8_t rh[16];
				uint32_t sec = (uint32_t)(ts / 1000000), us = (uint32_t)(ts % 1000000);
				memcpy(rh, &sec, 4);
				memcpy(rh + 4, &us, 4);
				memcpy(rh + 8, &f->len, 4);
				memcpy(rh + 12, &f->len, 4);
				fwrite(rh, 1, 16, o);
				fwrite(tmp, 1, f->len, o);
				written += 16 + f->len;
				frames++;
			}
			free(tmp);
			t += (s[i].last - s[i].first) + 2000000;
		}
	}
	if (fclose(o)) {
		perror(argv[1]);
		return 1;
	}
	fprintf(stderr, "mkbigcap: %s: %" PRIu64 " frames, %" PRIu64 " bytes, %u passes\n", argv[1], frames,
		written, pass);
	return 0;
}
