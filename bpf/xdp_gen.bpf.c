// SPDX-License-Identifier: GPL-2.0
/* xdp_gen: the packet generator of the XDP benchmark (bench/xdp.sh), in the
 * style of xdp-trafficgen.  Run with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES, it sends the frame it is given out of
 * out_ifindex, `repeat` times, from the kernel: several million frames a
 * second from one core, where an AF_PACKET sender manages about half a
 * million.  It is an xdp.frags program so that it can stay attached to
 * the jumbo-MTU veth (see test_xdp_bench.c).  So the receivers under test,
 * not the sender, set the rate at
 * which frames start to be lost. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 out_ifindex;

SEC("xdp.frags")
int xdp_gen(struct xdp_md *ctx)
{
	return bpf_redirect(out_ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
