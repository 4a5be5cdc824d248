/* Packets in, RC messages out: link-layer framing (Ethernet/VLAN/IP/UDP for
 * RoCEv2, Ethertype 0x8915 for RoCEv1, ERF and DLT_INFINIBAND for native IB,
 * Linux cooked captures, IP over InfiniBand), InfiniBand transport headers, CM, QP pairing,
 * PSN tracking and message reassembly.  Emits rdma_event callbacks. */
#ifndef NFSRDMA_TRANSPORT_H
#define NFSRDMA_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/rdma_event.h"

/* pcap link types we accept */
#define LINKTYPE_ETHERNET    1
#define LINKTYPE_LINUX_SLL   113
#define LINKTYPE_ERF         197
#define LINKTYPE_IPOIB       242
#define LINKTYPE_INFINIBAND  247
#define LINKTYPE_LINUX_SLL2  276

struct transport;

struct transport_stats {
	uint64_t frames, bytes;
	uint64_t roce_v2, roce_v1, ib_native, non_rdma;
	uint64_t rc_packets, ud_packets, cm_mads;
	uint64_t sends, writes, reads, acks, naks;
	uint64_t psn_gaps, duplicates, retransmits;
	uint64_t truncated, invalid;
	/* Additions (keep the fields above first and in order). */
	uint64_t uc_packets, rd_packets, xrc_packets, cnp_packets;
	uint64_t atomics, other_ops;        /* atomics, FLUSH, ATOMIC WRITE, RESYNC */
	uint64_t rnr_naks, nak_seq, nak_inv_req, nak_access, nak_op;
	uint64_t conns, conns_cm, conns_inferred;
	uint64_t incomplete_msgs;           /* events flagged RDMA_EVF_INCOMPLETE */
	uint64_t reads_unanswered;          /* READ events flagged NO_RESPONSE */
	uint64_t late_packets;              /* after CM DREQ/DREP closed the connection */
	uint64_t ecn_ce;                    /* RoCE packets marked Congestion Experienced */
	uint64_t erf_errors;                /* ERF records flagged rx/ds error */
	uint64_t icrc_absent;               /* 1: the capture keeps no ICRC after RoCE packets */
	uint64_t icrc_absent_from;          /* ... noticed at this frame (earlier ones read with one) */
	/* ONC RPC over TCP and UDP (dissect/rpc_net.h) */
	uint64_t tcp_segments, udp_datagrams;
	uint64_t rpc_streams;               /* TCP connections / UDP flows found to carry RPC */
	uint64_t rpc_msgs_tcp, rpc_msgs_udp;
	uint64_t tcp_out_of_order, tcp_retransmits, tcp_gaps, tcp_gap_bytes;
	uint64_t rpc_resyncs;               /* record marks found again after bytes that were not */
	uint64_t rpc_bad_marks;             /* record marks no RPC peer sends (fragment > 16 MiB) */
	uint64_t rpc_msgs_cut;              /* records cut by the end of their stream or capture */
	uint64_t rpc_msgs_dropped;          /* too short to hold an RPC header */
	uint64_t rpc_no_record;             /* streams on an RPC port with no record found at all */
	uint64_t rpc_udp_bad;               /* datagrams on an RPC port that are not RPC */
	uint64_t rpc_buf_capped;            /* messages cut by the buffer budget */
	uint64_t rpc_streams_idle, rpc_streams_evicted;
	uint64_t ip_frags, ip_reassembled, ip_frag_dropped;
	uint64_t ipoib;                     /* IP over InfiniBand packets (DLT_IPOIB, IB UD) */
};

struct transport *transport_new(rdma_event_fn fn, diag_fn diag, void *ctx);
/* Returns 0 when the link type is supported, -EPROTONOSUPPORT otherwise. */
int transport_set_linktype(struct transport *t, int linktype);
const char *transport_linktype_name(int linktype);
/* Decodes one captured frame.  Never fails the run: bad frames are reported
 * through diag and counted. */
void transport_packet(struct transport *t, uint64_t ts_ns, uint64_t frame_no,
		      const uint8_t *data, size_t caplen, size_t wirelen);
/* End of capture: emit pending partial messages and CONN_CLOSE events. */
void transport_flush(struct transport *t);
const struct transport_stats *transport_stats(const struct transport *t);
/* Largest payload copied per reassembled message (default
 * TRANSPORT_DATA_CAP); a longer message is delivered with data_len <
 * msg_len and RDMA_EVF_TRUNC_DATA.  0 copies no payload at all (lengths,
 * keys and flags still exact), the fastest mode for statistics. */
#define TRANSPORT_DATA_CAP ((size_t)(1u << 20) + 65536)
void transport_set_data_cap(struct transport *t, size_t cap);
/* Optional: per-message choice of copying RDMA WRITE / READ payloads (see
 * rdma_data_filter_fn).  NULL (the default) copies them all. */
void transport_set_data_filter(struct transport *t, rdma_data_filter_fn fn);
/* Frame tracking (off by default, and then free): every event carries the
 * numbers of its frames, ACKs / NAKs become RDMA_EV_ACK events and every
 * other frame an RDMA_EV_FRAME event, so each frame of the capture is
 * accounted for exactly once. */
void transport_set_frame_tracking(struct transport *t, bool on);
/* Connections seen so far (for summaries), in id order. */
size_t transport_conn_count(const struct transport *t);
/* ONC RPC over TCP and UDP (on by default): ports taken for RPC from
 * the first byte besides 2049, 111 and 20048 (up to 16; -ENOSPC beyond). */
int transport_add_rpc_port(struct transport *t, uint16_t port);
void transport_set_rpc_net(struct transport *t, bool on);
const struct rdma_conn *transport_conn(const struct transport *t, size_t i);
void transport_free(struct transport *t);

#endif
