/* ONC RPC over TCP and UDP: the packets of the capture that are not RDMA
 * but carry RPC (rpcbind and MOUNT of an NFS/RDMA mount, NFSv4.0
 * callbacks, NLM and NSM, NFS over TCP) become whole RPC messages,
 * RDMA_EV_RPC events on a connection whose ip_proto says TCP or UDP, so
 * the dissector matches and decodes them as it does those over RDMA.
 *
 * Which flows: TCP or UDP port 2049, 111, 20048 and any port forced with
 * rpc_net_add_port(), from their first byte; any other port once it shows
 * a valid RPC call header of a program the decoders know (its replies
 * follow).  TCP: record marking (RFC 5531 section 11) over a reassembled
 * byte stream (tcp_reasm.c, rpc_record.c); UDP: one datagram, one message,
 * IP fragments reassembled (ip_frag.c).  Memory is bounded: streams,
 * buffers per stream and all buffers together are capped, and each cap
 * that bites is counted in transport_stats. */
#ifndef NFSRDMA_RPC_NET_H
#define NFSRDMA_RPC_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/rdma_event.h"
#include "dissect/transport.h"

struct rpc_net;

/* st: the transport's counters (the TCP/UDP ones are updated);
 * next_conn_id: the counter RDMA connections take their ids from too, so
 * every connection of a capture has its own number. */
struct rpc_net *rpc_net_new(rdma_event_fn fn, diag_fn diag, void *ctx, struct transport_stats *st,
			    uint32_t *next_conn_id);
/* One IP packet (ip: its first byte; base: where that is in the frame,
 * for diagnostics; wire: its length on the wire).  Returns true when the
 * frame went into (or is held for) an RPC message. */
bool rpc_net_packet(struct rpc_net *n, uint64_t ts_ns, uint64_t frame, const uint8_t *ip,
		    size_t cap, size_t wire, size_t base);
/* Treat this TCP/UDP port as RPC from the first byte (up to 16). */
int rpc_net_add_port(struct rpc_net *n, uint16_t port);
/* Off: TCP and UDP are ignored (RDMA only). */
void rpc_net_set_enabled(struct rpc_net *n, bool on);
void rpc_net_set_frame_tracking(struct rpc_net *n, bool on);
/* Capture end: partial messages, gaps and closes of every stream. */
void rpc_net_flush(struct rpc_net *n);
void rpc_net_free(struct rpc_net *n);

#endif
