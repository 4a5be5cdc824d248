/* Test servers' reads: n bytes from fd, or -1 when the peer closed or went
 * quiet for timeout_ms (a hang guard, never a timing check). */
#ifndef NFSRDMA_TEST_READ_FULL_H
#define NFSRDMA_TEST_READ_FULL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t read_full(int fd, uint8_t *p, size_t n, int timeout_ms)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (poll(&pf, 1, timeout_ms) <= 0)
			return -1;
		ssize_t r = read(fd, p + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

#endif
