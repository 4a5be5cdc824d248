/* nfsrdmad across hosts, over ZeroMQ PUSH/PULL (libzmq): a forwarder sends
 * every record its sources produce to one collector; a collector receives
 * from the peers it is told to accept and hands each record on.  ZeroMQ
 * does the framing, the reconnection with backoff and the bounded queues
 * (high-water marks); this layer counts what it drops and refuses.
 * docs/nfsrdmad.8 (FORWARDING) documents the options. */
#ifndef NFSRDMA_FWD_LINK_H
#define NFSRDMA_FWD_LINK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"
#include "src/daemon/fwd_msg.h"

#define FWD_ALLOW_MAX 32
#define FWD_PEERS_MAX 64

struct fwd_cfg {
	const char *forward;          /* HOST:PORT of the collector; NULL: not forwarding */
	const char *collect;          /* ADDR:PORT to listen on; NULL: not collecting */
	bool collect_any;             /* allow a wildcard collect address */
	const char *allow[FWD_ALLOW_MAX];  /* peer addresses a collector accepts */
	unsigned nallow;
	const char *curve_key;        /* this side's secret key file (CURVE on) */
	const char *curve_server_key; /* forwarder: the collector's public key file */
	const char *curve_allow;      /* collector: file of accepted client public keys */
	unsigned hwm;                 /* messages queued per direction (ZMQ_SNDHWM / RCVHWM) */
	const char *host;             /* name sent to the collector; NULL: gethostname */
	double join_wait;             /* collector: seconds an RPC waits for its other vantages (records' clocks); 0: 5 */
	bool no_clock_hints;          /* collector: no wall/monotonic hints from the messages (inputs not on live clocks) */
};

/* Option checks, without opening anything: 0 or -EINVAL with one line in err. */
int fwd_check_forward(const char *spec, char *err, size_t errlen);
int fwd_check_collect(const char *spec, bool any, char *err, size_t errlen);
int fwd_check_addr(const char *addr, char *err, size_t errlen);
int fwd_check_cfg(const struct fwd_cfg *c, char *err, size_t errlen);
/* Writes a new CURVE key pair: path (secret, mode 0600) and path.pub. */
int fwd_keygen(const char *path, char *err, size_t errlen);

/* ---- forwarder ---- */
struct forwarder;
struct fwd_stats { uint64_t sent, dropped; };
int fwd_open(struct forwarder **out, const struct fwd_cfg *c, char *err, size_t errlen);
/* Queues one record for the collector without waiting; a full queue
 * (collector slow or away) drops it and counts it. */
void fwd_record(struct forwarder *f, const struct nfsrdma_record *r);
/* Queues the host's clock line (without its newline) the same way; a
 * dropped one is not counted: the next comes 5 s later. */
void fwd_clock(struct forwarder *f, const char *line, size_t len);
void fwd_get_stats(const struct forwarder *f, struct fwd_stats *s);
/* Reads the link's connection events (logged: connected, lost, refused);
 * the daemon calls it once per loop. */
void fwd_tick(struct forwarder *f);
const char *fwd_target(const struct forwarder *f);
/* Gives queued messages up to linger_ms to leave, then closes the
 * connection; the counts stay readable until fwd_close. */
void fwd_shutdown(struct forwarder *f, unsigned linger_ms);
void fwd_close(struct forwarder *f);

/* ---- collector ---- */
struct collector;
struct coll_peer {
	char addr[64];              /* the peer's address as the connection shows it */
	char host[FWD_HOST_MAX + 1];/* the name it sends ("" before its first good message) */
	uint64_t session;
	uint64_t received;          /* records decoded and handed on */
	uint64_t lost;              /* gaps in its sequence: queued there, never arrived */
	uint64_t earlier;           /* queued before this collector first heard the session */
	uint64_t peer_dropped;      /* the forwarder's own queue drops, as it last reported */
	uint64_t malformed;         /* messages that did not decode */
	uint64_t refused;           /* handshakes refused (not allowed / wrong key) */
	uint64_t next_seq;
	uint64_t last_realtime_ns, last_mono_ns, last_recv_ns;  /* clock hints of the last message */
};
struct coll_stats {
	struct coll_peer peer[FWD_PEERS_MAX];
	unsigned npeers;
	uint64_t received, lost, malformed, refused, overflow;  /* overflow: peers past the table */
};
typedef void (*coll_record_fn)(const struct nfsrdma_record *r, const struct fwd_meta *m,
			       const struct coll_peer *from, void *ctx);
int coll_open(struct collector **out, const struct fwd_cfg *c, char *err, size_t errlen);
/* poll(2) over fds plus the collector's socket (zmq_poll); revents filled
 * for fds; returns as poll does. */
int coll_poll(struct collector *k, struct pollfd *fds, int nfds, int timeout_ms);
/* Receives up to max waiting messages, hands each good record to fn
 * (and each clock line: r NULL, m->clock set);
 * returns how many messages were taken. */
size_t coll_drain(struct collector *k, size_t max, coll_record_fn fn, void *ctx);
void coll_get_stats(struct collector *k, struct coll_stats *s);
void coll_close(struct collector *k);

#endif
