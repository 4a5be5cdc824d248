/* RPC transports for the replay tool and load generator: one interface
 * (struct xprt) with two implementations,
 *   - rdma_ep.c (data path), rdma_ep_conn.c (connection): RPC-over-RDMA
 *     version 1 (RFC 8166) over librdmacm and libibverbs, with RFC 8797
 *     connection parameters, credit accounting,
 *     Read/Write/Reply chunks (RFC 8267 rules are the caller's: it says
 *     which part of a call is DDP-eligible), RDMA_ERROR handling and
 *     reconnection with backoff;
 *   - rpc_tcp.c: RPC over TCP with record marking (RFC 5531 section 11);
 * and what they share (xprt.c): the clock and synchronous calls.
 * Single-threaded and event driven: submit() queues a call, poll() runs
 * completions and calls each request's done callback exactly once. */
#ifndef NFSRDMA_XPRT_XPRT_H
#define NFSRDMA_XPRT_XPRT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xprt;
struct xprt_req;

struct xprt_reply {
	int err;                  /* 0; -EPIPE lost in flight (connection dropped);
	                             -EPROTO RDMA_ERROR or undecodable reply */
	const uint8_t *msg;       /* the RPC reply message (valid during the callback) */
	size_t len;
	const uint8_t *bulk;      /* RDMA: the Write chunk data (READ/READLINK), else NULL */
	uint32_t bulk_len;        /* bytes the server wrote into the Write chunk */
	bool bulk_moved;          /* the DDP-eligible result is not in msg (Write chunk) */
	bool reply_chunk;         /* the reply came through the Reply chunk (RDMA_NOMSG) */
	uint8_t rdma_proc;        /* RPC-over-RDMA proc of the reply (0xff: TCP) */
	uint32_t rdma_err;        /* RDMA_ERROR code */
	uint64_t t_done_ns;       /* CLOCK_MONOTONIC */
};

/* The bytes a READ reply really brought: the decoders bound inline data by
 * the message, but data moved through a Write chunk only by what the
 * server claims, so that claim is capped at what the chunk says it wrote. */
static inline uint64_t xprt_reply_read_bytes(const struct xprt_reply *rep, uint64_t claimed)
{
	return rep->bulk_moved && claimed > rep->bulk_len ? rep->bulk_len : claimed;
}

typedef void (*xprt_done_fn)(struct xprt_req *req, const struct xprt_reply *rep);

struct xprt_req {
	/* Set by the caller; msg must stay valid until done runs. */
	uint8_t *msg;             /* the RPC call; bytes 0..3 (xid) are set by the transport */
	size_t len;
	/* DDP-eligible call data (WRITE data, SYMLINK path): its opaque length
	 * word is the last thing in msg, the bytes are here.  ddp == NULL with
	 * ddp_len > 0 sends whatever the transport's bulk buffer holds (load
	 * generation without a copy). */
	const uint8_t *ddp;
	uint32_t ddp_len;
	bool has_ddp;
	/* Where the DDP bytes belong: msg offset just after their length word.
	 * 0: at the end of msg (NFSv3).  In an NFSv4 COMPOUND more ops follow
	 * (msg[ddp_at..len] goes after the data, inline). */
	uint32_t ddp_at;
	uint32_t wchunk;          /* DDP-eligible result size to expect (READ count), 0: none */
	uint32_t reply_max;       /* bound on the reply's size without the DDP result */
	xprt_done_fn done;
	void *ctx;
	/* Set by the transport. */
	uint32_t xid;
	uint64_t t_submit_ns;     /* queued (the latency counts from here) */
	uint64_t t_post_ns;       /* handed to the kernel (RDMA: when the doorbell
				     of its batch rang; 0 until then) */
	/* How the call went out (RDMA): */
	uint8_t used_read_chunk, used_write_chunk, used_reply_chunk, used_p0;
};

struct xprt_stats {
	uint64_t calls, replies, lost, reconnects, connect_failures;
	uint64_t rdma_errors, wc_errors, bad_replies;
	uint64_t read_chunks, write_chunks, reply_chunks, p0_calls, inline_calls;
	uint64_t credit_waits;
	/* RDMA fast-path work (what a call costs the client in system calls
	 * and doorbells; see docs/replay.md) */
	uint64_t doorbells;       /* ibv_post_send calls (one system call each with rxe) */
	uint64_t signaled;        /* SENDs posted signaled */
	uint64_t inline_sends;    /* SENDs posted with IBV_SEND_INLINE */
	uint64_t recv_posts;      /* ibv_post_recv calls (each a chain of receives) */
	uint64_t sleeps;          /* poll() on the completion channel */
	uint64_t cq_events;       /* completion events read (each re-arms the CQ) */
	uint64_t naps;            /* moderation sleeps instead of arming the CQ */
	/* calls the server made on the connection (backchannel) */
	uint64_t bc_calls, bc_replies, bc_dropped;
	uint32_t credits_asked, credits_granted, max_inflight;
	uint32_t inline_send, inline_recv;  /* negotiated thresholds */
	bool     peer_cm_params;             /* the server sent RFC 8797 data */
	uint32_t peer_send, peer_recv;
};

struct xprt_ops {
	const char *name;
	/* 0; -EAGAIN: no credit or slot now (poll, then retry); -ENOTCONN:
	 * down for good; -EMSGSIZE: the call cannot be sent on this transport. */
	int (*submit)(struct xprt *x, struct xprt_req *r);
	/* Runs completions for up to timeout_ms (0: do not wait).  Returns the
	 * number of done callbacks run, or -ENOTCONN when the connection was
	 * lost and could not be re-established. */
	int (*poll)(struct xprt *x, int timeout_ms);
	unsigned (*can_send)(const struct xprt *x);
	unsigned (*inflight)(const struct xprt *x);
	/* The bulk buffer of the next slot (for ddp == NULL calls) size. */
	void (*destroy)(struct xprt *x);
	/* Closes the connection as if it had been lost (what is in flight
	 * completes with -EPIPE); the next submit or poll reconnects.  Fault
	 * injection: how a server recovers a session on a new connection. */
	void (*drop)(struct xprt *x, const char *why);
	/* Waiting on several transports at once (xprt_poll_set).  wait_fds
	 * runs what completed and, when nothing did, readies the transport to
	 * wake a file descriptor (RDMA: arms the CQ), filling at most
	 * XPRT_WAIT_FDS pollfds (*n; 0 while reconnecting).  Returns the done
	 * callbacks run (> 0: do not sleep) or -ENOTCONN.  wait_done, after
	 * poll(), takes what woke it. */
	int (*wait_fds)(struct xprt *x, struct pollfd *p, unsigned *n);
	int (*wait_done)(struct xprt *x, const struct pollfd *p, unsigned n);
	/* Posts what submit() queued now (RDMA batches SENDs until a poll);
	 * NULL: submit() sends at once.  0 or -EIO (the calls completed as
	 * lost). */
	int (*flush)(struct xprt *x);
};
#define XPRT_WAIT_FDS 2

/* A call the server makes on the connection: the NFSv4.1 backchannel
 * (RFC 8167 over RDMA, RFC 8881 2.10.3.1 over TCP).  msg: the RPC call.
 * Writes the whole RPC reply into out (at most cap bytes) and returns its
 * length; 0: no reply.  Runs inside poll() and must not use the transport
 * (it may queue work for after poll returns). */
typedef size_t (*xprt_bc_fn)(void *ctx, const uint8_t *msg, size_t len, uint8_t *out, size_t cap);

struct xprt {
	const struct xprt_ops *ops;
	struct xprt_stats st;
	uint32_t next_xid;
	uint32_t max_bulk;        /* largest DDP payload either way */
	/* NULL: a call from the server is dropped (counted, logged once) */
	xprt_bc_fn bc_call;
	void *bc_ctx;
	uint32_t max_qp;          /* RDMA: the device's QP limit (ibv_device_attr); 0: none */
	/* RDMA: replies a poll hands to their done callbacks at most before
	 * it returns (0: all it finds); the rest wait in the completion
	 * queue for the next poll, so a caller with a deadline is back in
	 * time.  TCP reads what came. */
	uint32_t poll_budget;
	/* Set by the transport: the connection was lost (or dropped) and
	 * the next submit or poll reconnects.  A caller that must say
	 * something first on a new connection (an NFSv4.1 client's
	 * BIND_CONN_TO_SESSION) holds its calls while this is set. */
	bool broken;
};

struct xprt_opts {
	const char *host;         /* IPv4/IPv6 literal or name */
	uint16_t port;            /* 0: 20049 (RDMA) / 2049 (TCP) */
	uint32_t slots;           /* calls in flight at most (RDMA: credits asked) */
	uint32_t max_bulk;        /* largest READ/WRITE payload (bytes) */
	uint32_t reply_chunk_max; /* Reply chunk size (bytes) */
	uint32_t inline_max;      /* our inline send/receive size (4096) */
	bool     busy_poll;       /* spin on the CQ instead of sleeping */
	/* Completion moderation (RDMA): with at least half the credits in
	 * flight, sleep this long and reap what came in rather than arm the
	 * CQ and wait for its event.  0: the default (NFSRDMA_RDMA_MODERATE_US
	 * in the environment, else EP_MODERATE_US, rdma_ep_state.h); UINT32_MAX:
	 * never. */
	uint32_t moderate_us;
	unsigned reconnect_ms;    /* give up reconnecting after this (0: 30000) */
	uint8_t  fill;            /* byte pattern of the bulk buffers */
	/* a failed connect is the caller's to report, in one line with its
	 * context (the MOUNT client's portmapper query), not also here */
	bool     quiet_connect;
};

/* Whether host resolves (a name or a numeric address): 0, or -ENXIO with
 * "HOST: REASON" (getaddrinfo's own words) in err.  Asked once before a
 * run, so a name that does not resolve is one line that says so, not a
 * transport's guess at an errno ("No route to host") after it. */
int xprt_host_check(const char *host, char *err, size_t errlen);

int xprt_rdma_open(struct xprt **out, const struct xprt_opts *o);
int xprt_tcp_open(struct xprt **out, const struct xprt_opts *o);

static inline int xprt_submit(struct xprt *x, struct xprt_req *r) { return x->ops->submit(x, r); }
static inline int xprt_poll(struct xprt *x, int ms) { return x->ops->poll(x, ms); }
static inline unsigned xprt_can_send(const struct xprt *x) { return x->ops->can_send(x); }
static inline unsigned xprt_inflight(const struct xprt *x) { return x->ops->inflight(x); }
static inline void xprt_destroy(struct xprt *x) { if (x) x->ops->destroy(x); }
static inline void xprt_drop(struct xprt *x, const char *why) { x->ops->drop(x, why); }
static inline int xprt_flush(struct xprt *x) { return x->ops->flush ? x->ops->flush(x) : 0; }

/* Runs the completions of n transports for up to timeout_ms, sleeping
 * on all of them at once (one transport: xprt_poll).  Returns the done
 * callbacks run, or the first transport's error (-ENOTCONN). */
int xprt_poll_set(struct xprt *const *xs, unsigned n, int timeout_ms);
/* The same, to the nanosecond: sleeps at most timeout_ns (ppoll), on
 * every transport's descriptors (no transport's own poll: no
 * moderation naps, whose wake-up is theirs). */
int xprt_poll_set_ns(struct xprt *const *xs, unsigned n, uint64_t timeout_ns);

/* Synchronous call: submits, polls until done (or timeout_ms).  The reply
 * message is copied into rbuf (rcap bytes); *rlen its length.  Returns 0,
 * the reply's err, or -ETIMEDOUT. */
int xprt_call_sync(struct xprt *x, struct xprt_req *r, uint8_t *rbuf, size_t rcap, size_t *rlen,
		   int timeout_ms);

/* RFC 8797 private data (8 bytes). */
#define RPCRDMA_CMP_MAGIC 0xf6ab0e18u
struct rpcrdma_cm_priv {
	uint32_t magic;           /* network order on the wire */
	uint8_t version, flags, send_size, recv_size;
};
void rpcrdma_cm_priv_encode(uint8_t out[8], uint32_t send, uint32_t recv, bool remote_inv);
/* Returns true when p holds valid parameters (sizes in bytes out). */
bool rpcrdma_cm_priv_decode(const uint8_t *p, size_t len, uint32_t *send, uint32_t *recv,
			    bool *remote_inv);

uint64_t xprt_now_ns(void);

/* Where the transports' thread spent its time, for the replay's account
 * of a late call (-v): asleep in poll()/nanosleep() (until the kernel ran
 * it again), and handing calls to the kernel (ibv_post_send, writev).
 * Running totals (ns) over every transport of the process; one thread. */
struct xprt_time {
	uint64_t blocked_ns, post_ns;
	uint64_t sleeps, posts;
	/* sleeps that ran to their timeout: how much later than asked the
	 * thread was back (the kernel's, or a VM's, wake-up latency) */
	uint64_t timeouts, late_ns, late_max_ns, late_over_1ms;
};
extern struct xprt_time xprt_time;
/* poll() that adds its time to xprt_time.blocked_ns */
int xprt_sleep_poll(struct pollfd *p, unsigned n, int timeout_ms);
int xprt_sleep_ppoll(struct pollfd *p, unsigned n, uint64_t timeout_ns);

#endif
