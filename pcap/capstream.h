/* The bytes of a capture file as a stdio stream: a plain file as it is,
 * stdin, or a gzip, zstd or xz file decompressed on the fly (told by its
 * first bytes, not its name), in bounded memory.  libpcap reads the
 * stream; pcap/capfile.c asks it where the bytes ended and why. */
#ifndef NFSRDMA_CAPSTREAM_H
#define NFSRDMA_CAPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct capstream;

/* The same, and every byte read from the input is also written to tee_fd
 * (-1: none) as read (still compressed), from the first: a stream read
 * once (a pipe, stdin) can be read again from tee_fd's file.  A copy that
 * fails stops the copying, not the read: capstream_tee_error says so
 * (0 or the first -errno). */
int capstream_open_tee(struct capstream **cs, FILE **fp, const char *path, const char *name, int tee_fd,
		       char *err, size_t errlen);
int capstream_tee_error(const struct capstream *cs);
/* "gzip", "zstd", "xz", or NULL when the bytes are read as they are. */
const char *capstream_codec(const struct capstream *cs);
/* Why the decompressed bytes stopped early, or NULL: damaged compressed
 * data, or a compressed file that ends before its end marker. */
const char *capstream_problem(const struct capstream *cs);
void capstream_free(struct capstream *cs);

#endif
