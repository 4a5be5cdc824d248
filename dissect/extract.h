/* Bounded readers for wire fields.  Every decoder reads packet bytes only
 * through a cursor: a read past the end returns 0 and makes the cursor
 * sticky-truncated, so a decoder can read a whole header and check once.
 * One failure model for the whole library: TRUNCATED (the bytes ran out)
 * vs INVALID (the bytes are there but say something impossible). */
#ifndef NFSRDMA_EXTRACT_H
#define NFSRDMA_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum cur_err { CUR_OK = 0, CUR_TRUNCATED = 1, CUR_INVALID = 2 };

struct cursor {
	const uint8_t *base;
	size_t len;         /* bytes available */
	size_t off;         /* next byte to read */
	enum cur_err err;   /* sticky: first failure wins */
	size_t err_off;     /* where it happened (offset from base) */
	const char *err_what; /* static string naming the field */
};

static inline struct cursor cur_make(const uint8_t *p, size_t len)
{
	struct cursor c = { p, len, 0, CUR_OK, 0, NULL };
	return c;
}

static inline bool cur_ok(const struct cursor *c) { return c->err == CUR_OK; }
static inline size_t cur_left(const struct cursor *c) { return c->err || c->off > c->len ? 0 : c->len - c->off; }
static inline const uint8_t *cur_ptr(const struct cursor *c) { return c->base + c->off; }

static inline void cur_fail(struct cursor *c, enum cur_err e, const char *what)
{
	if (c->err == CUR_OK) {
		c->err = e;
		c->err_off = c->off;
		c->err_what = what;
	}
}

/* True when n more bytes can be read; marks truncation otherwise. */
static inline bool cur_need(struct cursor *c, size_t n, const char *what)
{
	if (c->err)
		return false;
	if (n > c->len - c->off) {
		cur_fail(c, CUR_TRUNCATED, what);
		return false;
	}
	return true;
}

static inline uint8_t cur_u8(struct cursor *c, const char *what)
{
	if (!cur_need(c, 1, what))
		return 0;
	return c->base[c->off++];
}

static inline uint16_t cur_be16(struct cursor *c, const char *what)
{
	if (!cur_need(c, 2, what))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 2;
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t cur_be24(struct cursor *c, const char *what)
{
	if (!cur_need(c, 3, what))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 3;
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline uint32_t cur_be32(struct cursor *c, const char *what)
{
	if (!cur_need(c, 4, what))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 4;
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t cur_be64(struct cursor *c, const char *what)
{
	uint64_t hi = cur_be32(c, what);
	uint64_t lo = cur_be32(c, what);
	return (hi << 32) | lo;
}

static inline uint32_t cur_le32(struct cursor *c, const char *what)
{
	if (!cur_need(c, 4, what))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 4;
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

static inline uint64_t cur_le64(struct cursor *c, const char *what)
{
	uint64_t lo = cur_le32(c, what);
	uint64_t hi = cur_le32(c, what);
	return (hi << 32) | lo;
}

/* Returns a pointer to n bytes and advances, or NULL (truncated). */
static inline const uint8_t *cur_bytes(struct cursor *c, size_t n, const char *what)
{
	if (!cur_need(c, n, what))
		return NULL;
	const uint8_t *p = c->base + c->off;
	c->off += n;
	return p;
}

static inline bool cur_skip(struct cursor *c, size_t n, const char *what)
{
	return cur_bytes(c, n, what) != NULL;
}

/* A sub-cursor over the next n bytes (truncated if fewer remain). */
static inline struct cursor cur_sub(struct cursor *c, size_t n, const char *what)
{
	const uint8_t *p = cur_bytes(c, n, what);
	struct cursor s = cur_make(p ? p : c->base, p ? n : 0);
	if (!p)
		cur_fail(&s, CUR_TRUNCATED, what);
	return s;
}

/* XDR: opaque<> / string<> with 4-byte roundup; max bounds the length. */
static inline const uint8_t *cur_xdr_opaque(struct cursor *c, uint32_t max, uint32_t *lenp, const char *what)
{
	uint32_t n = cur_be32(c, what);
	if (c->err)
		return NULL;
	if (n > max) {
		c->off -= 4;
		cur_fail(c, CUR_INVALID, what);
		return NULL;
	}
	const uint8_t *p = cur_bytes(c, n, what);
	if (p && (n & 3))
		cur_skip(c, 4 - (n & 3), what);
	if (lenp)
		*lenp = n;
	return c->err ? NULL : p;
}

static inline const char *cur_err_name(enum cur_err e)
{
	return e == CUR_TRUNCATED ? "truncated" : e == CUR_INVALID ? "invalid" : "ok";
}

#endif
