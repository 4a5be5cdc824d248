#include "src/probe/probe_format.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tp_tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat st;
	char p[64];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			return roots[i];
	}
	return NULL;
}

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

int tp_format_load(const char *root, const char *sys, const char *event, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n = 0;
	int fd;

	if (!root || !buf || len < 2 || !name_ok(sys) || !name_ok(event))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, event) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs files report size 0: read until EOF, bounded by the buffer. */
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n + 1 >= len)
		return -EFBIG;
	buf[n] = 0;
	return (int)n;
}

/* Parses the number after "key:" in [p, end); returns -1 if absent. */
static long line_num(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);

	for (const char *q = p; q + kl < end; q++) {
		if (memcmp(q, key, kl) == 0 && (q == p || q[-1] == '\t' || q[-1] == ' ' || q[-1] == ';')) {
			char num[16];
			size_t i = 0;

			q += kl;
			while (q < end && i + 1 < sizeof(num) && *q >= '0' && *q <= '9')
				num[i++] = *q++;
			num[i] = 0;
			return i ? strtol(num, NULL, 10) : -1;
		}
	}
	return -1;
}

int tp_format_field(const char *text, const char *name, struct tp_field *out)
{
	size_t nl = strlen(name);
	const char *p = text;

	if (!text || !nl)
		return -EINVAL;
	/* Lines look like: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;"
	 * NAME may carry an array suffix ("char buf[16]"). */
	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *f = p;

		while (f < end && (*f == ' ' || *f == '\t'))
			f++;
		if ((size_t)(end - f) > 6 && memcmp(f, "field:", 6) == 0) {
			const char *semi = f, *ne, *ns;

			while (semi < end && *semi != ';')
				semi++;
			if (semi == end)
				semi = NULL;

			if (semi) {
				ns = semi;
				while (ns > f + 6 && ns[-1] != ' ' && ns[-1] != '\t')
					ns--;
				ne = ns;
				while (ne < semi && *ne != '[')
					ne++;
				if ((size_t)(ne - ns) == nl && memcmp(ns, name, nl) == 0) {
					long off = line_num(semi, end, "offset:");
					long size = line_num(semi, end, "size:");
					long sgn = line_num(semi, end, "signed:");

					if (off < 0 || off > 0xfff0 || size <= 0 || size > 0x7fff)
						return -EINVAL;
					out->off = (uint16_t)off;
					out->size = (uint16_t)size;
					out->is_signed = sgn == 1;
					out->data_loc = memmem(f, (size_t)(ns - f), "__data_loc", 10) != NULL;
					return 0;
				}
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return -ENOENT;
}
