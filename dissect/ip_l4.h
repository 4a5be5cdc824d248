/* IPv4 / IPv6 down to TCP or UDP, for ONC RPC over TCP and UDP (the RoCE
 * parsers stop at the IP header of anything that is not RoCE and say
 * where it starts).  Lengths come from the IP header, never from the
 * frame size, so Ethernet padding is not taken for payload. */
#ifndef NFSRDMA_IP_L4_H
#define NFSRDMA_IP_L4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"

#define IPPROTO_TCP_NUM 6
#define IPPROTO_UDP_NUM 17

#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_ACK 0x10

struct l4_pkt {
	uint8_t  family;          /* 4 or 6 */
	uint8_t  proto;           /* IPPROTO_TCP_NUM / IPPROTO_UDP_NUM */
	uint8_t  src[16], dst[16];
	uint16_t sport, dport;
	/* an IP fragment (more follow, or offset > 0): payload is the
	 * fragment's share of the IP payload, no TCP/UDP header read */
	bool     frag, frag_more;
	uint32_t frag_id, frag_off;
	/* TCP */
	uint32_t seq, ack;
	uint8_t  tcp_flags;
	/* the TCP/UDP payload (or the fragment): cap_len bytes captured of
	 * wire_len on the wire; off is where it starts in the cursor */
	const uint8_t *payload;
	size_t   cap_len, wire_len, off;
};

/* c is at an IP header, wirelen the packet's length on the wire from the
 * cursor's base.  Returns 1 for TCP, UDP and IP fragments (p filled), 0
 * for another protocol, or a negative errno on a malformed packet (the
 * cursor's error says where). */
int ip_l4_parse(struct cursor *c, size_t wirelen, struct l4_pkt *p);
/* A reassembled UDP datagram (the IP payload, UDP header first): fills
 * the ports and payload of p.  0, or a negative errno. */
int ip_l4_udp(struct cursor *c, size_t ip_payload, struct l4_pkt *p);

#endif
