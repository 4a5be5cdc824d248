// SPDX-License-Identifier: GPL-2.0
/* The yardstick of bench/probes.sh: a program that does nothing, loaded
 * once per tracepoint the probes use (bench/probe_empty.c), so that what
 * the kernel charges a program merely for running (the tracepoint's
 * dispatch, the run-time accounting itself) is measured in the same run
 * and under the same emulation as the probes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tracepoint")
int probe_empty(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
