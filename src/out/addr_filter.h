/* --addr: which endpoints a user means.  Accepts what the tools print
 * (10.9.0.2, 10.9.0.2.qp17, gid fe80::1, lid 0x0003) and prefixes
 * (10.9.0.0/24, fe80::/64), compared as numbers, never as strings. */
#ifndef NFSRDMA_ADDR_FILTER_H
#define NFSRDMA_ADDR_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

struct addr_filter {
	uint8_t  family;       /* 4, 6 (an IPv6 address or a GID), 'L' (a LID) */
	uint8_t  addr[16];
	unsigned prefix;       /* leading bits compared: 32/128 for one address */
	bool     has_qpn;
	uint32_t qpn;
	uint16_t lid;
};

/* Returns 0, or -EINVAL with one line naming what is wrong in err. */
int addr_filter_parse(struct addr_filter *f, const char *s, char *err, size_t errlen);
bool addr_filter_match(const struct addr_filter *f, const struct rec_endpoint *e);

#endif
