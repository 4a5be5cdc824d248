/* Capture sources through libpcap.  libpcap reads pcap and pcapng (and "-"
 * for stdin); we ask it for nanosecond timestamps so microsecond and
 * nanosecond files come out in one unit.  We open the file ourselves first
 * so a missing or unreadable file gives the real errno rather than
 * libpcap's generic failure, and give the FILE a large buffer: libpcap
 * reads through stdio, whose default buffer (st_blksize, 4 KB) costs one
 * read(2) per 4 KB of capture. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "pcap/capfile.h"

struct pcap_source {
	pcap_t *pc;
	char   *path;
	int     linktype;
	FILE   *fp;      /* owned by libpcap once pcap_fopen succeeds */
	char   *iobuf;   /* fp's buffer (a file's): freed after fp is closed */
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

int pcap_source_open(struct pcap_source **out, const char *path, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct pcap_source *s;
	FILE *fp;

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

	if (strcmp(path, "-") == 0) {
		fp = stdin;
	} else {
		fp = fopen(path, "rb");
		if (!fp) {
			int e = errno;
			set_err(errbuf, errlen, path, strerror(e));
			free(s->path);
			free(s);
			return -e;
		}
	}
	/* Without the buffer stdio's small one is used: slower, not wrong.
	 * stdin's is static: it stays stdin's buffer whatever happens next. */
	if (fp == stdin) {
		static char stdin_buf[IOBUF_SIZE];
		setvbuf(fp, stdin_buf, _IOFBF, IOBUF_SIZE);
	} else if ((s->iobuf = malloc(IOBUF_SIZE)) && setvbuf(fp, s->iobuf, _IOFBF, IOBUF_SIZE) != 0) {
		free(s->iobuf);
		s->iobuf = NULL;
	}
	s->pc = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!s->pc) {
		char why[PCAP_ERRBUF_SIZE + 40];
		/* An empty file gives libpcap's "truncated dump file" too; say
		 * what a user can act on. */
		snprintf(why, sizeof(why), "not a pcap/pcapng capture (%s)", perr[0] ? perr : "unknown format");
		set_err(errbuf, errlen, s->path, why);
		if (fp != stdin)
			fclose(fp);
		free(s->iobuf);
		free(s->path);
		free(s);
		return -EINVAL;
	}
	s->fp = fp;
	s->linktype = pcap_datalink(s->pc);
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
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)   /* -2: end of file */
		return 0;
	/* -1: a read error; libpcap says "truncated dump file; ..." for a
	 * record cut short, or names the bad header field. */
	set_err(errbuf, errlen, s->path, pcap_geterr(s->pc));
	return -EIO;
}

void pcap_source_close(struct pcap_source *s)
{
	if (!s)
		return;
	if (s->pc)
		pcap_close(s->pc);   /* closes s->fp, stdin included */
	free(s->iobuf);
	free(s->path);
	free(s);
}
