/* IP over InfiniBand framings (ipoib.h). */
#include "dissect/ipoib.h"

#include "dissect/roce.h"

static int ipoib_ip(struct cursor *c, uint16_t etype, size_t wire_end, struct ib_frame *f)
{
	if (etype != ETHERTYPE_IPV4 && etype != ETHERTYPE_IPV6)
		return 0;   /* ARP and the rest: not ours */
	int rc = roce_parse_ethertype(c, etype, wire_end, f);
	/* RoCEv2 tunnelled in IPoIB is no RDMA we could pair: the IP packet
	 * is all that is of use, as UDP to port 4791. */
	return rc == 1 ? 0 : rc;
}

int ipoib_parse_frame(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	uint16_t etype;
	bool zero;

	f->layer = "ipoib";
	f->ip_ver = 0;
	cur_skip(c, IPOIB_DLT_ADDRS, "IPoIB hardware addresses");
	if (ipoib_encap(c, &etype, &zero) < 0)
		return -EBADMSG;
	/* tshark reads on when the reserved bits are set; so do we */
	return ipoib_ip(c, etype, wirelen, f);
}

int ipoib_parse_ud(struct cursor *c, size_t wire_end, struct ib_frame *f)
{
	struct cursor peek = *c;
	uint16_t etype;
	bool zero;

	f->ip_ver = 0;
	if (ipoib_encap(&peek, &etype, &zero) < 0 || !zero)
		return 0;   /* too short or not IPoIB: some other UD datagram */
	if (etype != ETHERTYPE_IPV4 && etype != ETHERTYPE_IPV6)
		return 0;
	*c = peek;
	f->layer = "ipoib";
	return ipoib_ip(c, etype, wire_end, f);
}
