/* Capture file -> packet feed (dissect/feed.h) -> dissector.
 *
 * A classic pcap that is a regular file is mapped whole and its records
 * handed to the feed straight from the mapping: no read(2) copies, no
 * per-record library calls, and the pages are the page cache's, so the
 * resident set does not count them against us.  pcapng, stdin,
 * compressed files and anything unusual go through libpcap
 * (pcap/capfile.c, which reads in large blocks).  When this reader meets
 * a record it would have to interpret (cut short, longer than the
 * snapshot length), it hands over to that reader at that record, so a
 * damaged file ends with the same message (frame, offset) either way. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dissect/feed.h"
#include "pcap/capfile.h"
#include "pcap/dissect_run.h"

#define MAX_CAPLEN   262144u      /* libpcap's largest snapshot length */
#define PF_AHEAD     8192u        /* and two pages on: its TLB walk starts early */
#define STEP         (2u << 20)   /* the mapping is filled ahead / let go behind by this */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22     /* Linux 5.14; older kernels say EINVAL and fault instead */
#endif

struct classic {
	bool swap, nsec;
	uint32_t snaplen;
	int linktype;
	const uint8_t *map;      /* the whole file */
	size_t size, pos;        /* its length, the next record */
	size_t dropped, ahead;   /* let go before dropped; filled up to ahead */
};

/* Moves the window: the next STEP of the file is mapped in one call
 * (page faults one fault-around at a time cost more), and pages already
 * decoded leave our resident set (they stay in the page cache), so the
 * resident set does not grow with the file.  No packet is referenced
 * once the feed returns: the transport copies what it keeps. */
static void classic_window(struct classic *m)
{
	size_t upto = m->pos & ~(size_t)(STEP - 1);

	if (upto > m->dropped) {
		madvise((void *)(uintptr_t)(m->map + m->dropped), upto - m->dropped, MADV_DONTNEED);
		m->dropped = upto;
	}
	size_t n = m->size - m->ahead < STEP ? m->size - m->ahead : STEP;
	madvise((void *)(uintptr_t)(m->map + m->ahead), n, MADV_POPULATE_READ);
	m->ahead += n;
}

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Maps path as a classic pcap for this reader; false when it is not one
 * (or not a regular file, or cannot be mapped), and libpcap takes it. */
static bool classic_open(struct classic *m, const char *path)
{
	struct stat st;
	uint8_t h[24];

	memset(m, 0, sizeof(*m));
	if (!strcmp(path, "-"))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 24 ||
	    (uint64_t)st.st_size > SIZE_MAX || pread(fd, h, 24, 0) != 24) {
		close(fd);
		return false;
	}
	uint32_t magic;
	memcpy(&magic, h, 4);
	switch (magic) {
	case 0xa1b2c3d4: break;
	case 0xa1b23c4d: m->nsec = true; break;
	case 0xd4c3b2a1: m->swap = true; break;
	case 0x4d3cb2a1: m->swap = m->nsec = true; break;
	default: close(fd); return false;
	}
	uint16_t maj, min;
	memcpy(&maj, h + 4, 2);
	memcpy(&min, h + 6, 2);
	if (m->swap) {
		maj = __builtin_bswap16(maj);
		min = __builtin_bswap16(min);
	}
	uint32_t lt = rd32(h + 20, m->swap);
	m->snaplen = rd32(h + 16, m->swap);
	/* FCS-length bits or an odd version: leave it to libpcap */
	if (maj != 2 || min != 4 || (lt & 0xffff0000u) || m->snaplen == 0) {
		close(fd);
		return false;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	/* read ahead; the pages behind us are not needed again */
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	m->map = map;
	m->size = (size_t)st.st_size;
	m->pos = 24;
	m->linktype = (int)lt;
	classic_window(m);
	return true;
}

static void classic_close(struct classic *m)
{
	if (m->map)
		munmap((void *)(uintptr_t)m->map, m->size);
	m->map = NULL;
}

/* Runs the records through the feed.  Returns the number of records done
 * when it stops early (a record libpcap must judge), or UINT64_MAX at the
 * clean end of the file.  The size is the file's when it was opened: a
 * capture still being written ends at a record boundary there, or hands
 * the cut record (and what follows it by then) to libpcap. */
static uint64_t classic_run(struct dissect_feed *f, struct classic *m)
{
	uint64_t done = 0;

	for (;;) {
		size_t left = m->size - m->pos;
		if (left == 0)
			return UINT64_MAX;
		if (left < 16)
			return done;
		const uint8_t *h = m->map + m->pos;
		uint32_t sec = rd32(h, m->swap), sub = rd32(h + 4, m->swap);
		uint32_t caplen = rd32(h + 8, m->swap), len = rd32(h + 12, m->swap);
		if (caplen > m->snaplen || caplen > MAX_CAPLEN || left - 16 < caplen)
			return done;
		uint64_t ts = (uint64_t)sec * 1000000000ull + (m->nsec ? sub : (uint64_t)sub * 1000u);
		/* The next record's header and the frame headers after it: a
		 * cache miss every record otherwise (records are ~1.5 KB apart,
		 * too far for the hardware to guess), hidden behind this one;
		 * and a line two pages on, so the page walk of each new page
		 * (4 KB pages, nested paging in a VM) overlaps the decode. */
		const uint8_t *next = h + 16 + caplen;
		__builtin_prefetch(next);
		__builtin_prefetch(next + 64);
		__builtin_prefetch(next + PF_AHEAD);
		dissect_feed_packet(f, 0, ts, h + 16, caplen, len < caplen ? caplen : len);
		m->pos += 16 + (size_t)caplen;
		done++;
		if (m->ahead < m->size && m->pos + STEP / 2 > m->ahead)
			classic_window(m);
	}
}

/* The feed is made once the capture is open: a file that cannot be
 * opened leaves no transport counters behind (dissect_transport_stats). */
static int new_feed(struct dissect_feed **f, struct dissect *d, const char *path, int lt,
		    char *errbuf, size_t errlen)
{
	if (!(*f = dissect_feed_new(d, NULL))) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	return dissect_feed_set_linktype(*f, lt, path, errbuf, errlen);
}

int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen)
{
	struct pcap_source *src = NULL;
	struct dissect_feed *f = NULL;
	struct classic m;
	uint64_t skip = 0;
	int ret;

	if (path && classic_open(&m, path)) {
		ret = new_feed(&f, d, path, m.linktype, errbuf, errlen);
		if (ret < 0) {
			classic_close(&m);
			goto out;
		}
		skip = classic_run(f, &m);
		classic_close(&m);
		if (skip == UINT64_MAX)
			goto finish;
		/* hand the rest to libpcap, from the record we stopped at */
		ret = pcap_source_open(&src, path, errbuf, errlen);
		if (ret < 0)
			goto finish;
	} else {
		ret = pcap_source_open(&src, path, errbuf, errlen);
		if (ret < 0)
			return ret;
		ret = new_feed(&f, d, path, pcap_source_linktype(src), errbuf, errlen);
		if (ret < 0) {
			pcap_source_close(src);
			goto out;
		}
	}
	uint64_t ts;
	const uint8_t *data;
	size_t caplen, wirelen;
	while ((ret = pcap_source_next(src, &ts, &data, &caplen, &wirelen, errbuf, errlen)) == 1) {
		if (skip) {
			skip--;
			continue;
		}
		dissect_feed_packet(f, 0, ts, data, caplen, wirelen);
	}
	pcap_source_close(src);
finish:
	dissect_feed_finish(f);
out:
	dissect_feed_free(f);
	return ret < 0 ? ret : 0;
}
