/* A capture's bytes through a stdio cookie: read(2) straight into the
 * caller's buffer, or through zlib, libzstd or liblzma.  Memory is bounded
 * by the compressed-input buffer here, the decoder's window (32 KB for
 * gzip; what the file declares for zstd and xz, capped) and stdio's buffer:
 * nothing grows with the file.  The first bytes are read once into the
 * input buffer to tell the format, so a pipe needs no seeking. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "pcap/capstream.h"

#define IN_SIZE     (256u << 10)
#define PEEK        512u           /* a tar header's "ustar" is at 257 */
#define XZ_MEMLIMIT (512ull << 20) /* xz -9 needs 65 MB; refuse absurd headers */
#define ZSTD_WLOG   27             /* 128 MB window: zstd --long's default */

enum codec { C_RAW, C_GZIP, C_ZSTD, C_XZ };

struct capstream {
	int fd;
	bool own_fd, in_eof, ended;
	enum codec codec;
	uint8_t *in;
	size_t in_len, in_pos;
	z_stream z;
	ZSTD_DStream *zs;
	size_t zs_rc;          /* last ZSTD_decompressStream return: 0 at a frame's end */
	lzma_stream x;
	uint64_t pos;          /* bytes handed out */
	char problem[160];
	int tee_fd;            /* >= 0: every byte read from fd is copied here */
	int tee_err;           /* the copy's first error (errno) */
};

static const char *const codec_name[] = { NULL, "gzip", "zstd", "xz" };

/* The bytes just read from the input, to the tee: they are the input's
 * own (compressed when it is), so a second reader of the tee decodes
 * exactly what this one did.  A copy that fails stops copying; the read
 * goes on. */
static void tee_bytes(struct capstream *cs, const uint8_t *p, size_t n)
{
	while (cs->tee_fd >= 0 && !cs->tee_err && n) {
		ssize_t w = write(cs->tee_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			cs->tee_err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Fills the input buffer after what is unread; 0 at end of input. */
static ssize_t refill(struct capstream *cs)
{
	if (cs->in_pos == cs->in_len)
		cs->in_pos = cs->in_len = 0;
	if (cs->in_eof || cs->in_len == IN_SIZE)
		return 0;
	for (;;) {
		ssize_t n = read(cs->fd, cs->in + cs->in_len, IN_SIZE - cs->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			cs->in_eof = true;
		if (n > 0) {
			tee_bytes(cs, cs->in + cs->in_len, (size_t)n);
			cs->in_len += (size_t)n;
		}
		return n;
	}
}

static void set_problem(struct capstream *cs, const char *what)
{
	if (!cs->problem[0])
		snprintf(cs->problem, sizeof(cs->problem), "%s", what);
}

/* The compressed input ran out before the decoder saw its end marker. */
static void cut_short(struct capstream *cs)
{
	char why[96];

	snprintf(why, sizeof(why), "the %s data ends early (the compressed file is cut short)",
		 codec_name[cs->codec]);
	set_problem(cs, why);
}

static ssize_t damaged(struct capstream *cs, const char *detail)
{
	char why[160];

	snprintf(why, sizeof(why), "%s data is damaged (%s)", codec_name[cs->codec], detail);
	set_problem(cs, why);
	errno = EIO;
	return -1;
}

static ssize_t read_gzip(struct capstream *cs, uint8_t *buf, size_t size)
{
	cs->z.next_out = buf;
	cs->z.avail_out = (uInt)(size > UINT32_MAX ? UINT32_MAX : size);
	while (cs->z.avail_out == (uInt)size && !cs->ended) {
		if (cs->in_pos == cs->in_len) {
			ssize_t n = refill(cs);
			if (n < 0)
				return -1;
			if (n == 0) {
				cut_short(cs);
				break;
			}
		}
		cs->z.next_in = cs->in + cs->in_pos;
		cs->z.avail_in = (uInt)(cs->in_len - cs->in_pos);
		int rc = inflate(&cs->z, Z_NO_FLUSH);
		cs->in_pos = cs->in_len - cs->z.avail_in;
		if (rc == Z_STREAM_END) {
			/* gzip members may follow one another (pigz, cat a.gz b.gz) */
			if (cs->in_pos == cs->in_len && refill(cs) <= 0)
				cs->ended = true;
			else
				inflateReset(&cs->z);
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			return damaged(cs, cs->z.msg ? cs->z.msg : "inflate failed");
		}
	}
	return (ssize_t)(size - cs->z.avail_out);
}

static ssize_t read_zstd(struct capstream *cs, uint8_t *buf, size_t size)
{
	ZSTD_outBuffer out = { buf, size, 0 };

	while (out.pos == 0 && !cs->ended) {
		if (cs->in_pos == cs->in_len) {
			ssize_t n = refill(cs);
			if (n < 0)
				return -1;
			if (n == 0) {
				/* 0: the last frame ended; else it was cut */
				if (cs->zs_rc)
					cut_short(cs);
				cs->ended = true;
				break;
			}
		}
		ZSTD_inBuffer in = { cs->in + cs->in_pos, cs->in_len - cs->in_pos, 0 };
		cs->zs_rc = ZSTD_decompressStream(cs->zs, &out, &in);
		cs->in_pos += in.pos;
		if (ZSTD_isError(cs->zs_rc))
			return damaged(cs, ZSTD_getErrorName(cs->zs_rc));
	}
	return (ssize_t)out.pos;
}

static ssize_t read_xz(struct capstream *cs, uint8_t *buf, size_t size)
{
	cs->x.next_out = buf;
	cs->x.avail_out = size;
	while (cs->x.avail_out == size && !cs->ended) {
		if (cs->in_pos == cs->in_len && !cs->in_eof && refill(cs) < 0)
			return -1;
		cs->x.next_in = cs->in + cs->in_pos;
		cs->x.avail_in = cs->in_len - cs->in_pos;
		lzma_ret rc = lzma_code(&cs->x, cs->in_eof ? LZMA_FINISH : LZMA_RUN);
		cs->in_pos = cs->in_len - cs->x.avail_in;
		if (rc == LZMA_STREAM_END) {
			cs->ended = true;
		} else if (rc == LZMA_BUF_ERROR && cs->in_eof) {
			cut_short(cs);
			cs->ended = true;
		} else if (rc == LZMA_MEMLIMIT_ERROR) {
			return damaged(cs, "its dictionary needs more than 512 MB");
		} else if (rc != LZMA_OK) {
			return damaged(cs, rc == LZMA_DATA_ERROR ? "corrupt data" :
					   rc == LZMA_FORMAT_ERROR ? "not an xz stream" : "decoder error");
		}
	}
	return (ssize_t)(size - cs->x.avail_out);
}

static ssize_t read_raw(struct capstream *cs, uint8_t *buf, size_t size)
{
	if (cs->in_pos < cs->in_len) {   /* the bytes read to tell the format */
		size_t n = cs->in_len - cs->in_pos < size ? cs->in_len - cs->in_pos : size;
		memcpy(buf, cs->in + cs->in_pos, n);
		cs->in_pos += n;
		return (ssize_t)n;
	}
	for (;;) {
		ssize_t n = read(cs->fd, buf, size);
		if (n > 0)
			tee_bytes(cs, buf, (size_t)n);
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
	struct capstream *cs = cookie;
	ssize_t n;

	switch (cs->codec) {
	case C_GZIP: n = read_gzip(cs, (uint8_t *)buf, size); break;
	case C_ZSTD: n = read_zstd(cs, (uint8_t *)buf, size); break;
	case C_XZ:   n = read_xz(cs, (uint8_t *)buf, size); break;
	default:     n = read_raw(cs, (uint8_t *)buf, size); break;
	}
	if (n > 0)
		cs->pos += (uint64_t)n;
	return n;
}

/* Only "where am I" (ftell): the position in the decompressed bytes,
 * which is what record offsets are counted in. */
static int cookie_seek(void *cookie, off64_t *off, int whence)
{
	struct capstream *cs = cookie;

	if (whence != SEEK_CUR || *off != 0) {
		errno = ESPIPE;
		return -1;
	}
	*off = (off64_t)cs->pos;
	return 0;
}

static int cookie_close(void *cookie)
{
	return 0;   /* the stream is freed by capstream_free */
}

/* A format we do not read, told by its first bytes: what it is, and the
 * command that makes a capture of it ("CMD FILE TAIL"). */
struct hint {
	const char *what, *todo, *cmd, *tail;
};

static bool unreadable(const uint8_t *p, size_t n, struct hint *h)
{
	static const struct hint bz2 = { "bzip2-compressed", "decompress it first", "bunzip2 -k", "" },
		lz4 = { "lz4-compressed", "decompress it first", "lz4 -d", "" },
		z7 = { "a 7-Zip archive", "extract the capture first", "7z x", "" },
		zip = { "a zip archive", "extract the capture first", "unzip", "" },
		tar = { "a tar archive", "extract the capture first", "tar xf", "" },
		snoop = { "a snoop capture", "convert it first", "editcap -F pcap", " out.pcap" },
		lzw = { "compress(1)-compressed", "decompress it first", "uncompress", "" };

	if (n >= 3 && !memcmp(p, "BZh", 3))
		*h = bz2;
	else if (n >= 4 && !memcmp(p, "\x04\x22\x4d\x18", 4))
		*h = lz4;
	else if (n >= 6 && !memcmp(p, "7z\xbc\xaf\x27\x1c", 6))
		*h = z7;
	else if (n >= 4 && !memcmp(p, "PK\x03\x04", 4))
		*h = zip;
	else if (n >= 262 && !memcmp(p + 257, "ustar", 5))
		*h = tar;
	else if (n >= 8 && !memcmp(p, "snoop\0\0\0", 8))
		*h = snoop;
	else if (n >= 2 && p[0] == 0x1f && p[1] == 0x9d)
		*h = lzw;
	else
		return false;
	return true;
}

static int start_codec(struct capstream *cs, char *err, size_t errlen, const char *name)
{
	const uint8_t *p = cs->in;
	size_t n = cs->in_len;

	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		cs->codec = C_GZIP;
		if (inflateInit2(&cs->z, 15 + 16) != Z_OK)
			goto nomem;
	} else if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4)) {
		cs->codec = C_ZSTD;
		if (!(cs->zs = ZSTD_createDStream()))
			goto nomem;
		ZSTD_DCtx_setParameter(cs->zs, ZSTD_d_windowLogMax, ZSTD_WLOG);
	} else if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6)) {
		cs->codec = C_XZ;
		if (lzma_stream_decoder(&cs->x, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
			goto nomem;
	} else {
		struct hint h;
		if (unreadable(p, n, &h)) {
			/* stdin: the command goes before the pipe */
			snprintf(err, errlen, "%s: %s: %s (%s %s%s)", name, h.what, h.todo, h.cmd,
				 cs->fd == STDIN_FILENO && !cs->own_fd ? "FILE" : name, h.tail);
			return -EPROTONOSUPPORT;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory for the %s decoder", name, codec_name[cs->codec]);
	return -ENOMEM;
}

int capstream_open_tee(struct capstream **out, FILE **fp, const char *path, const char *name, int tee_fd,
		       char *err, size_t errlen)
{
	struct capstream *cs = calloc(1, sizeof(*cs));
	int ret;

	*out = NULL;
	*fp = NULL;
	if (cs)
		cs->tee_fd = tee_fd;
	if (!cs || !(cs->in = malloc(IN_SIZE))) {
		free(cs);
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (!strcmp(path, "-")) {
		cs->fd = STDIN_FILENO;
	} else if ((cs->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
		goto fail;
	} else {
		cs->own_fd = true;
	}
	while (cs->in_len < PEEK) {
		ssize_t n = refill(cs);
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", name, strerror(-ret));
			goto fail;
		}
		if (n == 0)
			break;
	}
	if ((ret = start_codec(cs, err, errlen, name)) < 0)
		goto fail;
	cookie_io_functions_t io = { .read = cookie_read, .seek = cookie_seek, .close = cookie_close };
	if (!(*fp = fopencookie(cs, "rb", io))) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
		goto fail;
	}
	*out = cs;
	return 0;
fail:
	capstream_free(cs);
	return ret;
}

int capstream_tee_error(const struct capstream *cs)
{
	return cs && cs->tee_err ? -cs->tee_err : 0;
}

const char *capstream_codec(const struct capstream *cs)
{
	return cs ? codec_name[cs->codec] : NULL;
}

const char *capstream_problem(const struct capstream *cs)
{
	return cs && cs->problem[0] ? cs->problem : NULL;
}

void capstream_free(struct capstream *cs)
{
	if (!cs)
		return;
	if (cs->codec == C_GZIP)
		inflateEnd(&cs->z);
	ZSTD_freeDStream(cs->zs);
	if (cs->codec == C_XZ)
		lzma_end(&cs->x);
	if (cs->own_fd)
		close(cs->fd);
	free(cs->in);
	free(cs);
}
