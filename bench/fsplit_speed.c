/* The fused split's rate on one core (src/stats/fsplit.c, what nfsrdmad
 * does with every joined record for nfsrdma-top): N synthetic joined
 * RPCs over 8 operations, 64 clients, 2 servers and two shapes (all three
 * vantages; client + wire with the server's phases merged), totals spread
 * over three powers of two.  Prints fused records/s (CPU time), the rows,
 * the table's memory, and the time one snapshot takes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/stats/fsplit.h"

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000000;
	static const uint32_t procs[] = { 1, 3, 4, 6, 7, 8, 16, 21 };
	struct nfsrdma_record r;
	struct fsplit *f = fsplit_new(0);

	if (!f)
		return 1;
	memset(&r, 0, sizeof(r));
	r.source = REC_SRC_JOINED;
	r.flags = RECF_CALL | RECF_REPLY;
	r.prog = 100003;
	r.vers = 3;
	r.caller.family = r.callee.family = 4;
	r.caller.addr[0] = r.callee.addr[0] = 10;
	uint64_t t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned long i = 0; i < n; i++) {
		unsigned x = (unsigned)(i * 2654435761u);
		r.proc = procs[x % 8];
		r.caller.addr[3] = (uint8_t)(2 + (x >> 8) % 64);
		r.callee.addr[3] = (uint8_t)(1 + (x >> 16) % 2);
		bool all = (x >> 20) % 8;
		r.vantages = all ? REC_VT_ALL : REC_VT_CLIENT | REC_VT_WIRE;
		r.f_merged = all ? 0 : 0x78;
		r.f_mask = all ? 0x3ff : 0x387;
		for (unsigned p = 0; p < REC_FP_N; p++)
			r.f_phase[p] = r.f_mask & (1u << p) ? 1000 + (x >> (p + 3)) % (20000u << (p % 3)) : 0;
		r.f_total = 0;
		for (unsigned p = 0; p < REC_FP_N; p++)
			r.f_total += r.f_phase[p];
		fsplit_add(f, &r);
	}
	uint64_t t1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	struct fsplit_snap s;
	if (fsplit_snapshot(f, &s) < 0)
		return 1;
	uint64_t t2 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	printf("fsplit: %lu fused records in %.3f s CPU: %.2f M records/s; %zu rows, %.1f MB; snapshot %.2f ms\n", n,
	       (t1 - t0) / 1e9, n / ((t1 - t0) / 1e9) / 1e6, s.n, fsplit_memory(f) / 1e6, (t2 - t1) / 1e6);
	fsplit_snap_free(&s);
	fsplit_free(f);
	return 0;
}
