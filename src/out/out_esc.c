/* The CSV and text conventions of strings from the wire (out.h); JSON's
 * is out_json.c's, the UTF-8 check dissect/name_text.h's. */
#include "src/out/out.h"

#include "dissect/name_text.h"

const char *out_csv_esc(const char *str, size_t max, char *buf, size_t len)
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
		char e[6] = { '\\', 'u', '0', '0', 0, 0 };
		unsigned v;

		if (l == 1 && s[i] == '\\') {
			if (o + 2 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = '\\';
			i++;
			continue;
		}
		if (l == 1 && s[i] >= 0x20 && s[i] != 0x7f) {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)s[i++];
			continue;
		}
		if (l > 1 && !utf8_is_c1(s + i, l)) {
			if (o + l >= len)
				break;
			for (size_t k = 0; k < l; k++)
				buf[o++] = (char)s[i++];
			continue;
		}
		/* a control (C1: its code point) or a byte of no character */
		if (l == 2) {
			v = s[i + 1];
		} else if (l == 1) {
			v = s[i];
		} else {
			v = s[i];
			e[2] = 'd';
			e[3] = 'c';
			l = 1;
		}
		if (o + 6 >= len)
			break;
		e[4] = hex[v >> 4];
		e[5] = hex[v & 15];
		for (size_t k = 0; k < 6; k++)
			buf[o++] = e[k];
		i += l;
	}
	buf[o] = 0;
	return buf;
}

void out_text_name(FILE *f, const char *name, size_t max, bool cut)
{
	char q[4 * 256 + 1];

	fprintf(f, "\"%s\"%s", name_text(name, max < 256 ? max : 256, q, sizeof(q)), cut ? "..." : "");
}
