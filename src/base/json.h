/* The one JSON writer of every tool (docs/record.md, "Names"): a line is
 * built in one buffer and written with one fwrite.  Printing it field by
 * field with fprintf was ~60 % of the time of `nfsrdma-dissect --json`
 * (format parsing and a stream lock per call), and two hand-written
 * writers had the same `"t":null` bug twice; strings, numbers and null
 * are written here only. */
#ifndef NFSRDMA_JSON_H
#define NFSRDMA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct jw {
	FILE *f;
	char *p;
	char buf[8192];
};

static inline void jw_init(struct jw *j, FILE *f)
{
	j->f = f;
	j->p = j->buf;
}

/* What is built so far to the stream; the builder stays usable. */
void jw_flush(struct jw *j);
void jw_put_slow(struct jw *j, const char *s, size_t n);

/* Inline, so the copy of a literal key is a few moves. */
static inline void jw_put(struct jw *j, const char *s, size_t n)
{
	if (__builtin_expect(n > sizeof(j->buf) - (size_t)(j->p - j->buf), 0)) {
		jw_put_slow(j, s, n);
		return;
	}
	memcpy(j->p, s, n);
	j->p += n;
}

static inline void jw_c(struct jw *j, char c)
{
	if (j->p == j->buf + sizeof(j->buf))
		jw_flush(j);
	*j->p++ = c;
}

/* Raw JSON text (punctuation, a literal key), not escaped. */
static inline void jw_lit(struct jw *j, const char *s) { jw_put(j, s, strlen(s)); }

void jw_u(struct jw *j, uint64_t v);
void jw_i(struct jw *j, int64_t v);
/* "0x%08x", unquoted */
void jw_hex8(struct jw *j, uint32_t v);
/* printf's "%.*f"; a value that is not finite is null (JSON has no nan) */
void jw_fixed(struct jw *j, double v, int prec);
static inline void jw_null(struct jw *j) { jw_put(j, "null", 4); }
static inline void jw_bool(struct jw *j, bool b) { b ? jw_put(j, "true", 4) : jw_put(j, "false", 5); }
/* v, or null when !known */
static inline void jw_u_or_null(struct jw *j, bool known, uint64_t v)
{
	if (known)
		jw_u(j, v);
	else
		jw_null(j);
}
/* A time in ns; 0 (a file read flat out, no record: no time) is null,
 * not the epoch. */
static inline void jw_time(struct jw *j, uint64_t ns) { jw_u_or_null(j, ns != 0, ns); }

/* A string: valid UTF-8 is copied as it is but for the controls (C0, DEL,
 * C1: \u00XX); a byte that is not part of a valid sequence (wire data is
 * not text) becomes the lone low surrogate U+DC00 + byte, as Python's
 * "surrogateescape" does, so the line stays valid JSON and the original
 * bytes come back with json.loads(...).encode("utf-8", "surrogateescape").
 * At most max bytes of s, up to a NUL. */
void jw_strn(struct jw *j, const char *s, size_t max);
static inline void jw_str(struct jw *j, const char *s) { jw_strn(j, s, (size_t)-1); }

/* "name":v for n counters (names literal keys), a comma between them and,
 * when lead, before the first too. */
void jw_counts(struct jw *j, const char *const *name, const uint64_t *v, unsigned n, bool lead);

/* ,"k": for a literal key k (the leading comma: not the first member) */
#define JW_KEY(j, k)  jw_put(j, ",\"" k "\":", sizeof(",\"" k "\":") - 1)
/* "k": for a literal key k, the first member */
#define JW_KEY1(j, k) jw_put(j, "\"" k "\":", sizeof("\"" k "\":") - 1)

#endif
