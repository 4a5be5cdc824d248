/* SPDX-License-Identifier: GPL-2.0 */
/* Layer 2 for bpf/xdp_roce.bpf.c: Ethernet and up to 4 VLAN tags, as
 * dissect/roce.c reads them. */
#ifndef NFSRDMA_BPF_PARSE_L2_H
#define NFSRDMA_BPF_PARSE_L2_H

#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>

#include "parse_frame.h"

struct vlan_hdr_ {
	__be16 tci;
	__be16 proto;
};

#define VLAN_MAX_TAGS 4

static __always_inline int is_vlan_proto(__u16 proto)
{
	return proto == ETH_P_8021Q || proto == ETH_P_8021AD || proto == 0x9100;
}

/* Ethernet header and VLAN tags: returns the inner Ethertype (f->l3 is
 * where its header starts), or -PARSE_PASS (an 802.3 length field: not
 * ours) or -PARSE_BAD (f->layer). */
static __always_inline int parse_ethhdr(struct hdr_cursor *nh, struct frame_info *f)
{
	struct ethhdr *eth = nh->pos;
	__u16 p;

	if ((void *)(eth + 1) > f->data_end) {
		f->layer = XM_ETH;
		return -PARSE_BAD;
	}
	nh->pos = eth + 1;
	f->l3 = sizeof(*eth);
	p = bpf_ntohs(eth->h_proto);
	if (p < 0x600)
		return -PARSE_PASS;
#pragma unroll
	for (int i = 0; i < VLAN_MAX_TAGS; i++) {
		struct vlan_hdr_ *vh = nh->pos;

		if (!is_vlan_proto(p))
			break;
		if ((void *)(vh + 1) > f->data_end) {
			f->layer = XM_VLAN;
			return -PARSE_BAD;
		}
		p = bpf_ntohs(vh->proto);
		nh->pos = vh + 1;
		f->l3 += sizeof(*vh);
	}
	return p;
}

#endif
