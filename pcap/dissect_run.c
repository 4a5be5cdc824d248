/* Capture file -> transport -> dissect_event.  Kept apart from dissect.c
 * so tools and tests that feed events directly need no transport.
 *
 * Classic pcap files are read here with large read()s into one reused
 * buffer (READ_BUF bytes): no per-record stdio calls, the same cost as
 * `cat`, and a resident set that does not grow with the file.  pcapng,
 * stdin and anything unusual go through libpcap (pcap/capfile.c).  When
 * this reader meets a record it would have to interpret (cut short,
 * longer than the snapshot length), it hands over to libpcap at that
 * record, so damaged files end exactly as libpcap says. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dissect/dissect_int.h"
#include "dissect/transport.h"
#include "pcap/capfile.h"

#define READ_BUF     (256u << 10)
#define MAX_CAPLEN   262144u      /* libpcap's largest snapshot length */

static void run_diag(const struct diag *g, void *ctx)
{
	struct dissect *d = ctx;

	if (d->cbs.diag)
		d->cbs.diag(g, d->cbs.ctx);
}

struct classic {
	int fd;
	bool swap, nsec;
	uint32_t snaplen;
	int linktype;
	uint8_t *buf;
	size_t have, pos;        /* bytes in buf, next record */
	bool eof;
};

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Opens path as a classic pcap for this reader; false when it is not one
 * (or not a regular file), and the libpcap path takes it. */
static bool classic_open(struct classic *m, const char *path)
{
	struct stat st;
	uint8_t h[24];

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (!strcmp(path, "-"))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 24 || read(fd, h, 24) != 24) {
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
	if (maj != 2 || min != 4 || (lt & 0xffff0000u) || m->snaplen == 0 ||
	    !(m->buf = malloc(READ_BUF))) {
		close(fd);
		return false;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	m->linktype = (int)lt;
	m->fd = fd;
	return true;
}

static void classic_close(struct classic *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m->buf);
	m->buf = NULL;
	m->fd = -1;
}

/* Makes n bytes available at buf + pos; false at the end of the file. */
static bool classic_want(struct classic *m, size_t n)
{
	while (m->have - m->pos < n) {
		if (m->eof)
			return false;
		if (m->pos) {
			memmove(m->buf, m->buf + m->pos, m->have - m->pos);
			m->have -= m->pos;
			m->pos = 0;
		}
		ssize_t r = read(m->fd, m->buf + m->have, READ_BUF - m->have);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			m->eof = true;   /* a read error: libpcap takes over and says so */
			return false;
		}
		m->have += (size_t)r;
	}
	return true;
}

/* Runs the records through the transport.  Returns the number of records
 * done when it stops early (a record libpcap must judge), or UINT64_MAX
 * at the clean end of the file. */
static uint64_t classic_run(struct dissect *d, struct classic *m, uint64_t *frame)
{
	uint64_t done = 0;

	for (;;) {
		if (!classic_want(m, 16))
			return m->have == m->pos && m->eof ? UINT64_MAX : done;
		const uint8_t *h = m->buf + m->pos;
		uint32_t sec = rd32(h, m->swap), sub = rd32(h + 4, m->swap);
		uint32_t caplen = rd32(h + 8, m->swap), len = rd32(h + 12, m->swap);
		if (caplen > m->snaplen || caplen > MAX_CAPLEN || !classic_want(m, 16 + (size_t)caplen))
			return done;
		const uint8_t *p = m->buf + m->pos + 16;
		uint64_t ts = (uint64_t)sec * 1000000000ull + (m->nsec ? sub : (uint64_t)sub * 1000u);
		transport_packet(d->tp, ts, ++*frame, p, caplen, len < caplen ? caplen : len);
		m->pos += 16 + (size_t)caplen;
		done++;
	}
}

/* Payload the upper layers will not look at is not copied (Write chunk
 * data: the file bytes of an NFS READ; Read chunks at a position > 0). */
static bool want_data(const struct rdma_conn *c, int dir, int type, uint32_t rkey, uint64_t va,
		      uint32_t len, void *ctx)
{
	const struct dissect *d = ctx;
	(void)type;
	(void)len;
	return chunks_wants_data(&d->segs, c->id, dir ^ 1, rkey, va);
}

static int new_transport(struct dissect *d, const char *path, int lt, char *errbuf, size_t errlen)
{
	if (d->tp)
		transport_free(d->tp);
	d->tp = transport_new(dissect_event, run_diag, d);
	d->tp_free = transport_free;
	if (!d->tp) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	transport_set_data_filter(d->tp, want_data);
	transport_set_frame_tracking(d->tp, dissect_wants_frames(d));
	if (transport_set_linktype(d->tp, lt) < 0) {
		const char *name = transport_linktype_name(lt);
		snprintf(errbuf, errlen, "%s: unsupported link type %d (%s)", path, lt,
			 name ? name : "unknown");
		return -EPROTONOSUPPORT;
	}
	return 0;
}

int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen)
{
	struct pcap_source *src = NULL;
	struct classic m;
	uint64_t frame = 0, skip = 0;
	int ret;

	if (path && classic_open(&m, path)) {
		ret = new_transport(d, path, m.linktype, errbuf, errlen);
		if (ret < 0) {
			classic_close(&m);
			return ret;
		}
		skip = classic_run(d, &m, &frame);
		classic_close(&m);
		if (skip == UINT64_MAX)
			goto done;
		/* hand the rest to libpcap, from the record we stopped at */
		ret = pcap_source_open(&src, path, errbuf, errlen);
		if (ret < 0)
			goto fail;
	} else {
		ret = pcap_source_open(&src, path, errbuf, errlen);
		if (ret < 0)
			return ret;
		ret = new_transport(d, path, pcap_source_linktype(src), errbuf, errlen);
		if (ret < 0) {
			pcap_source_close(src);
			return ret;
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
		transport_packet(d->tp, ts, ++frame, data, caplen, wirelen);
	}
	pcap_source_close(src);
	if (ret < 0)
		goto fail;
done:
	transport_flush(d->tp);
	dissect_flush(d);
	return 0;
fail:
	transport_flush(d->tp);
	dissect_flush(d);
	return ret;
}

const struct transport_stats *dissect_transport_stats(const struct dissect *d)
{
	return d->tp ? transport_stats(d->tp) : NULL;
}
