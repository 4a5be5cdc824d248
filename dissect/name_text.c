#include "dissect/name_text.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t name_keep(const uint8_t *p, size_t n, size_t cap, bool *cut)
{
	size_t k = 0;

	while (k < n && k < cap && p[k])
		k++;
	*cut = k < n;
	if (k < n && k == cap) {
		/* a character the bound splits goes whole, not as stray bytes
		 * that would read as invalid UTF-8 */
		for (size_t back = 1; back < 4 && back <= k; back++) {
			size_t len = utf8_seq_len(p + k - back, n - (k - back));
			if (len > back) {
				k -= back;
				break;
			}
			if (p[k - back] < 0x80 || p[k - back] > 0xbf)
				break;
		}
	}
	return k;
}

static const char *esc(const char *str, size_t max, char *buf, size_t len, bool quotes)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0, n = 0;

	if (!len)
		return buf;
	while (n < max && s[n])
		n++;
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len(s + i, n - i);
		bool raw = l > 1 ? !utf8_is_c1(s + i, l) : l == 1 && s[i] >= 0x20 && s[i] != 0x7f;

		if (quotes && l == 1 && (s[i] == '"' || s[i] == '\\')) {
			if (o + 2 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = (char)s[i++];
		} else if (raw) {
			if (o + l >= len)
				break;
			for (size_t k = 0; k < l; k++)
				buf[o++] = (char)s[i++];
		} else {
			/* every byte of it, so \xHH always means one byte */
			size_t m = l ? l : 1;
			if (o + 4 * m >= len)
				break;
			for (size_t k = 0; k < m; k++, i++) {
				buf[o++] = '\\';
				buf[o++] = 'x';
				buf[o++] = hex[s[i] >> 4];
				buf[o++] = hex[s[i] & 15];
			}
		}
	}
	buf[o] = 0;
	return buf;
}

const char *name_text(const char *s, size_t max, char *buf, size_t len)
{
	return esc(s, max, buf, len, true);
}

const char *text_safe(const char *s, size_t max, char *buf, size_t len)
{
	return esc(s, max, buf, len, false);
}
