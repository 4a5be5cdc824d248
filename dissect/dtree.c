#include "dissect/grow.h"
#include "dissect/dtree.h"
#include "dissect/name_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dt_init(struct dtree *t, size_t limit)
{
	memset(t, 0, sizeof(*t));
	t->limit = limit ? limit : 1u << 20;
}

void dt_reset(struct dtree *t)
{
	t->len = 0;
	t->depth = 0;
	if (t->buf)
		t->buf[0] = 0;
}

void dt_free(struct dtree *t)
{
	free(t->buf);
	t->buf = NULL;
	t->len = t->cap = 0;
}

static int dt_reserve(struct dtree *t, size_t need)
{
	if (t->len + need + 1 <= t->cap)
		return 0;
	if (t->len + need + 1 > t->limit)
		return -1;
	return ARR_RESERVE(t->buf, t->cap, t->len + need + 1, 1024) < 0 ? -1 : 0;
}

void dt_add(struct dtree *t, const char *fmt, ...)
{
	char raw[512], line[4 * sizeof(raw)];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* strings from the wire (tags, netids, addresses) reach a terminal:
	 * their control bytes and invalid UTF-8 become \xHH here */
	n = (int)strlen(text_safe(raw, sizeof(raw), line, sizeof(line)));
	size_t ind = (size_t)t->depth * 4;
	if (dt_reserve(t, ind + (size_t)n + 1))
		return;
	memset(t->buf + t->len, ' ', ind);
	memcpy(t->buf + t->len + ind, line, (size_t)n);
	t->len += ind + (size_t)n;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = 0;
}

