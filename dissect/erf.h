/* Endace ERF record header (pcap link type 197): 16 bytes, optional 8-byte
 * extension headers, and a 2-byte pad before Ethernet frames.  ibdump
 * writes InfiniBand ports as ERF type 21 records whose packet starts at
 * the LRH, CRCs included. */
#ifndef NFSRDMA_ERF_H
#define NFSRDMA_ERF_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/extract.h"

#define ERF_HDR_LEN 16

enum erf_type {
	ERF_TYPE_HDLC_POS = 1, ERF_TYPE_ETH = 2, ERF_TYPE_ATM = 3, ERF_TYPE_AAL5 = 4,
	ERF_TYPE_COLOR_ETH = 11, ERF_TYPE_DSM_COLOR_ETH = 16, ERF_TYPE_COLOR_HASH_ETH = 20,
	ERF_TYPE_INFINIBAND = 21, ERF_TYPE_IPV4 = 22, ERF_TYPE_IPV6 = 23,
	ERF_TYPE_RAW_LINK = 24, ERF_TYPE_INFINIBAND_LINK = 25, ERF_TYPE_META = 27,
	ERF_TYPE_PAD = 48,
};

/* flags byte */
#define ERF_FLAG_IFACE    0x03
#define ERF_FLAG_VLEN     0x04
#define ERF_FLAG_TRUNC    0x08  /* record truncated by the capture card */
#define ERF_FLAG_RXERR    0x10  /* link error, e.g. bad CRC */
#define ERF_FLAG_DSERR    0x20

struct erf_hdr {
	uint64_t ts;        /* ERF fixed point: seconds << 32 | fraction */
	uint8_t  type;      /* low 7 bits of the type byte */
	bool     ext;       /* extension headers present */
	uint8_t  flags;
	uint16_t rlen;      /* record length, header included, may be padded */
	uint16_t lctr;      /* loss counter or colour */
	uint16_t wlen;      /* packet length on the wire */
	uint8_t  n_ext;     /* extension headers skipped */
};

/* Parses the header at the cursor and leaves the cursor at the packet (past
 * extension headers and, for Ethernet types, the 2-byte pad).  Returns 0 or
 * a negative errno with the cursor error set. */
int erf_parse(struct cursor *c, struct erf_hdr *h);
const char *erf_type_name(uint8_t type);
/* Ethernet-family types carry the frame after a 2-byte pad. */
bool erf_type_is_eth(uint8_t type);
uint64_t erf_ts_ns(uint64_t ts);

#endif
