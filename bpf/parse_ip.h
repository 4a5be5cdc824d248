/* SPDX-License-Identifier: GPL-2.0 */
/* Layers 3 and 4 for bpf/xdp_roce.bpf.c: IPv4 (with options), IPv6 (with
 * extension headers) and UDP to the RoCEv2 port, rule for rule as
 * dissect/roce.c checks them.  Each parser sets f->layer first, so a
 * PARSE_BAD names the layer that failed. */
#ifndef NFSRDMA_BPF_PARSE_IP_H
#define NFSRDMA_BPF_PARSE_IP_H

#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>

#include "parse_frame.h"

/* IPv4: the datagram's length sets f->wire; not UDP or a fragment is not
 * ours. */
static __always_inline int parse_iphdr(struct xdp_md *ctx, struct hdr_cursor *nh, struct frame_info *f)
{
	struct iphdr *ip = nh->pos;
	__u32 ihl, tot;

	f->layer = XM_IPV4;
	if ((void *)(ip + 1) > f->data_end)
		return PARSE_BAD;
	if (ip->version != 4)
		return PARSE_BAD;
	ihl = (__u32)ip->ihl * 4;
	if (ihl < 20)
		return PARSE_BAD;
	tot = bpf_ntohs(ip->tot_len);
	f->wire = frame_len(ctx, f->lin, f->l3 + tot);
	if (tot < ihl || tot > f->wire - f->l3)
		return PARSE_BAD;
	if (nh->pos + ihl > f->data_end)
		return PARSE_BAD;
	if (ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x3fff)))
		return PARSE_PASS;
	f->family = 4;
	f->ecn = ip->tos & 3;
	f->src = (const __u8 *)&ip->saddr;
	f->dst = (const __u8 *)&ip->daddr;
	f->ip_payload = tot - ihl;
	nh->pos += ihl;
	return PARSE_OK;
}

#define IPV6_EXT_MAX 8   /* hop-by-hop, routing, destination options */

/* IPv6 extension headers after the fixed header: *left is the payload
 * still ahead, *nxt the next header when they end. */
static __always_inline int parse_ip6_ext(struct hdr_cursor *nh, void *data_end, __u8 *nxt, __u32 *left)
{
#pragma unroll
	for (int i = 0; i < IPV6_EXT_MAX; i++) {
		__u8 *eh = nh->pos;
		__u32 len;

		if (*nxt != 0 && *nxt != 43 && *nxt != 60)
			break;
		if ((void *)(eh + 2) > data_end)
			return PARSE_BAD;
		*nxt = eh[0];
		len = ((__u32)eh[1] + 1) * 8;
		if (len > *left)
			return PARSE_BAD;
		if ((void *)eh + len > data_end)
			return PARSE_BAD;
		nh->pos = (void *)eh + len;
		*left -= len;
	}
	return PARSE_OK;
}

/* IPv6: the payload length sets f->wire; not UDP is not ours. */
static __always_inline int parse_ip6hdr(struct xdp_md *ctx, struct hdr_cursor *nh, struct frame_info *f)
{
	struct ipv6hdr *ip6 = nh->pos;
	__u32 left;
	__u8 nxt;

	f->layer = XM_IPV6;
	if ((void *)(ip6 + 1) > f->data_end)
		return PARSE_BAD;
	if (ip6->version != 6)
		return PARSE_BAD;
	left = bpf_ntohs(ip6->payload_len);
	f->wire = frame_len(ctx, f->lin, f->l3 + 40 + left);
	if (f->wire < f->l3 + 40 || left > f->wire - f->l3 - 40)
		return PARSE_BAD;
	nxt = ip6->nexthdr;
	f->ecn = (((__u8 *)ip6)[1] >> 4) & 3;
	f->src = (const __u8 *)&ip6->saddr;
	f->dst = (const __u8 *)&ip6->daddr;
	nh->pos = ip6 + 1;
	if (parse_ip6_ext(nh, f->data_end, &nxt, &left))
		return PARSE_BAD;
	if (nxt != IPPROTO_UDP)
		return PARSE_PASS;
	f->family = 6;
	f->ip_payload = left;
	return PARSE_OK;
}

/* UDP to the RoCEv2 port: the BTH follows, and the UDP length less the
 * ICRC is the transport part. */
static __always_inline int parse_udphdr(struct hdr_cursor *nh, struct frame_info *f, __u16 roce_port)
{
	struct udphdr *udp = nh->pos;
	__u32 ulen;

	f->layer = XM_UDP;
	if ((void *)(udp + 1) > f->data_end)
		return PARSE_BAD;
	if (udp->dest != bpf_htons(roce_port))
		return PARSE_PASS;
	ulen = bpf_ntohs(udp->len);
	if (ulen < 8 || ulen > f->ip_payload)
		return PARSE_BAD;
	f->layer = XM_ROCE;
	if (ulen - 8 < 12 + 4)
		return PARSE_BAD;
	f->sport = bpf_ntohs(udp->source);
	f->tp_len = ulen - 8 - 4;
	f->bth = (__u8 *)(udp + 1);
	return PARSE_OK;
}

#endif
