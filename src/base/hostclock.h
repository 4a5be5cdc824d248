/* The host's clock state, read where its records are made (nfsrdmad) and
 * written beside them as a {"type":"clock"} JSON line (docs/record.md,
 * "Host clocks"), so that a join elsewhere can relate this host's
 * monotonic clock (the probes' bpf_ktime_get_ns) to real time, and knows
 * how far the host itself says it can be trusted (adjtimex).
 *
 * One reading is back to back: CLOCK_MONOTONIC, then CLOCK_REALTIME and
 * CLOCK_TAI, then CLOCK_MONOTONIC again; the narrowest of a few tries is
 * kept, its monotonic time the midpoint and its spread the two monotonic
 * reads apart (the wall clocks were read somewhere inside it). */
#ifndef NFSRDMA_HOSTCLOCK_H
#define NFSRDMA_HOSTCLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HOSTCLOCK_PTP_MAX 4

struct host_clock {
	uint64_t mono_ns, realtime_ns, tai_ns;  /* one reading (tai 0: not read) */
	uint64_t spread_ns;                     /* the two monotonic reads apart */
	int      state;                         /* adjtimex's return (TIME_OK..), or -errno */
	int      status;                        /* STA_* bits */
	bool     synced;                        /* STA_UNSYNC clear and state not TIME_ERROR */
	int64_t  offset_ns;                     /* the kernel PLL's remaining offset */
	double   freq_ppm;                      /* its frequency correction */
	uint64_t esterror_ns, maxerror_ns;      /* what the time daemon claims */
	int      tai_offset_s;
	unsigned nptp;
	struct {
		char dev[48];                   /* e.g. /dev/ptp0 */
		char name[64];                  /* sysfs clock_name ("" unknown) */
		int64_t phc_minus_realtime_ns;  /* valid when err is 0 */
		int err;                        /* -errno of opening or reading it */
	} ptp[HOSTCLOCK_PTP_MAX];
};

/* Reads the clocks and adjtimex; devdir ("/dev") is searched for ptpN
 * character devices, named from sysdir ("/sys/class/ptp"); NULL devdir:
 * no PTP.  0, or -errno when the clocks cannot be read. */
int host_clock_read(struct host_clock *hc, const char *devdir, const char *sysdir);

/* One line {"type":"clock",...}\n; host: a JSON-safe name or NULL. */
void host_clock_json(FILE *f, const struct host_clock *hc, const char *host);

#endif
