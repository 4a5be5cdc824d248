/* The capture reader alone: every packet of FILE through
 * pcap_source_next, its last byte touched, nothing decoded.  Prints
 * "PACKETS packets BYTES bytes SECONDS s" (wall clock).
 *
 *   capread_speed FILE      ("-": stdin, which goes through libpcap)
 *
 * Build: cc -O2 -I. bench/capread_speed.c build/libnfsrdma.a $(make -s print-ldlibs) */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pcap/capfile.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct pcap_source *s;
	char err[512];
	uint64_t ts, n = 0, bytes = 0, sink = 0;
	const uint8_t *d;
	size_t cap, wire;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	double t0 = now();
	if (pcap_source_open(&s, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	while ((rc = pcap_source_next(s, &ts, &d, &cap, &wire, err, sizeof(err))) == 1) {
		n++;
		bytes += cap;
		sink += cap ? d[cap - 1] : 0;
	}
	pcap_source_close(s);
	double dt = now() - t0;
	if (rc < 0)
		fprintf(stderr, "%s\n", err);
	printf("%llu packets %llu bytes %.4f s (%llu)\n", (unsigned long long)n, (unsigned long long)bytes, dt,
	       (unsigned long long)(sink & 1));
	return rc < 0;
}
