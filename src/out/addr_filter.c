/* --addr parsing and matching (see addr_filter.h). */
#include "src/out/addr_filter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static int bad(char *err, size_t errlen, const char *s, const char *why)
{
	snprintf(err, errlen, "--addr '%s': %s (forms: 10.9.0.2, 10.9.0.2.qp17, 10.9.0.0/24, "
		 "fe80::1, fe80::/64, gid fe80::1, lid 0x3)", s, why);
	return -EINVAL;
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && !*end && *v <= max;
}

int addr_filter_parse(struct addr_filter *f, const char *s, char *err, size_t errlen)
{
	char buf[128];
	unsigned long v;

	memset(f, 0, sizeof(*f));
	if (strlen(s) >= sizeof(buf))
		return bad(err, errlen, s, "too long");
	snprintf(buf, sizeof(buf), "%s", s);
	char *a = buf;
	/* the endpoint form the tools print: ADDR.qpN */
	char *qp = strstr(a, ".qp");
	if (qp) {
		if (!parse_uint(qp + 3, UINT32_MAX, &v) || !v)
			return bad(err, errlen, s, "the QP number after .qp is not a number");
		f->has_qpn = true;
		f->qpn = (uint32_t)v;
		*qp = 0;
	}
	if (!strncasecmp(a, "lid", 3) && (a[3] == ' ' || a[3] == ':')) {
		if (!parse_uint(a + 4, 0xffff, &v))
			return bad(err, errlen, s, "a LID is a number up to 0xffff");
		f->family = 'L';
		f->lid = (uint16_t)v;
		return 0;
	}
	if (!strncasecmp(a, "gid", 3) && (a[3] == ' ' || a[3] == ':'))
		a += 4;
	char *slash = strchr(a, '/');
	if (slash)
		*slash = 0;
	if (inet_pton(AF_INET, a, f->addr) == 1) {
		f->family = 4;
		f->prefix = 32;
	} else if (inet_pton(AF_INET6, a, f->addr) == 1) {
		f->family = 6;
		f->prefix = 128;
	} else {
		return bad(err, errlen, s, "not an address");
	}
	if (slash) {
		if (!parse_uint(slash + 1, f->prefix, &v))
			return bad(err, errlen, s, f->family == 4 ? "prefix length is 0..32" : "prefix length is 0..128");
		if (f->has_qpn)
			return bad(err, errlen, s, "a prefix names many hosts, a QP one endpoint: use one or the other");
		f->prefix = (unsigned)v;
	}
	return 0;
}

static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes))
		return false;
	if (!rest)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[bytes] & mask) == (b[bytes] & mask);
}

bool addr_filter_match(const struct addr_filter *f, const struct rec_endpoint *e)
{
	if (f->has_qpn && e->qpn != f->qpn)
		return false;
	switch (f->family) {
	case 'L':
		return e->lid == f->lid && (e->family == 'L' || e->lid);
	case 4:
		if (e->family == 4)
			return prefix_eq(e->addr, f->addr, f->prefix);
		/* RoCE GIDs of IPv4 interfaces are IPv4-mapped */
		if (e->family == 6 || e->family == 'G')
			return !memcmp(e->addr, v4mapped, 12) && prefix_eq(e->addr + 12, f->addr, f->prefix);
		return false;
	case 6:
		if (e->family == 4 && !memcmp(f->addr, v4mapped, 12))
			return f->prefix >= 96 && prefix_eq(e->addr, f->addr + 12, f->prefix - 96);
		return (e->family == 6 || e->family == 'G') && prefix_eq(e->addr, f->addr, f->prefix);
	}
	return false;
}
