/* IP over InfiniBand (RFC 4391).  Two framings reach us:
 *  - pcap link type 242 (DLT_IPOIB): 40 bytes of hardware addresses, 20
 *    each (INFINIBAND_ALEN: flags and QPN, GID), the second the
 *    destination as tshark names it, then the 4-byte encapsulation
 *    header (44 bytes in all, as tcpdump's own ipoib.pcap has them);
 *  - datagram mode inside a native IB UD SEND (ERF type 21 records,
 *    DLT_INFINIBAND): LRH [GRH] BTH DETH, then the 4-byte encapsulation
 *    header.
 * The encapsulation header is an EtherType and 16 reserved bits that are
 * zero; IP follows.  What comes out is what the RoCE parsers give for a
 * non-RDMA IP packet: f->ip_ver and f->net_off, for rpc_net. */
#ifndef NFSRDMA_IPOIB_H
#define NFSRDMA_IPOIB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"
#include "dissect/ib.h"

#define IPOIB_HWADDR_LEN 20   /* INFINIBAND_ALEN: 4 bytes flags+QPN, 16 GID */
#define IPOIB_DLT_ADDRS  (2 * IPOIB_HWADDR_LEN)
#define IPOIB_ENCAP_LEN  4

/* Reads the encapsulation header: its EtherType into *etype, and whether
 * the reserved bits are zero, as every sender writes them (the only mark
 * a UD payload has that it is IPoIB and not some other datagram). */
static inline __attribute__((always_inline)) int ipoib_encap(struct cursor *c, uint16_t *etype,
							     bool *reserved_zero)
{
	*etype = cur_be16(c, "IPoIB type");
	*reserved_zero = cur_be16(c, "IPoIB reserved") == 0;
	return cur_ok(c) ? 0 : -EBADMSG;
}

/* A DLT_IPOIB frame at the cursor: 1 never (IPoIB carries no IB transport
 * packet), 0 with f->ip_ver set for IPv4/IPv6 (0 for ARP and the rest),
 * or a negative errno with the cursor error set. */
int ipoib_parse_frame(struct cursor *c, size_t wirelen, struct ib_frame *f);
/* The payload of a UD SEND (cursor at it, wire_end: where it ends on the
 * wire, counted from the cursor's base): 0, with f->ip_ver set when it
 * is an IPoIB datagram carrying IP; negative errno for a bad IP header
 * inside one. */
int ipoib_parse_ud(struct cursor *c, size_t wire_end, struct ib_frame *f);

#endif
