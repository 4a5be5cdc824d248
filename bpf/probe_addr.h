/* The caller's address as kernels before 6.1 give it in svc_stats_latency:
 * the text "%pISpc" made of the sockaddr ("192.0.2.1:2049",
 * "[2001:db8::1]:2049").  Plain C with no helpers, so the BPF server
 * program and the unit tests share it. */
#ifndef NFSRDMA_PROBE_ADDR_H
#define NFSRDMA_PROBE_ADDR_H

#include <linux/types.h>
#include <stdbool.h>

#ifndef __always_inline   /* user space: bpf_helpers.h defines it for BPF */
#define __always_inline inline __attribute__((always_inline))
#endif

#define PROBE_ADDR_TEXT 24   /* "255.255.255.255:65535" and its NUL fit */

/* Parses IPv4 "a.b.c.d" with an optional ":port" from s (NUL-terminated
 * within PROBE_ADDR_TEXT bytes).  Returns true and fills a (network
 * order) and port; false for anything else (IPv6 text included). */
static __always_inline bool probe_addr_text4(const char s[PROBE_ADDR_TEXT], __u8 a[4], __u16 *port)
{
	__u32 num = 0, n = 0;
	bool in_port = false, digit = false;

	for (int i = 0; i < PROBE_ADDR_TEXT; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9') {
			num = num * 10 + (__u32)(c - '0');
			if (num > (in_port ? 65535u : 255u))
				return false;
			digit = true;
		} else if (!in_port && digit && c == '.' && n < 3) {
			a[n++ & 3] = (__u8)num;
			num = 0;
			digit = false;
		} else if (!in_port && digit && (c == ':' || !c) && n == 3) {
			a[3] = (__u8)num;
			n = 4;
			*port = 0;
			if (!c)
				return true;
			num = 0;
			digit = false;
			in_port = true;
		} else if (in_port && digit && !c) {
			*port = (__u16)num;
			return true;
		} else {
			return false;
		}
	}
	return false;  /* no NUL within the buffer */
}

#endif
