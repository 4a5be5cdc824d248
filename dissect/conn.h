/* RC connections: the table that maps a packet's destination (address,
 * QPN) to its connection, QP pairing from CM or by inference, PSN tracking
 * per request stream, and reassembly of SEND / RDMA WRITE / RDMA READ into
 * whole messages (rdma_event).  transport.c feeds it decoded packets. */
#ifndef NFSRDMA_CONN_H
#define NFSRDMA_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/ib.h"
#include "dissect/ib_cm.h"
#include "dissect/rdma_event.h"
#include "dissect/transport.h"

struct conn_table;

/* st is the transport's counters; the table updates the RC ones. */
struct conn_table *conn_table_new(rdma_event_fn fn, diag_fn diag, void *ctx,
				  struct transport_stats *st);
/* Largest payload copied per message (bytes); 0 copies nothing. */
void conn_set_data_cap(struct conn_table *t, size_t cap);
/* See transport_set_data_filter. */
void conn_set_data_filter(struct conn_table *t, rdma_data_filter_fn fn);
/* Connection ids come from *counter (shared with the RPC-over-TCP/UDP
 * streams) instead of the table's own count. */
void conn_set_id_counter(struct conn_table *t, uint32_t *counter);
/* See transport_set_frame_tracking. */
void conn_set_frame_tracking(struct conn_table *t, bool on);
/* Frame tracking: did the last packet go into a message or an ACK event?
 * (reset: start over for the next packet) */
bool conn_frame_used(struct conn_table *t, bool reset);
/* One RC packet (f: addresses, p: decoded BTH and headers). */
void conn_rc(struct conn_table *t, uint64_t ts_ns, uint64_t frame,
	     const struct ib_frame *f, const struct ib_pkt *p);
/* One CM MAD received on QP1. */
void conn_cm(struct conn_table *t, uint64_t ts_ns, uint64_t frame,
	     const struct ib_frame *f, const struct cm_msg *m);
/* Capture end: partial messages, unanswered READs, held events, closes. */
void conn_flush(struct conn_table *t);
size_t conn_count(const struct conn_table *t);
const struct rdma_conn *conn_get(const struct conn_table *t, size_t i);
void conn_table_free(struct conn_table *t);

#endif
