/* The one JSON writer (json.h). */
#include <math.h>

#include "dissect/name_text.h"
#include "src/base/json.h"

void jw_flush(struct jw *j)
{
	fwrite(j->buf, 1, (size_t)(j->p - j->buf), j->f);
	j->p = j->buf;
}

void jw_put_slow(struct jw *j, const char *s, size_t n)
{
	jw_flush(j);
	if (n > sizeof(j->buf)) {
		fwrite(s, 1, n, j->f);
		return;
	}
	memcpy(j->p, s, n);
	j->p += n;
}

void jw_u(struct jw *j, uint64_t v)
{
	static const char two[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[20], *e = t + sizeof(t), *q = e;

	if (v < 10) {
		jw_c(j, (char)('0' + v));
		return;
	}
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		memcpy(q, two + 2 * d, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, two + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	jw_put(j, q, (size_t)(e - q));
}

void jw_i(struct jw *j, int64_t v)
{
	if (v < 0) {
		jw_c(j, '-');
		/* INT64_MIN's magnitude does not fit an int64_t */
		jw_u(j, (uint64_t)0 - (uint64_t)v);
	} else {
		jw_u(j, (uint64_t)v);
	}
}

void jw_hex8(struct jw *j, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char t[10] = { '0', 'x' };

	for (int i = 0; i < 8; i++)
		t[9 - i] = hex[(v >> (4 * i)) & 15];
	jw_put(j, t, sizeof(t));
}

void jw_fixed(struct jw *j, double v, int prec)
{
	char t[64];
	int n;

	if (!isfinite(v)) {
		jw_null(j);
		return;
	}
	n = snprintf(t, sizeof(t), "%.*f", prec, v);
	if (n < 0 || (size_t)n >= sizeof(t)) {
		/* beyond 1e50: no number of ours, but still a number */
		n = snprintf(t, sizeof(t), "%.17g", v);
	}
	jw_put(j, t, (size_t)n);
}

void jw_strn(struct jw *j, const char *str, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	jw_c(j, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			jw_c(j, '\\');
			jw_c(j, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			jw_put(j, u, sizeof(u));
			i++;
		} else if (c < 0x80) {
			jw_c(j, (char)c);
			i++;
		} else if ((len = utf8_seq_len(s + i, n - i)) && utf8_is_c1(s + i, len)) {
			/* a C1 control: the same code point, escaped (\u009b is
			 * CSI, which a terminal showing the line would obey) */
			char u[6] = { '\\', 'u', '0', '0', hex[s[i + 1] >> 4], hex[s[i + 1] & 15] };
			jw_put(j, u, sizeof(u));
			i += len;
		} else if (len) {
			jw_put(j, (const char *)s + i, len);
			i += len;
		} else {
			char u[6] = { '\\', 'u', 'd', 'c', hex[c >> 4], hex[c & 15] };
			jw_put(j, u, sizeof(u));
			i++;
		}
	}
	jw_c(j, '"');
}

void jw_counts(struct jw *j, const char *const *name, const uint64_t *v, unsigned n, bool lead)
{
	for (unsigned k = 0; k < n; k++) {
		jw_lit(j, k || lead ? ",\"" : "\"");
		jw_lit(j, name[k]);
		jw_lit(j, "\":");
		jw_u(j, v[k]);
	}
}
