/* Capture sources, one reader for every tool.
 *
 * A classic pcap or a pcapng that is a regular file is mapped whole and
 * its records handed out straight from the mapping (pcapng: pcapng_map.c):
 * no read(2) copies into a stdio buffer, no per-record library calls, and
 * the pages are the page cache's, so the resident set does not count
 * them against us.
 *
 * Everything else (stdin, gzip/zstd/xz, odd classic headers) goes through
 * libpcap: we hand it the bytes through pcap/capstream.c and ask it for
 * nanosecond timestamps so microsecond and nanosecond files come out in
 * one unit.  That stream gets a large buffer: libpcap reads through
 * stdio, whose default buffer costs one read per 4 KB of capture.  When
 * the mapped classic reader meets a record it would have to judge (cut
 * short, longer than the snapshot length), libpcap takes over at that
 * record, so a damaged file ends with the same message either way.  A
 * read that stops early is told in our words, with the frame and the
 * offset where the capture ends. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "pcap/capfile.h"
#include "pcap/capmap.h"
#include "pcap/capstream.h"
#include "pcap/pcapng_map.h"

#define MAX_CAPLEN   262144u      /* libpcap's largest snapshot length */
#define PF_AHEAD     8192u        /* and two pages on: its TLB walk starts early */

/* A mapped classic pcap. */
struct classic {
	bool swap, nsec;
	uint32_t snaplen;
	int linktype;
	struct capmap cm;        /* cm.map NULL when not mapped */
	size_t pos;              /* the next record */
};

struct pcap_source {
	struct classic m; /* while m.cm.map is set, records come from it */
	struct pcapng_map ng; /* or while ng.cm.map is */
	pcap_t *pc;
	char   *path;
	int     linktype;
	FILE   *fp;      /* owned by libpcap once pcap_fopen succeeds */
	char   *iobuf;   /* fp's buffer: freed after fp is closed */
	struct capstream *cs;
	uint64_t frames; /* records returned */
	long    next_off; /* where the next record starts (decompressed bytes) */
	int     tee_fd;   /* >= 0: the input's bytes are copied here (capstream) */
};

#define IOBUF_SIZE (1u << 20)

/* One line: "FILE: reason".  libpcap messages can contain a newline. */
static void set_err(char *errbuf, size_t errlen, const char *path, const char *why)
{
	if (!errbuf || !errlen)
		return;
	snprintf(errbuf, errlen, "%s: %s", path, why);
	for (char *p = errbuf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Maps path as a classic pcap; false when it is not one (or not a
 * regular file, or cannot be mapped), and libpcap takes it. */
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
	int rc = capmap_open(&m->cm, fd, (size_t)st.st_size);
	close(fd);
	if (rc < 0)
		return false;
	m->pos = 24;
	m->linktype = (int)lt;
	return true;
}

static void classic_close(struct classic *m)
{
	capmap_close(&m->cm);
}

/* The next record from the mapping: 1, or 0 at the clean end of the
 * file, or -1 for a record libpcap must judge.  The size is the file's
 * when it was opened: a capture still being written ends at a record
 * boundary there, or hands the cut record (and what follows it by then)
 * to libpcap. */
static int classic_next(struct classic *m, uint64_t *ts_ns, const uint8_t **data,
			size_t *caplen, size_t *wirelen)
{
	size_t left = m->cm.size - m->pos;
	if (left == 0)
		return 0;
	if (left < 16)
		return -1;
	const uint8_t *h = m->cm.map + m->pos;
	uint32_t sec = rd32(h, m->swap), sub = rd32(h + 4, m->swap);
	uint32_t cap = rd32(h + 8, m->swap), len = rd32(h + 12, m->swap);
	if (cap > m->snaplen || cap > MAX_CAPLEN || left - 16 < cap)
		return -1;
	*ts_ns = (uint64_t)sec * 1000000000ull + (m->nsec ? sub : (uint64_t)sub * 1000u);
	/* The next record's header and the frame headers after it: a cache
	 * miss every record otherwise (records are ~1.5 KB apart, too far
	 * for the hardware to guess), hidden behind this one; and a line two
	 * pages on, so the page walk of each new page (4 KB pages, nested
	 * paging in a VM) overlaps the decode. */
	const uint8_t *next = h + 16 + cap;
	__builtin_prefetch(next);
	__builtin_prefetch(next + 64);
	__builtin_prefetch(next + PF_AHEAD);
	*data = h + 16;
	*caplen = cap;
	*wirelen = len < cap ? cap : len;
	m->pos += 16 + (size_t)cap;
	capmap_advance(&m->cm, m->pos);
	return 1;
}

static void free_source(struct pcap_source *s)
{
	classic_close(&s->m);
	ngmap_close(&s->ng);
	if (s->pc)
		pcap_close(s->pc);   /* closes s->fp */
	else if (s->fp)
		fclose(s->fp);
	capstream_free(s->cs);
	free(s->iobuf);
	free(s->path);
	free(s);
}

static int libpcap_open(struct pcap_source *s, const char *path, char *errbuf, size_t errlen);

/* A pcapng that is a regular file: mapped (1), not one (0: libpcap
 * takes it), or a negative errno with errbuf set. */
static int ng_open(struct pcap_source *s, const char *path, char *errbuf, size_t errlen)
{
	struct stat st;
	uint32_t type;
	char why[256];

	if (!strcmp(path, "-"))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    (uint64_t)st.st_size > SIZE_MAX || pread(fd, &type, 4, 0) != 4 || type != 0x0a0d0d0au) {
		close(fd);
		return 0;
	}
	int rc = ngmap_open(&s->ng, fd, (size_t)st.st_size, s->path, why, sizeof(why));
	close(fd);
	if (rc < 0) {
		set_err(errbuf, errlen, s->path, why);
		return rc;
	}
	s->linktype = s->ng.linktype;
	return 1;
}

/* The next packet of a mapped pcapng; a block that cannot be followed
 * ends the read as a cut classic record does. */
static int ng_next(struct pcap_source *s, uint64_t *ts_ns, const uint8_t **data, size_t *caplen,
		   size_t *wirelen, char *errbuf, size_t errlen)
{
	char why[256], where[320];
	size_t off;
	int rc = ngmap_next(&s->ng, ts_ns, data, caplen, wirelen, &off, why, sizeof(why));

	if (rc == 1) {
		s->frames++;
		s->linktype = s->ng.linktype;
	} else if (rc < 0) {
		snprintf(where, sizeof(where), "frame %llu, offset %zu: %s", (unsigned long long)s->frames + 1, off, why);
		set_err(errbuf, errlen, s->path, where);
	}
	return rc;
}

int pcap_source_open(struct pcap_source **out, const char *path, char *errbuf, size_t errlen)
{
	return pcap_source_open_tee(out, path, -1, errbuf, errlen);
}

int pcap_source_open_tee(struct pcap_source **out, const char *path, int tee_fd, char *errbuf,
			 size_t errlen)
{
	struct pcap_source *s;
	int ret;

	*out = NULL;
	if (!path || !*path) {
		set_err(errbuf, errlen, "(null)", "no capture file named");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		set_err(errbuf, errlen, path, strerror(ENOMEM));
		return -ENOMEM;
	}
	s->path = strdup(strcmp(path, "-") == 0 ? "(stdin)" : path);
	if (!s->path) {
		free(s);
		set_err(errbuf, errlen, path, strerror(ENOMEM));
		return -ENOMEM;
	}
	s->tee_fd = tee_fd;
	/* a copy is made of what is read: nothing is mapped */
	if (tee_fd < 0 && classic_open(&s->m, path)) {
		s->linktype = s->m.linktype;
		*out = s;
		return 0;
	}
	if ((ret = ng_open(s, path, errbuf, errlen)) != 0) {
		if (ret < 0) {
			free_source(s);
			return ret;
		}
		*out = s;
		return 0;
	}
	if ((ret = libpcap_open(s, path, errbuf, errlen)) < 0) {
		free_source(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* The libpcap reader for s (s->path is the name errors use). */
static int libpcap_open(struct pcap_source *s, const char *path, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	int ret;

	if ((ret = capstream_open_tee(&s->cs, &s->fp, path, s->path, s->tee_fd, errbuf, errlen)) < 0)
		return ret == -EPROTONOSUPPORT ? -EINVAL : ret;
	/* Without the buffer stdio's small one is used: slower, not wrong. */
	if ((s->iobuf = malloc(IOBUF_SIZE)) && setvbuf(s->fp, s->iobuf, _IOFBF, IOBUF_SIZE) != 0) {
		free(s->iobuf);
		s->iobuf = NULL;
	}
	s->pc = pcap_fopen_offline_with_tstamp_precision(s->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!s->pc) {
		char why[PCAP_ERRBUF_SIZE + 80];
		const char *codec = capstream_codec(s->cs);
		/* An empty file gives libpcap's "truncated dump file" too; say
		 * what a user can act on. */
		if (capstream_problem(s->cs))
			snprintf(why, sizeof(why), "%s", capstream_problem(s->cs));
		else if (codec)
			snprintf(why, sizeof(why), "%s-compressed, but what it holds is not a pcap/pcapng capture (%s)",
				 codec, perr[0] ? perr : "unknown format");
		else
			snprintf(why, sizeof(why), "not a pcap/pcapng capture (%s)", perr[0] ? perr : "unknown format");
		set_err(errbuf, errlen, s->path, why);
		return -EINVAL;
	}
	s->linktype = pcap_datalink(s->pc);
	s->next_off = ftell(s->fp);
	return 0;
}

int pcap_source_tee_error(const struct pcap_source *s)
{
	return capstream_tee_error(s->cs);
}

int pcap_source_linktype(const struct pcap_source *s)
{
	return s->linktype;
}

const char *pcap_source_path(const struct pcap_source *s)
{
	return s->path;
}

/* The number after "key" in libpcap's message, or false. */
static bool msg_number(const char *msg, const char *key, size_t *v)
{
	const char *p = strstr(msg, key);
	return p && sscanf(p + strlen(key), "%zu", v) == 1;
}

/* A read that stopped early: "FILE: frame N, offset O: why".  libpcap
 * says how many bytes of its last read it got ("tried to read X ...,
 * only got Y"); the record began where the previous one ended, and the
 * stream ended at ftell, so the record's bytes present and wanted follow. */
static void read_failed(struct pcap_source *s, bool at_eof, char *errbuf, size_t errlen)
{
	const char *msg = at_eof ? "" : pcap_geterr(s->pc);
	const char *problem = capstream_problem(s->cs);
	unsigned long long frame = (unsigned long long)s->frames + 1, off = (unsigned long long)s->next_off;
	char why[PCAP_ERRBUF_SIZE + 200];
	size_t want, got;

	if (at_eof) {
		snprintf(why, sizeof(why), "%s", problem);
	} else if (strstr(msg, "truncated") && msg_number(msg, "tried to read ", &want) &&
		   msg_number(msg, "only got ", &got) && want >= got) {
		long end = ftell(s->fp);
		size_t have = end >= s->next_off ? (size_t)(end - s->next_off) : got;
		snprintf(why, sizeof(why), "capture truncated in the middle of a packet record (%zu bytes of %zu)%s%s",
			 have, have + (want - got), problem ? "; " : "", problem ? problem : "");
	} else if (problem) {
		snprintf(why, sizeof(why), "%s", problem);
	} else {
		snprintf(why, sizeof(why), "%s", msg);
	}
	char where[PCAP_ERRBUF_SIZE + 300];
	snprintf(where, sizeof(where), "frame %llu, offset %llu: %s", frame, off, why);
	set_err(errbuf, errlen, s->path, where);
}

/* libpcap goes on from the record the mapping stopped at: it reads the
 * file from its start and the records already handed out are skipped. */
static int libpcap_takeover(struct pcap_source *s, char *errbuf, size_t errlen)
{
	uint64_t skip = s->frames;
	struct pcap_pkthdr *h;
	const u_char *d;
	char *name = s->path;
	int ret;

	s->next_off = (long)s->m.pos;   /* where the mapping stopped */
	classic_close(&s->m);
	if ((ret = libpcap_open(s, name, errbuf, errlen)) < 0) {
		/* libpcap refused what the mapping had read so far (a header
		 * field it judges stricter, or bytes that look like another
		 * format): say where the reading stopped, as any failed read */
		char why[512];
		size_t n = strlen(s->path);
		snprintf(why, sizeof(why), "frame %llu, offset %llu: %s", (unsigned long long)s->frames + 1,
			 (unsigned long long)s->next_off,
			 errbuf && !strncmp(errbuf, s->path, n) && errbuf[n] == ':' ? errbuf + n + 2 : "cannot be read on");
		set_err(errbuf, errlen, s->path, why);
		return ret;
	}
	for (s->frames = 0; s->frames < skip; s->frames++) {
		if (pcap_next_ex(s->pc, &h, &d) != 1) {
			/* the file changed under us; say where libpcap stopped */
			read_failed(s, false, errbuf, errlen);
			return -EIO;
		}
		s->next_off = ftell(s->fp);
	}
	return 0;
}

int pcap_source_next(struct pcap_source *s, uint64_t *ts_ns, const uint8_t **data,
		     size_t *caplen, size_t *wirelen, char *errbuf, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc;

	if (s->ng.cm.map)
		return ng_next(s, ts_ns, data, caplen, wirelen, errbuf, errlen);
	if (s->m.cm.map) {
		rc = classic_next(&s->m, ts_ns, data, caplen, wirelen);
		if (rc >= 0) {
			s->frames += (unsigned)rc;
			return rc;
		}
		if ((rc = libpcap_takeover(s, errbuf, errlen)) < 0)
			return rc;
	}
	rc = pcap_next_ex(s->pc, &h, &d);

	if (rc == 1) {
		/* With nanosecond precision libpcap stores nanoseconds in tv_usec. */
		*ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		*data = d;
		*caplen = h->caplen;
		*wirelen = h->len < h->caplen ? h->caplen : h->len;
		s->frames++;
		s->next_off = ftell(s->fp);
		return 1;
	}
	/* -2: end of file, unless the compressed stream ended before its end */
	if (rc == PCAP_ERROR_BREAK && !capstream_problem(s->cs))
		return 0;
	read_failed(s, rc == PCAP_ERROR_BREAK, errbuf, errlen);
	return -EIO;
}

void pcap_source_close(struct pcap_source *s)
{
	if (s)
		free_source(s);
}
