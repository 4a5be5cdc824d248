/* The join's rate on one core: N synthetic RPCs, each a client, a wire and
 * a server record on three clocks (offsets of hours, as monotonic clocks
 * of different hosts are), added in arrival order and fused.  Prints
 * records/s (records in, three per RPC) and fused RPCs/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/join/join.h"

/* CPU time is the rate (the host is shared: wall time counts the others) */
static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t emitted;
static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	(void)ctx;
	emitted += r->f_total != 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	struct nfsrdma_record c, w, s;
	const uint64_t T0 = 1700000000ull * 1000000000ull, OW = 3600ull * 1000000000ull, OS = 7200ull * 1000000000ull;

	memset(&c, 0, sizeof(c));
	memset(&w, 0, sizeof(w));
	memset(&s, 0, sizeof(s));
	c.rec_version = w.rec_version = s.rec_version = NFSRDMA_RECORD_VERSION;
	c.source = REC_SRC_CLIENT_PROBE, c.vantages = REC_VT_CLIENT;
	w.source = REC_SRC_WIRE;
	s.source = REC_SRC_SERVER_PROBE, s.vantages = REC_VT_SERVER;
	w.caller.family = w.callee.family = s.caller.family = 4;
	memcpy(w.caller.addr, "\x0a\x00\x00\x02", 4);
	memcpy(s.caller.addr, "\x0a\x00\x00\x02", 4);
	memcpy(w.callee.addr, "\x0a\x00\x00\x01", 4);
	/* live-like: complete RPCs go out at once, a 1 s window */
	struct join_opts o = { .expect = REC_VT_ALL, .window_ns = 1000000000ull };
	struct join *j = join_new(&o, on_fused, NULL);
	if (!j)
		return 1;
	uint64_t t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
	for (unsigned long i = 0; i < n; i++) {
		uint64_t T = T0 + i * 20000, jit = (i * 7919) % 3000;
		uint32_t xid = 0x10000000u + (uint32_t)i;
		w.xid = c.xid = s.xid = xid;
		w.t_call_first = w.t_call_last = T + 10000 + jit + OW;
		w.t_reply_first = w.t_reply_last = T + 80000 + jit + OW;
		join_add(j, &w, 0);
		s.vt_server[RST_RECV] = T + 20000 + jit + OS;
		s.vt_server[RST_DISPATCH] = T + 25000 + jit + OS;
		s.vt_server[RST_EXEC_DONE] = T + 65000 + jit + OS;
		s.vt_server[RST_SEND_POST] = T + 70000 + jit + OS;
		s.k_exec_us = 40;
		join_add(j, &s, 2);
		c.vt_client[RCT_BEGIN] = T;
		c.vt_client[RCT_MARSHAL] = T + 2000;
		c.vt_client[RCT_SEND] = T + 5000;
		c.vt_client[RCT_REPLY] = T + 90000 + 2 * jit;
		c.vt_client[RCT_END] = T + 95000 + 2 * jit;
		join_add(j, &c, 1);
	}
	join_flush(j);
	uint64_t dt = now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0, dw = now_ns(CLOCK_MONOTONIC) - w0;
	const struct join_stats *st = join_stats(j);
	printf("join: %lu RPCs, %lu records in %.3f s of CPU: %.2f M records/s, %.2f M fused RPCs/s "
	       "(%.3f s wall; complete %llu, partial %llu, negative %llu, pending max %llu)\n",
	       n, 3 * n, (double)dt / 1e9, 3.0 * (double)n / ((double)dt / 1e9) / 1e6,
	       (double)n / ((double)dt / 1e9) / 1e6, (double)dw / 1e9, (unsigned long long)st->complete,
	       (unsigned long long)st->partial, (unsigned long long)st->negative,
	       (unsigned long long)st->pending_max);
	join_free(j);
	return emitted == n ? 0 : 1;
}
