/* The RPC-over-RDMA endpoint's state (slots, buffers, queues, the
 * connection), shared by its data path (rdma_ep.c) and its connection
 * handling (rdma_ep_conn.c). */
#ifndef NFSRDMA_XPRT_RDMA_EP_STATE_H
#define NFSRDMA_XPRT_RDMA_EP_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "dissect/rpcrdma.h"
#include "src/xprt/xprt.h"

#define EP_HDR_MAX 128       /* our transport headers are at most 16 + 28 + 28 + 28 bytes */
/* Backchannel replies: one at a time (the server's back channel has the
 * one slot we ask for in CREATE_SESSION), from their own buffer. */
#define EP_BC_BUF 1024
#define EP_BC_WRID UINT64_MAX
#define EP_BC_CREDITS 1
#define EP_EXTRA_RECVS 4
#define EP_MAX_INLINE 256    /* asked of the QP; a NULL call is 68 bytes */
/* Default completion moderation (see ep_poll).  Measured in the lab:
 * docs/replay.md, "Benchmark". */
#define EP_MODERATE_US 1000

struct ep_slot {
	struct xprt_req *req;    /* NULL: free */
	bool send_pending;       /* unused: a slot is free once its reply is in (below) */
	struct ibv_sge sge;      /* its SEND, while it waits in the post batch */
	struct ibv_send_wr wr;
	uint8_t *send;
	uint8_t *bulk;
	uint8_t *rchunk;
	struct ibv_mr *bulk_mr, *rchunk_mr;
	uint32_t xid;
};

struct rdma_ep {
	struct xprt x;
	struct xprt_opts o;
	char host[256];
	struct sockaddr_storage addr;
	socklen_t addrlen;

	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	bool connected;

	uint32_t nslots, nrecvs, inline_send, inline_recv, recv_size;
	uint32_t max_inline;     /* the QP's max_inline_data: smaller SENDs go inline */
	uint32_t moderate_us;    /* 0: never nap */
	bool armed;              /* a CQ event is requested and not yet read */
	uint32_t bulk_size, rchunk_size;
	uint8_t *send_region, *recv_region, *bulk_region, *rchunk_region;
	struct ibv_mr *send_mr, *recv_mr;
	uint8_t *bc_buf;
	struct ibv_mr *bc_mr;
	bool bc_busy;            /* a backchannel reply's SEND has not completed */
	bool bc_warned;
	struct ep_slot *slots;
	uint32_t granted, outstanding;
	struct rpcrdma_hdr hdr;  /* scratch for decoding replies */
	/* Send queue: SENDs are posted in batches (one doorbell for many
	 * calls) and only every sq_signal-th is signaled; a signaled
	 * completion retires every WR posted before it. */
	uint32_t sq_depth, sq_signal;
	uint64_t sq_posted, sq_done;
	uint32_t since_signal;
	struct ibv_send_wr *batch_head, *batch_tail;
	uint32_t batch_n;
	/* Receives to re-post, chained: one ibv_post_recv per CQ batch. */
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	struct ibv_recv_wr *rpend_head, *rpend_tail;
	struct ibv_wc wc[64];
};

/* rdma_ep.c: the data path */
extern const struct xprt_ops rdma_ep_ops;
/* Receive i goes on the chain that rdma_ep_recv_flush() posts. */
void rdma_ep_recv_queue(struct rdma_ep *ep, uint32_t i);
int rdma_ep_recv_flush(struct rdma_ep *ep);

/* rdma_ep_conn.c: the connection */
int rdma_ep_reconnect(struct rdma_ep *ep);
/* Connection lost: every call in flight is completed as lost. */
int rdma_ep_fail_all(struct rdma_ep *ep, const char *why);
void rdma_ep_destroy(struct xprt *x);

#endif
