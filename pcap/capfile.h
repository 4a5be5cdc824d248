/* Capture sources: a pcap/pcapng file (or "-" for stdin), plain or
 * compressed with gzip, zstd or xz; regular pcap and pcapng files are
 * mapped, the rest read through libpcap. */
#ifndef NFSRDMA_PCAP_SOURCE_H
#define NFSRDMA_PCAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct pcap_source;

/* Returns 0 or a negative errno; on failure errbuf holds one line naming
 * the file and the reason (for a format we do not read, such as bzip2,
 * what it is and the command that makes a capture of it). */
int pcap_source_open(struct pcap_source **out, const char *path, char *errbuf, size_t errlen);
/* The same, and every byte read from the input, from the first, is also
 * copied to tee_fd (-1: none) as read: a pipe or stdin read once can be
 * read again from tee_fd's file (pcap/capspool.h).  Nothing is mapped
 * then; libpcap reads it all. */
int pcap_source_open_tee(struct pcap_source **out, const char *path, int tee_fd, char *errbuf,
			 size_t errlen);
/* The copy's first error (-errno; it stops the copy, not the read), or 0. */
int pcap_source_tee_error(const struct pcap_source *s);
/* The link type of the packet pcap_source_next gave last (a pcapng's
 * interfaces each have their own; pcap/capfile_lt.h follows it), before
 * the first packet the first interface's. */
int pcap_source_linktype(const struct pcap_source *s);
const char *pcap_source_path(const struct pcap_source *s);
/* 1: a packet (valid until the next call); 0: end of capture; -EIO: the
 * capture could not be read to its end, errbuf says where: "FILE: frame
 * N, offset O: capture truncated in the middle of a packet record (N
 * bytes of M)" (O in the decompressed bytes), or the compressed data is
 * damaged or cut short. */
int pcap_source_next(struct pcap_source *s, uint64_t *ts_ns, const uint8_t **data,
		     size_t *caplen, size_t *wirelen, char *errbuf, size_t errlen);
void pcap_source_close(struct pcap_source *s);

#endif
