/* --addr: every form the tools print and CIDR prefixes, against endpoints
 * built by hand; bad forms refused with a reason. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "src/out/addr_filter.h"

static struct rec_endpoint ep4(const char *a, uint32_t qpn)
{
	struct rec_endpoint e = { .family = 4, .qpn = qpn };
	inet_pton(AF_INET, a, e.addr);
	return e;
}

static struct rec_endpoint ep6(uint8_t fam, const char *a, uint32_t qpn)
{
	struct rec_endpoint e = { .family = fam, .qpn = qpn };
	inet_pton(AF_INET6, a, e.addr);
	return e;
}

static int m(const char *spec, struct rec_endpoint e)
{
	struct addr_filter f;
	char err[256];

	if (addr_filter_parse(&f, spec, err, sizeof(err)) < 0)
		return -1;
	return addr_filter_match(&f, &e);
}

static void refused(const char *spec, const char *why)
{
	struct addr_filter f;
	char err[256] = "";

	CHECK(addr_filter_parse(&f, spec, err, sizeof(err)) == -EINVAL, "'%s' accepted", spec);
	CHECK(strstr(err, why) != NULL, "'%s': '%s' does not say '%s'", spec, err, why);
}

int main(void)
{
	struct rec_endpoint a = ep4("10.9.0.2", 17), lid = { .family = 'L', .lid = 3, .qpn = 5 };

	CHECK_EQ_U64(m("10.9.0.2", a), 1);
	CHECK_EQ_U64(m("10.9.0.3", a), 0);
	CHECK_EQ_U64(m("10.9.0.2.qp17", a), 1);
	CHECK_EQ_U64(m("10.9.0.2.qp18", a), 0);
	CHECK_EQ_U64(m("10.9.0.0/24", a), 1);
	CHECK_EQ_U64(m("10.9.0.0/31", a), 0);   /* 10.9.0.0-1 */
	CHECK_EQ_U64(m("10.9.0.2/31", a), 1);   /* 10.9.0.2-3 */
	CHECK_EQ_U64(m("10.8.0.0/15", a), 1);   /* 10.8.0.0-10.9.255.255 */
	CHECK_EQ_U64(m("10.10.0.0/15", a), 0);
	CHECK_EQ_U64(m("0.0.0.0/0", a), 1);
	CHECK_EQ_U64(m("::ffff:10.9.0.2", a), 1);          /* IPv4-mapped spelling */
	CHECK_EQ_U64(m("gid ::ffff:10.9.0.2", a), 1);
	CHECK_EQ_U64(m("fe80::1", a), 0);

	struct rec_endpoint g = ep6('G', "fe80::5054:ff:fe12:3456", 0x11);
	CHECK_EQ_U64(m("gid fe80::5054:ff:fe12:3456", g), 1);
	CHECK_EQ_U64(m("fe80::5054:ff:fe12:3456", g), 1);
	CHECK_EQ_U64(m("fe80::/64", g), 1);
	CHECK_EQ_U64(m("fe81::/16", g), 0);
	CHECK_EQ_U64(m("fe80::5054:ff:fe12:3456.qp17", g), 1);
	CHECK_EQ_U64(m("10.9.0.2", g), 0);
	struct rec_endpoint gm = ep6('G', "::ffff:10.9.0.2", 1);   /* RoCEv1 GID of an IPv4 port */
	CHECK_EQ_U64(m("10.9.0.2", gm), 1);
	CHECK_EQ_U64(m("10.9.0.0/16", gm), 1);

	CHECK_EQ_U64(m("lid 0x3", lid), 1);
	CHECK_EQ_U64(m("lid 3.qp5", lid), 1);
	CHECK_EQ_U64(m("lid 4", lid), 0);

	refused("bogus", "not an address");
	refused("10.9.0.0/33", "0..32");
	refused("fe80::/129", "0..128");
	refused("10.9.0.2.qpX", "QP number");
	refused("10.9.0.0/24.qp3", "one or the other");
	refused("10.9.0.2.qp3/24", "QP number");
	refused("lid 0x10000", "LID");
	refused("", "not an address");
	return check_summary("addr-filter");
}
