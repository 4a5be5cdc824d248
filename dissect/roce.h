/* RoCE framing: Ethernet (with 802.1Q/802.1ad/QinQ tags), Linux cooked
 * captures (SLL, SLL2), IPv4/IPv6 + UDP port 4791 (RoCEv2) and Ethertype
 * 0x8915 (RoCEv1: GRH + BTH).  Each parser reduces a frame to an ib_frame
 * (addresses, UDP source port, cursor at the BTH, wire length of the IB
 * transport part without the ICRC). */
#ifndef NFSRDMA_ROCE_H
#define NFSRDMA_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"
#include "dissect/ib.h"

#define ROCE_V2_UDP_PORT 4791
#define ETHERTYPE_IPV4   0x0800
#define ETHERTYPE_IPV6   0x86dd
#define ETHERTYPE_VLAN   0x8100
#define ETHERTYPE_QINQ   0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100
#define ETHERTYPE_ROCE   0x8915

/* All return 1 when the frame carries an IB transport packet (f filled),
 * 0 when it is some other protocol, and a negative errno on a malformed
 * frame (cursor error set, f->layer names the layer).  wirelen is the
 * frame's length on the wire counted from the cursor's base. */
int roce_parse_eth(struct cursor *c, size_t wirelen, struct ib_frame *f);
int roce_parse_sll(struct cursor *c, size_t wirelen, struct ib_frame *f);
int roce_parse_sll2(struct cursor *c, size_t wirelen, struct ib_frame *f);
/* From the Ethertype on (after any link header). */
int roce_parse_ethertype(struct cursor *c, uint16_t etype, size_t wirelen, struct ib_frame *f);
/* A bare IPv4 or IPv6 packet (version from the first nibble). */
int roce_parse_ip(struct cursor *c, size_t wirelen, struct ib_frame *f);
/* The same for a capture with (icrc_len 4) or without (0) the ICRC after
 * each packet; the functions above assume it is there. */
int roce_parse_eth_icrc(struct cursor *c, size_t wirelen, struct ib_frame *f, uint8_t icrc_len);
int roce_parse_sll_icrc(struct cursor *c, size_t wirelen, struct ib_frame *f, uint8_t icrc_len);
int roce_parse_sll2_icrc(struct cursor *c, size_t wirelen, struct ib_frame *f, uint8_t icrc_len);
int roce_parse_ip_icrc(struct cursor *c, size_t wirelen, struct ib_frame *f, uint8_t icrc_len);
/* Does the frame carry the ICRC of the RoCE packet f describes (parsed
 * with f->icrc_len 4; f->bth still at the BTH)?  False when it cannot be
 * told (not captured, IP options). */
bool roce_icrc_matches(const uint8_t *frame, size_t caplen, const struct ib_frame *f);

#endif
