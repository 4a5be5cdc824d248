/* A capture file mapped whole, read front to back: the window fills the
 * next STEP ahead of the reader in one call and lets go of what is
 * behind it, so the resident set stays small however big the file.
 * Shared by the classic pcap and the pcapng readers of capfile.c. */
#ifndef NFSRDMA_CAPMAP_H
#define NFSRDMA_CAPMAP_H

#include <stddef.h>
#include <stdint.h>

#define CAPMAP_STEP (2u << 20)

struct capmap {
	const uint8_t *map;      /* the whole file; NULL when not mapped */
	size_t size;
	size_t dropped, ahead;   /* let go before dropped; filled up to ahead */
};

/* Maps the regular file fd of size bytes (fd may be closed after): 0 or
 * a negative errno. */
int capmap_open(struct capmap *m, int fd, size_t size);
/* Moves the window for a reader now at pos. */
void capmap_window(struct capmap *m, size_t pos);
/* Calls capmap_window when the reader at pos nears the filled part. */
static inline void capmap_advance(struct capmap *m, size_t pos)
{
	if (m->ahead < m->size && pos + CAPMAP_STEP / 2 > m->ahead)
		capmap_window(m, pos);
}
void capmap_close(struct capmap *m);

#endif
