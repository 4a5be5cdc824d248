/* pcapng writer (see pcapng_writer.h).  Host byte order: the byte-order
 * magic in the SHB tells readers which one. */
#include "pcap/pcapng_writer.h"
#include "src/base/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define OPT_STR_MAX 65000   /* option length is 16 bits */

struct pcapng_writer {
	struct outfile of;          /* every tool's output-file rule (outfile.h) */
	FILE *f;
	uint64_t bytes;
	uint32_t nifs;
	int err;
};

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

static void put(struct pcapng_writer *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (n && fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
	w->bytes += n;
}

static void put32(struct pcapng_writer *w, uint32_t v) { put(w, &v, 4); }
static void put16(struct pcapng_writer *w, uint16_t v) { put(w, &v, 2); }

static void put_pad(struct pcapng_writer *w, size_t n)
{
	static const uint8_t zero[4];
	put(w, zero, pad4(n) - n);
}

static size_t opt_len(size_t vlen) { return 4 + pad4(vlen); }

static void put_opt(struct pcapng_writer *w, uint16_t code, const void *v, size_t len)
{
	put16(w, code);
	put16(w, (uint16_t)len);
	put(w, v, len);
	put_pad(w, len);
}

static size_t str_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > OPT_STR_MAX ? OPT_STR_MAX : n;
}

int pcapng_writer_open(struct pcapng_writer **out, const char *path, const char *appl,
		       char *err, size_t errlen)
{
	struct pcapng_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	int orc = outfile_open(&w->of, path, err, errlen);
	if (orc < 0) {
		free(w);
		return orc;
	}
	w->f = w->of.f;
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	size_t al = str_len(appl);
	uint32_t len = (uint32_t)(28 + (al ? opt_len(al) + 4 : 0));
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, 0x1A2B3C4Du);
	put16(w, 1);
	put16(w, 0);
	uint64_t seclen = UINT64_MAX;    /* -1: not known */
	put(w, &seclen, 8);
	if (al) {
		put_opt(w, SHB_USERAPPL, appl, al);
		put32(w, OPT_END);
	}
	put32(w, len);
	if (w->err) {
		int e = w->err;
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		outfile_abort(&w->of);
		free(w);
		return e;
	}
	*out = w;
	return 0;
}

int pcapng_writer_add_if(struct pcapng_writer *w, int linktype, uint32_t snaplen, const char *name,
			 const char *desc)
{
	size_t nl = str_len(name), dl = str_len(desc);
	uint8_t tsresol = 9;
	uint32_t len = (uint32_t)(20 + (nl ? opt_len(nl) : 0) + (dl ? opt_len(dl) : 0) + opt_len(1) + 4);

	put32(w, BT_IDB);
	put32(w, len);
	put16(w, (uint16_t)linktype);
	put16(w, 0);
	put32(w, snaplen);
	if (nl)
		put_opt(w, IF_NAME, name, nl);
	if (dl)
		put_opt(w, IF_DESCRIPTION, desc, dl);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put32(w, OPT_END);
	put32(w, len);
	return w->err ? w->err : (int)w->nifs++;
}

int pcapng_writer_packet(struct pcapng_writer *w, uint32_t ifid, uint64_t ts_ns, const uint8_t *data,
			 uint32_t caplen, uint32_t wirelen, const char *comment)
{
	size_t cl = str_len(comment);
	uint32_t len = (uint32_t)(32 + pad4(caplen) + (cl ? opt_len(cl) + 4 : 0));

	if (ifid >= w->nifs)
		return -EINVAL;
	put32(w, BT_EPB);
	put32(w, len);
	put32(w, ifid);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, caplen);
	put32(w, wirelen);
	put(w, data, caplen);
	put_pad(w, caplen);
	if (cl) {
		put_opt(w, OPT_COMMENT, comment, cl);
		put32(w, OPT_END);
	}
	put32(w, len);
	return w->err;
}

uint64_t pcapng_writer_bytes(const struct pcapng_writer *w)
{
	return w->bytes;
}

int pcapng_writer_close(struct pcapng_writer *w)
{
	if (!w)
		return 0;
	char err[512];
	int e = w->err;
	if (e)
		outfile_abort(&w->of);   /* a failed file is not renamed into place */
	else
		e = outfile_close(&w->of, err, sizeof(err));
	free(w);
	return e;
}
