/* The mapped pcapng reader (pcapng_map.h).  Lengths are checked before a
 * byte is read: a block must hold its own header and trailer, be a whole
 * number of 32-bit words and end inside the file; a packet must fit its
 * block; an option must fit its block's option area. */
#include "dissect/grow.h"
#include "pcap/pcapng_map.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"

#define BT_SHB 0x0a0d0d0au
#define BT_IDB 1u
#define BT_PB  2u            /* obsolete Packet Block */
#define BT_SPB 3u
#define BT_EPB 6u
#define BOM    0x1a2b3c4du
#define MAX_CAPLEN 262144u   /* libpcap's largest snapshot length */
#define MAX_WARN 20u
#define MAX_IFS  65536u
#define PF_AHEAD 8192u

static uint32_t rd32(const struct pcapng_map *m, size_t off)
{
	uint32_t v;
	memcpy(&v, m->cm.map + off, 4);
	return m->swap ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const struct pcapng_map *m, size_t off)
{
	uint16_t v;
	memcpy(&v, m->cm.map + off, 2);
	return m->swap ? __builtin_bswap16(v) : v;
}

/* One line per problem the reading survives, a bounded number per file. */
__attribute__((format(printf, 3, 4)))
static void warn(struct pcapng_map *m, size_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	if (m->warned > MAX_WARN)
		return;
	if (m->warned++ == MAX_WARN) {
		log_warn("%s: more pcapng problems past offset %zu are not shown", m->path, off);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_warn("%s: offset %zu: %s", m->path, off, why);
}

static int fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EIO;
}

/* The block at m->pos: its type and length, checked; a new section's
 * byte order is taken from it.  0 at the clean end, 1, or -EIO. */
static int block(struct pcapng_map *m, uint32_t *type, uint32_t *len, char *why, size_t whylen)
{
	size_t left = m->cm.size - m->pos;

	if (left == 0)
		return 0;
	if (left < 12)
		return fail(why, whylen, "capture truncated in the middle of a pcapng block header (%zu bytes of 12)",
			    left);
	*type = rd32(m, m->pos);
	if (*type == BT_SHB) {
		uint32_t bom;
		memcpy(&bom, m->cm.map + m->pos + 8, 4);
		if (bom != BOM && bom != __builtin_bswap32(BOM))
			return fail(why, whylen, "pcapng section header with a bad byte-order magic 0x%08x", bom);
		m->swap = bom != BOM;
	}
	*len = rd32(m, m->pos + 4);
	if (*len < 12 || (*type == BT_SHB && *len < 28))
		return fail(why, whylen, "pcapng block length %u is shorter than its block's header", *len);
	if (*len % 4)
		return fail(why, whylen, "pcapng block length %u is not a multiple of 4", *len);
	if (*len > left)
		return fail(why, whylen, "capture truncated in the middle of a pcapng block (%zu bytes of %u)",
			    left, *len);
	return 1;
}

/* The trailing length of the block before, read one call late: the
 * decode of its packet, which seldom reads to the end, has hidden the
 * miss on that line (prefetched when the block was handed out). */
static void check_trail(struct pcapng_map *m)
{
	if (!m->last_len)
		return;
	uint32_t trail = rd32(m, m->last_off + m->last_len - 4);
	if (trail != m->last_len)
		warn(m, m->last_off, "pcapng block trailing length %u differs from its leading length %u (the leading one is followed)",
		     trail, m->last_len);
	m->last_len = 0;
}

/* if_tsresol and if_tsoffset from the IDB's options at [o, end). */
static void idb_options(struct pcapng_map *m, struct ng_iface *f, size_t o, size_t end)
{
	while (o + 4 <= end) {
		uint16_t code = rd16(m, o), olen = rd16(m, o + 2);
		size_t padded = ((size_t)olen + 3) & ~(size_t)3;
		if (code == 0)
			return;
		if (padded > end - o - 4) {
			warn(m, o, "pcapng option %u of length %u runs past its block", code, olen);
			return;
		}
		if (code == 9 && olen == 1) {
			uint8_t r = m->cm.map[o + 4];
			f->pow2 = r & 0x80;
			f->exp = r & 0x7f;
		} else if (code == 14 && olen == 8) {
			uint64_t lo = rd32(m, o + 4), hi = rd32(m, o + 8);
			/* the 64-bit option is in the section's byte order as a whole */
			f->offset_s = (int64_t)(m->swap ? (lo << 32 | hi) : (hi << 32 | lo));
		}
		o += 4 + padded;
	}
}

static void add_iface(struct pcapng_map *m, uint32_t len)
{
	struct ng_iface f = { .linktype = -1, .exp = 6 };
	size_t at = m->pos;

	if (m->nifs >= MAX_IFS) {
		warn(m, at, "more than %u interfaces in one pcapng section: the rest are ignored", MAX_IFS);
		return;
	}
	if (ARR_RESERVE(m->ifs, m->cap_ifs, m->nifs + 1, 8) < 0) {
		warn(m, at, "out of memory for interface %u", m->nifs);
		return;
	}
	if (len < 20) {
		warn(m, at, "pcapng interface description block of %u bytes is too short: interface %u's packets are skipped",
		     len, m->nifs);
	} else {
		f.linktype = rd16(m, at + 8);
		f.snaplen = rd32(m, at + 12);
		idb_options(m, &f, at + 16, at + len - 4);
		if ((f.pow2 && f.exp > 63) || (!f.pow2 && f.exp > 19)) {
			warn(m, at, "pcapng interface %u: if_tsresol %s%u is out of range: its packets are skipped",
			     m->nifs, f.pow2 ? "2^-" : "10^-", f.exp);
			f.linktype = -1;
		}
	}
	if (f.linktype < 0) {
		f.per_sec = 1;   /* never used: the interface's packets are skipped */
	} else if (f.pow2) {
		f.per_sec = 1ull << f.exp;
	} else {
		f.per_sec = 1;
		for (unsigned i = 0; i < f.exp; i++)
			f.per_sec *= 10;
	}
	m->ifs[m->nifs++] = f;
}

/* Timestamp units to nanoseconds since the epoch, as libpcap does with
 * nanosecond precision (whole seconds plus the fraction scaled down,
 * rounded down), without its overflow for fine binary resolutions. */
static uint64_t ts_ns(const struct ng_iface *f, uint64_t t)
{
	uint64_t sec, frac;

	/* the resolutions every writer uses, with constant divisors */
	if (f->per_sec == 1000000u) {
		sec = t / 1000000u;
		frac = t % 1000000u * 1000u;
	} else if (f->per_sec == 1000000000u) {
		sec = t / 1000000000u;
		frac = t % 1000000000u;
	} else {
		sec = t / f->per_sec;
		frac = (uint64_t)((unsigned __int128)(t % f->per_sec) * 1000000000u / f->per_sec);
	}
	/* 128 bits: a timestamp and an offset near their ends do not overflow */
	__int128 s = (__int128)sec + f->offset_s;
	if (s < 0)
		return 0;
	return (uint64_t)s * 1000000000ull + frac;
}

/* A packet of interface ifid whose data is cap bytes at data_off inside
 * the block (room: the bytes the block has for it).  1, or 0 when it is
 * skipped (told). */
static int packet(struct pcapng_map *m, uint32_t ifid, uint64_t t, size_t data_off, uint32_t cap,
		  uint32_t orig, size_t room, uint64_t *ts, const uint8_t **data, size_t *caplen,
		  size_t *wirelen)
{
	if (ifid >= m->nifs) {
		warn(m, m->pos, "pcapng packet of interface %u, which this section has not described: skipped", ifid);
		return 0;
	}
	const struct ng_iface *f = &m->ifs[ifid];
	if (f->linktype < 0)
		return 0;
	if (cap > room) {
		warn(m, m->pos, "pcapng packet's captured length %u exceeds its block (%zu bytes): skipped", cap, room);
		return 0;
	}
	if (cap > MAX_CAPLEN) {
		warn(m, m->pos, "pcapng packet's captured length %u is over %u: skipped", cap, MAX_CAPLEN);
		return 0;
	}
	*ts = ts_ns(f, t);
	*data = m->cm.map + data_off;
	*caplen = cap;
	*wirelen = orig < cap ? cap : orig;
	m->linktype = f->linktype;
	return 1;
}

/* The block at m->pos, known good: 1 with a packet, 0 for anything else. */
static int one_block(struct pcapng_map *m, uint32_t type, uint32_t len, uint64_t *ts,
		     const uint8_t **data, size_t *caplen, size_t *wirelen)
{
	size_t b = m->pos;

	switch (type) {
	case BT_SHB:
		m->nifs = 0;   /* interfaces are numbered per section */
		return 0;
	case BT_IDB:
		add_iface(m, len);
		return 0;
	case BT_EPB:
		if (len < 32)
			break;
		return packet(m, rd32(m, b + 8), (uint64_t)rd32(m, b + 12) << 32 | rd32(m, b + 16), b + 28,
			      rd32(m, b + 20), rd32(m, b + 24), len - 32, ts, data, caplen, wirelen);
	case BT_PB:
		if (len < 32)
			break;
		return packet(m, rd16(m, b + 8), (uint64_t)rd32(m, b + 12) << 32 | rd32(m, b + 16), b + 28,
			      rd32(m, b + 20), rd32(m, b + 24), len - 32, ts, data, caplen, wirelen);
	case BT_SPB: {
		if (len < 16)
			break;
		/* no timestamp, no captured length: the block or the
		 * interface's snapshot, whichever is less, says it */
		uint32_t orig = rd32(m, b + 8), cap = orig;
		if (cap > len - 16)
			cap = len - 16;
		if (m->nifs && m->ifs[0].snaplen && cap > m->ifs[0].snaplen)
			cap = m->ifs[0].snaplen;
		return packet(m, 0, 0, b + 12, cap, orig, len - 16, ts, data, caplen, wirelen);
	}
	default:
		return 0;      /* NRB, ISB, DSB, custom, ...: not ours */
	}
	warn(m, b, "pcapng packet block of %u bytes is too short for its header: skipped", len);
	return 0;
}

int ngmap_next(struct pcapng_map *m, uint64_t *ts, const uint8_t **data, size_t *caplen,
	       size_t *wirelen, size_t *off, char *why, size_t whylen)
{
	uint32_t type, len;
	int rc;

	for (;;) {
		check_trail(m);
		*off = m->pos;
		if ((rc = block(m, &type, &len, why, whylen)) <= 0)
			return rc;
		rc = one_block(m, type, len, ts, data, caplen, wirelen);
		m->last_off = m->pos;
		m->last_len = len;
		m->pos += len;
		__builtin_prefetch(m->cm.map + m->pos - 4);
		/* the next block's header, and a line two pages on: a miss
		 * per block otherwise, as in the classic reader */
		__builtin_prefetch(m->cm.map + m->pos);
		__builtin_prefetch(m->cm.map + m->pos + 64);
		__builtin_prefetch(m->cm.map + m->pos + PF_AHEAD);
		capmap_advance(&m->cm, m->pos);
		if (rc)
			return 1;
	}
}

int ngmap_open(struct pcapng_map *m, int fd, size_t size, const char *path, char *why, size_t whylen)
{
	uint32_t type, len;
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	m->linktype = -1;
	if ((rc = capmap_open(&m->cm, fd, size)) < 0) {
		snprintf(why, whylen, "cannot be mapped: %s", strerror(-rc));
		return rc;
	}
	/* The first interface's link type is the capture's until a packet
	 * says otherwise: walk the blocks up to it without taking them. */
	struct pcapng_map peek = *m;
	peek.ifs = NULL;
	peek.cap_ifs = peek.nifs = 0;
	peek.warned = MAX_WARN + 1;   /* the real pass tells */
	while ((rc = block(&peek, &type, &len, why, whylen)) > 0) {
		if (type == BT_IDB && len >= 20) {
			m->linktype = rd16(&peek, peek.pos + 8);
			break;
		}
		if (type == BT_EPB || type == BT_SPB || type == BT_PB)
			break;
		peek.pos += len;
	}
	if (m->linktype < 0 && rc >= 0)
		snprintf(why, whylen, "pcapng capture with no interface description block before its packets");
	if (m->linktype < 0) {
		capmap_close(&m->cm);
		return -EINVAL;
	}
	return 0;
}

void ngmap_close(struct pcapng_map *m)
{
	capmap_close(&m->cm);
	free(m->ifs);
	m->ifs = NULL;
}
