/* Capture sources through libpcap.  libpcap reads pcap and pcapng; we
 * hand it the bytes through pcap/capstream.c (stdin, plain files and
 * gzip/zstd/xz files alike) and ask it for nanosecond timestamps so
 * microsecond and nanosecond files come out in one unit.  The stream gets
 * a large buffer: libpcap reads through stdio, whose default buffer costs
 * one read per 4 KB of capture.  A read that stops early is told in our
 * words, with the frame and the offset where the capture ends. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "pcap/capfile.h"
#include "pcap/capstream.h"

struct pcap_source {
	pcap_t *pc;
	char   *path;
	int     linktype;
	FILE   *fp;      /* owned by libpcap once pcap_fopen succeeds */
	char   *iobuf;   /* fp's buffer: freed after fp is closed */
	struct capstream *cs;
	uint64_t frames; /* records returned */
	long    next_off; /* where the next record starts (decompressed bytes) */
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

static void free_source(struct pcap_source *s)
{
	if (s->pc)
		pcap_close(s->pc);   /* closes s->fp */
	else if (s->fp)
		fclose(s->fp);
	capstream_free(s->cs);
	free(s->iobuf);
	free(s->path);
	free(s);
}

int pcap_source_open(struct pcap_source **out, const char *path, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
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
	if ((ret = capstream_open(&s->cs, &s->fp, path, s->path, errbuf, errlen)) < 0) {
		free_source(s);
		return ret == -EPROTONOSUPPORT ? -EINVAL : ret;
	}
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
		free_source(s);
		return -EINVAL;
	}
	s->linktype = pcap_datalink(s->pc);
	s->next_off = ftell(s->fp);
	*out = s;
	return 0;
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

int pcap_source_next(struct pcap_source *s, uint64_t *ts_ns, const uint8_t **data,
		     size_t *caplen, size_t *wirelen, char *errbuf, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc = pcap_next_ex(s->pc, &h, &d);

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
