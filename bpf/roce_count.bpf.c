// SPDX-License-Identifier: GPL-2.0
/* roce_count: the first XDP program of the pipeline.  It counts RoCEv2
 * frames per BTH opcode and passes everything on, so it can sit on a live
 * RoCE interface without disturbing it.  The XDP fast path grows from here. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "roce_count.h"

/* Configured by the loader before load (rodata). */
const volatile __u16 roce_port = ROCE_V2_UDP_PORT;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ROCE_SLOT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} roce_stats SEC(".maps");

struct vlan_hdr_ {
	__be16 tci;
	__be16 proto;
};

/* xdp-tools style cursor: every header is bounds-checked against data_end
 * before it is read. */
struct hdr_cursor {
	void *pos;
};

static __always_inline void bump(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&roce_stats, &slot);

	if (v)
		*v += 1;
}

/* xdp.frags: it reads headers from the linear part only, and a
 * frags-aware program can attach to a jumbo-MTU device (the bench pins
 * it on its 9000-byte veth to measure the floor like the others). */
SEC("xdp.frags")
int xdp_roce_count(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = (void *)(long)ctx->data };
	struct ethhdr *eth = nh.pos;
	struct udphdr *udp;
	__u16 proto;
	__u8 l4;

	bump(ROCE_SLOT_FRAMES);
	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	nh.pos = eth + 1;
	proto = eth->h_proto;

#pragma unroll
	for (int i = 0; i < 2; i++) { /* 802.1Q and QinQ */
		struct vlan_hdr_ *vh = nh.pos;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > data_end)
			return XDP_PASS;
		proto = vh->proto;
		nh.pos = vh + 1;
	}

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = nh.pos;

		if ((void *)(ip + 1) > data_end || ip->ihl < 5)
			return XDP_PASS;
		/* Fragments other than the first carry no UDP header. */
		if (ip->frag_off & bpf_htons(0x1fff))
			return XDP_PASS;
		l4 = ip->protocol;
		nh.pos = (void *)ip + ip->ihl * 4;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = nh.pos;

		if ((void *)(ip6 + 1) > data_end)
			return XDP_PASS;
		l4 = ip6->nexthdr; /* RoCEv2 senders use no extension headers */
		nh.pos = ip6 + 1;
	} else {
		return XDP_PASS;
	}
	if (l4 != IPPROTO_UDP)
		return XDP_PASS;
	udp = nh.pos;
	if ((void *)(udp + 1) > data_end)
		return XDP_PASS;
	if (udp->dest != bpf_htons(roce_port))
		return XDP_PASS;

	__u8 *bth = (void *)(udp + 1);
	if ((void *)(bth + 12) > data_end) {
		bump(ROCE_SLOT_SHORT);
		return XDP_PASS;
	}
	bump(ROCE_SLOT_ROCEV2);
	bump(bth[0]);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
