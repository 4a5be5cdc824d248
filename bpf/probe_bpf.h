/* BPF-side helpers shared by rpc_client.bpf.c and rpc_server.bpf.c:
 * the field table and filters (rodata, written by the loader), the ring
 * buffer, the counters, the per-op histograms and the emit path.
 * Included by exactly one program per object. */
#ifndef NFSRDMA_PROBE_BPF_H
#define NFSRDMA_PROBE_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>

#include "probe.h"

/* Written by the loader before load (rodata: the verifier sees constants). */
const volatile struct probe_fld probe_fld[PFLD_MAX] = {};
const volatile __u64 min_latency_ns = 0;
const volatile char filter_prog[PROBE_PROG_MAX] = {};
const volatile __u8 filter_family = 0;       /* 0: any caller */
const volatile __u8 filter_addr[16] = {};
/* client side: the server's address as the kernel prints it (rpc_clnt_new addr) */
const volatile char filter_peer[PROBE_ADDR_STR] = {};
/* Wake the reader only once this much is waiting (the loader: an eighth of
 * the ring); 0: the kernel's default (wake whenever the reader caught up).
 * A wake-up per record (irq_work, then the reader's) was most of what a
 * record cost; the reader polls with a time-out and drains what is left. */
const volatile __u32 rb_wake_bytes = 0;

/* A zeroed event to initialise map slots from (the stack is too small). */
const struct probe_event probe_zero_event = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);  /* the loader may resize it */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);  /* operations (side, program, version, procedure) */
	__type(key, struct probe_hist_key);
	__type(value, struct probe_hist_val);
} hist SEC(".maps");

/* A new operation's histogram starts from this (the stack is too small). */
const struct probe_hist_val probe_zero_hist = {};

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;  /* per-CPU slot: no atomics needed */
}

/* The tracepoint record as the programs read it: its first PROBE_TP_COPY
 * bytes copied once per run (every fixed field the programs read lies
 * there), so that a field is a load from the stack, not a helper call
 * each: the calls were most of what a program with many fields cost.
 * raw is the record itself (__data_loc strings, fields past the copy). */
#define PROBE_TP_COPY 128
struct probe_tp {
	void *raw;
	__u64 ok;  /* the copy was made: else every field is read from raw */
	__u8  b[PROBE_TP_COPY];
};

/* First statement of every program: ctx becomes the copy. */
#define PROBE_TP_LOAD(r)                                                       \
	struct probe_tp tp_copy_;                                              \
	tp_copy_.raw = (r);                                                    \
	tp_copy_.ok = !bpf_probe_read_kernel(tp_copy_.b, sizeof(tp_copy_.b), (r)); \
	void *ctx = &tp_copy_

static __always_inline void *tp_raw(void *ctx) { return ((struct probe_tp *)ctx)->raw; }

/* Reads field id of the tracepoint record (ctx: PROBE_TP_LOAD's copy); 0
 * if the kernel lacks it.  Sizes come from the format file (1, 2, 4 or 8;
 * little endian); offsets are rodata, so the verifier sees constants. */
static __always_inline __u64 fld(void *ctx, int id)
{
	const struct probe_tp *t = ctx;
	__u64 v = 0;
	__u32 off = probe_fld[id].off;
	__u32 sz = probe_fld[id].size & 0xf;

	if (off == PROBE_FLD_NONE || sz == 0 || sz > 8)
		return 0;
	if (t->ok && off + sz <= PROBE_TP_COPY) {
		switch (sz) {
		case 1: return t->b[off];
		case 2: return *(const __u16 *)&t->b[off];
		case 4: return *(const __u32 *)&t->b[off];
		case 8: return *(const __u64 *)&t->b[off];
		}
	}
	bpf_probe_read_kernel(&v, sz, (char *)t->raw + off);
	return v;
}

/* Copies a __data_loc string field into dst (always NUL-terminated). */
#define fld_str(ctx, id, dst)                                                   \
	do {                                                                    \
		__u32 loc_ = (__u32)fld(ctx, id);                               \
		(dst)[0] = 0;                                                   \
		if (loc_ & 0xffff)                                              \
			bpf_probe_read_kernel_str(dst, sizeof(dst),             \
						  (char *)tp_raw(ctx) + (loc_ & 0xffff)); \
	} while (0)

static __always_inline bool prog_match(const char *name)
{
	if (!filter_prog[0])
		return true;
	for (int i = 0; i < PROBE_PROG_MAX; i++) {
		if (name[i] != filter_prog[i])
			return false;
		if (!name[i])
			return true;
	}
	return true;
}

static __always_inline bool addr_match(const struct probe_event *e)
{
	int n = filter_family == 2 ? 4 : 16;

	if (!filter_family)
		return true;
	if (e->addr_family != filter_family)
		return false;
	for (int i = 0; i < 16; i++)
		if (i < n && e->caller_addr[i] != filter_addr[i])
			return false;
	return true;
}

static __always_inline __u64 rb_flags(void)
{
	if (!rb_wake_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + sizeof(struct probe_event) >= rb_wake_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

static __always_inline void hist_add(const struct probe_event *e, __u64 ns)
{
	struct probe_hist_key k = {};
	struct probe_hist_val *v;

	k.side = e->side;
	k.vers = (__u8)e->vers;
	__builtin_memcpy(k.prog, e->prog, sizeof(k.prog));
	__builtin_memcpy(k.proc, e->procname, sizeof(k.proc));
	v = bpf_map_lookup_elem(&hist, &k);
	if (!v) {
		bpf_map_update_elem(&hist, &k, &probe_zero_hist, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&hist, &k);
		if (!v) {
			stat_add(PST_MAP_FULL, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->slot[log2_u64(ns) & (PROBE_HIST_SLOTS - 1)], 1);
	__sync_fetch_and_add(&v->slot[PROBE_HIST_SUM], ns);
}

/* A completed RPC: histogram, then the filters, then the ring buffer.
 * total_ns is the probe's own duration (histograms); the minimum-latency
 * filter compares the kernel's own execute time (k_exec_us, from
 * rpc_stats_latency / svc_stats_latency) when the tracepoint has that
 * field (exec_fld), so that the filter agrees with what ftrace and
 * mountstats report; without it, the probe's duration. */
static __always_inline void emit(struct probe_event *e, __u64 total_ns, int exec_fld)
{
	__u64 lat_ns = total_ns;

	if (!prog_match(e->prog) || !addr_match(e)) {
		stat_add(PST_FILTERED, 1);
		return;
	}
	hist_add(e, total_ns);
	if (probe_fld[exec_fld].off != PROBE_FLD_NONE && probe_fld[exec_fld].size)
		lat_ns = e->k_exec_us * 1000;
	if (lat_ns < min_latency_ns) {
		stat_add(PST_FILTERED, 1);
		return;
	}
	if (bpf_ringbuf_output(&events, e, sizeof(*e), rb_flags()))
		stat_add(PST_RB_DROPS, 1);
	else
		stat_add(PST_RECORDS, 1);
}

static __always_inline __u64 dur(__u64 a, __u64 b) { return a && b > a ? b - a : 0; }

#endif
