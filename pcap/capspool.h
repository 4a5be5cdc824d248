/* A capture read once (stdin, a pipe, a FIFO, <(...)) kept for a second
 * read: nfsrdma-dissect -w writes its export after the records, from the
 * capture again.  The bytes go to an unlinked file on disk as they are
 * read (pcap_source_open_tee), never into memory, so a capture of any size is
 * read once from its pipe and again from the spool. */
#ifndef NFSRDMA_CAPSPOOL_H
#define NFSRDMA_CAPSPOOL_H

#include <stdbool.h>
#include <stddef.h>

/* True when path cannot be read again by its name: "-" (stdin) or
 * anything that is not a regular file (a FIFO, a pipe's /dev/fd/N, a
 * character device, a socket). */
bool capspool_needed(const char *path);

struct capspool {
	int fd;              /* the spool, open for writing; -1: none */
	char path[64];       /* what reopens it for reading: /proc/self/fd/N */
};

/* An unlinked file in $TMPDIR, else /var/tmp (a disk, not a tmpfs, on
 * most systems: the spool is as large as the capture).  0 or -errno with
 * one line in err naming the directory. */
int capspool_open(struct capspool *sp, char *err, size_t errlen);
void capspool_close(struct capspool *sp);

#endif
