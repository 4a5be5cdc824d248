/* Minimal pcapng writer: one section, any number of interfaces (with name
 * and description), Enhanced Packet Blocks with an optional comment.
 *
 * Written here rather than through libpcap because libpcap 1.10 (Debian
 * 12) writes only classic pcap from pcap_dump*, with no per-packet
 * comments or interface descriptions; the block layout is small and fixed
 * (draft-ietf-opsawg-pcapng sections 4.1, 4.2, 4.3). */
#ifndef NFSRDMA_PCAPNG_WRITER_H
#define NFSRDMA_PCAPNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct pcapng_writer;

/* Opens path by every tool's output-file rule (src/base/outfile.h: a file
 * is written beside it and renamed into place at close, a device or FIFO
 * written through) and writes the Section Header Block.  Returns 0 or a
 * negative errno with one line in err. */
int pcapng_writer_open(struct pcapng_writer **out, const char *path, const char *appl,
		       char *err, size_t errlen);
/* Interface Description Block with if_tsresol = 9 (ns).  Returns the
 * interface id (>= 0) or a negative errno. */
int pcapng_writer_add_if(struct pcapng_writer *w, int linktype, uint32_t snaplen, const char *name,
			 const char *desc);
/* Enhanced Packet Block; comment may be NULL.  0 or negative errno. */
int pcapng_writer_packet(struct pcapng_writer *w, uint32_t ifid, uint64_t ts_ns, const uint8_t *data,
			 uint32_t caplen, uint32_t wirelen, const char *comment);
uint64_t pcapng_writer_bytes(const struct pcapng_writer *w);
/* Flushes and closes (a file is renamed into place only when nothing
 * failed); returns 0 or the first error seen. */
int pcapng_writer_close(struct pcapng_writer *w);

#endif
