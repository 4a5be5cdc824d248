/* The mapped capture file (capmap.h). */
#include "pcap/capmap.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22     /* Linux 5.14; older kernels say EINVAL and fault instead */
#endif

int capmap_open(struct capmap *m, int fd, size_t size)
{
	memset(m, 0, sizeof(*m));
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	/* read ahead; the pages behind us are not needed again */
	madvise(map, size, MADV_SEQUENTIAL);
	m->map = map;
	m->size = size;
	capmap_window(m, 0);
	return 0;
}

/* Page faults one fault-around at a time cost more than one call for
 * the next STEP; pages already read leave our resident set (they stay in
 * the page cache).  A record handed out is only valid until the next
 * call, and only whole steps behind the reader are let go. */
void capmap_window(struct capmap *m, size_t pos)
{
	size_t upto = pos & ~(size_t)(CAPMAP_STEP - 1);

	if (upto > m->dropped) {
		madvise((void *)(uintptr_t)(m->map + m->dropped), upto - m->dropped, MADV_DONTNEED);
		m->dropped = upto;
	}
	size_t n = m->size - m->ahead < CAPMAP_STEP ? m->size - m->ahead : CAPMAP_STEP;
	madvise((void *)(uintptr_t)(m->map + m->ahead), n, MADV_POPULATE_READ);
	m->ahead += n;
}

void capmap_close(struct capmap *m)
{
	if (m->map)
		munmap((void *)(uintptr_t)m->map, m->size);
	m->map = NULL;
}
