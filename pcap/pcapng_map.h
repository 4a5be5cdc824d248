/* pcapng read straight from the mapping (capmap.h), as classic pcap is:
 * Section Header, Interface Description, Enhanced and Simple Packet
 * Blocks (and the obsolete Packet Block); every other block (Name
 * Resolution, Interface Statistics, Decryption Secrets, custom, ...)
 * skipped by its length.  Either byte order, any number of sections
 * (interfaces are numbered per section), and interfaces each with their
 * own link type, snapshot length, if_tsresol (power of 10 or of 2) and
 * if_tsoffset.  Private to pcap/capfile.c. */
#ifndef NFSRDMA_PCAPNG_MAP_H
#define NFSRDMA_PCAPNG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap/capmap.h"

struct ng_iface {
	int linktype;           /* -1: the IDB was unusable; its packets are skipped */
	uint32_t snaplen;
	bool pow2;              /* if_tsresol: 2^-exp, else 10^-exp */
	uint8_t exp;
	uint64_t per_sec;       /* timestamp units per second */
	int64_t offset_s;       /* if_tsoffset */
};

struct pcapng_map {
	struct capmap cm;
	size_t pos;             /* the next block */
	size_t last_off;        /* the block before, whose trailer is checked next */
	uint32_t last_len;      /* 0: checked */
	bool swap;              /* this section's byte order is not ours */
	int linktype;           /* the last packet's interface's; before one, the first IDB's */
	struct ng_iface *ifs;   /* this section's interfaces */
	uint32_t nifs, cap_ifs;
	const char *path;       /* for the warnings */
	unsigned warned;        /* problems told so far (capped) */
};

/* fd/size: a regular file whose first 4 bytes are the SHB type.  0: the
 * map is ready and m->linktype is the first interface's; a negative
 * errno with one line (without the file name) in why otherwise. */
int ngmap_open(struct pcapng_map *m, int fd, size_t size, const char *path, char *why, size_t whylen);
/* 1: a packet; 0: the end; -EIO: the blocks cannot be followed on from
 * *off (why says what is wrong there).  A damaged block whose length can
 * still be trusted (trailing length that disagrees, a packet longer than
 * its block, an unknown interface, a bad IDB) is told on one warning
 * line naming the file and the offset, and the reading goes on. */
int ngmap_next(struct pcapng_map *m, uint64_t *ts_ns, const uint8_t **data, size_t *caplen,
	       size_t *wirelen, size_t *off, char *why, size_t whylen);
void ngmap_close(struct pcapng_map *m);

#endif
