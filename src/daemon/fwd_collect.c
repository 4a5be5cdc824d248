/* The collecting side (fwd_link.h): a PULL socket bound to one address,
 * a ZAP handler thread deciding who may connect (allow-listed addresses,
 * allow-listed CURVE client keys), and the bounded decode of what comes
 * in.  Everything but the ZAP thread runs on the daemon's main thread. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/daemon/fwd_link.h"
#include "src/daemon/fwd_priv.h"
#include "src/daemon/zmq_dl.h"

#define ZAP_EP       "inproc://zeromq.zap.01"
#define LOG_BURST    10                      /* bad-message lines per window */
#define LOG_WINDOW   (10ull * 1000000000ull)

struct collector {
	void *ctx, *sock, *zap;
	pthread_t zap_th;
	bool zap_started;
	atomic_bool stop;
	char allow[FWD_ALLOW_MAX][64];
	unsigned nallow;
	char (*keys)[41];
	int nkeys;
	pthread_mutex_t mu;                      /* guards st: the ZAP thread counts refusals */
	struct coll_stats st;
	uint64_t log_t0;
	unsigned log_n;
	uint64_t log_suppressed;
	struct nfsrdma_record rec;
	char clock[FWD_CLOCK_MAX];   /* a CLOCK message's line, copied out of it */
};

static struct coll_peer *peer_find(struct collector *k, const char *addr, uint64_t session, bool any_session)
{
	struct coll_stats *s = &k->st;
	struct coll_peer *loose = NULL;

	for (unsigned i = 0; i < s->npeers; i++) {
		struct coll_peer *p = &s->peer[i];
		if (strcmp(p->addr, addr))
			continue;
		if (p->session == session)
			return p;
		if (any_session)
			loose = p;   /* the latest session of this address */
		else if (!p->session && !p->received) {
			p->session = session;   /* refused or malformed before: now it has a session */
			return p;
		}
	}
	if (loose)
		return loose;
	if (s->npeers == FWD_PEERS_MAX) {
		s->overflow++;
		return NULL;
	}
	struct coll_peer *p = &s->peer[s->npeers++];
	memset(p, 0, sizeof(*p));
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	p->session = any_session ? 0 : session;
	return p;
}

/* ---- ZAP: RFC 27 ---- */

static bool addr_allowed(const struct collector *k, const char *addr)
{
	char norm[64];

	if (!k->nallow)
		return true;
	if (fwd_norm_addr(addr, norm, sizeof(norm), NULL) < 0)
		return false;
	for (unsigned i = 0; i < k->nallow; i++)
		if (!strcmp(k->allow[i], norm))
			return true;
	return false;
}

static bool key_allowed(const struct collector *k, const char *mech, const uint8_t *key, size_t len)
{
	char z[41];

	if (!k->nkeys)
		return !strcmp(mech, "NULL");
	if (strcmp(mech, "CURVE") || len != 32 || !zdl.z85_encode(z, key, 32))
		return false;
	for (int i = 0; i < k->nkeys; i++)
		if (!strcmp(k->keys[i], z))
			return true;
	return false;
}

static void *zap_main(void *arg)
{
	struct collector *k = arg;

	while (!atomic_load(&k->stop)) {
		zmq_pollitem_t it = { k->zap, 0, ZMQ_POLLIN, 0 };
		if (zdl.poll(&it, 1, 200) <= 0)
			continue;
		/* frames: version, request id, domain, address, identity, mechanism, credentials... */
		char f[7][256];
		size_t flen[7] = { 0 };
		int n = 0, more = 1;
		while (more) {
			zmq_msg_t m;
			zdl.msg_init(&m);
			if (zdl.msg_recv(&m, k->zap, 0) < 0) {
				zdl.msg_close(&m);
				break;
			}
			if (n < 7) {
				size_t l = zdl.msg_size(&m);
				if (l > sizeof(f[0]) - 1)
					l = sizeof(f[0]) - 1;
				memcpy(f[n], zdl.msg_data(&m), l);
				f[n][l] = 0;
				flen[n] = l;
				n++;
			}
			more = zdl.msg_more(&m);
			zdl.msg_close(&m);
		}
		if (n < 6)
			continue;   /* not a ZAP request: libzmq sends none such */
		const char *addr = f[3], *mech = f[5];
		bool by_addr = addr_allowed(k, addr);
		bool by_key = key_allowed(k, mech, n > 6 ? (const uint8_t *)f[6] : NULL, n > 6 ? flen[6] : 0);
		bool ok = by_addr && by_key;
		if (!ok) {
			pthread_mutex_lock(&k->mu);
			struct coll_peer *p = peer_find(k, addr, 0, true);
			if (p)
				p->refused++;
			k->st.refused++;
			pthread_mutex_unlock(&k->mu);
			log_warn("collect: refused %s (%s)", addr,
				 !by_addr ? "address not in --collect-allow" : "CURVE key not in --curve-allow");
		}
		const char *rep[6] = { "1.0", f[1], ok ? "200" : "400", ok ? "OK" : "not allowed", ok ? addr : "", "" };
		size_t rl[6] = { 3, flen[1], 3, strlen(rep[3]), strlen(rep[4]), 0 };
		for (int i = 0; i < 6; i++)
			zdl.send(k->zap, rep[i], rl[i], i < 5 ? ZMQ_SNDMORE : 0);
	}
	return NULL;
}

/* ---- open / close ---- */

static int zerr(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, zdl.strerror(zdl.errnum()));
	return zdl.errnum() == EADDRINUSE || zdl.errnum() == EADDRNOTAVAIL ? -zdl.errnum() : -EIO;
}

int coll_open(struct collector **out, const struct fwd_cfg *c, char *err, size_t errlen)
{
	struct collector *k;
	char host[256], ep[300];
	unsigned port;
	int v, rc;

	*out = NULL;
	if ((rc = zmq_dl_open(err, errlen)) < 0)
		return rc;
	if (!(k = calloc(1, sizeof(*k))))
		return -ENOMEM;
	pthread_mutex_init(&k->mu, NULL);
	if ((rc = fwd_check_collect(c->collect, c->collect_any, err, errlen)) < 0 ||
	    (rc = fwd_split(c->collect, host, sizeof(host), &port)) < 0) {
		coll_close(k);
		return -EINVAL;
	}
	if (!host[0])
		snprintf(host, sizeof(host), "*");
	snprintf(ep, sizeof(ep), strchr(host, ':') ? "tcp://[%s]:%u" : "tcp://%s:%u", host, port);
	for (unsigned i = 0; i < c->nallow && i < FWD_ALLOW_MAX; i++) {
		if (fwd_norm_addr(c->allow[i], k->allow[k->nallow], sizeof(k->allow[0]), NULL) < 0) {
			snprintf(err, errlen, "--collect-allow %s: not a numeric address", c->allow[i]);
			coll_close(k);
			return -EINVAL;
		}
		k->nallow++;
	}
	char sec[1][41];
	if (c->curve_allow) {
		k->keys = calloc(FWD_KEYS_MAX, sizeof(*k->keys));
		if (!k->keys || (k->nkeys = fwd_read_keys(c->curve_allow, k->keys, FWD_KEYS_MAX, err, errlen)) < 0 ||
		    fwd_read_keys(c->curve_key, sec, 1, err, errlen) < 0) {
			k->nkeys = 0;
			coll_close(k);
			return -EINVAL;
		}
	}
	k->ctx = zdl.ctx_new();
	if (!k->ctx || !(k->zap = zdl.socket(k->ctx, ZMQ_REP)) || zdl.bind(k->zap, ZAP_EP) != 0) {
		rc = zerr(err, errlen, "ZAP handler");
		coll_close(k);
		return rc;
	}
	if (pthread_create(&k->zap_th, NULL, zap_main, k) != 0) {
		snprintf(err, errlen, "ZAP handler: cannot start its thread");
		coll_close(k);
		return -EAGAIN;
	}
	k->zap_started = true;
	if (!(k->sock = zdl.socket(k->ctx, ZMQ_PULL))) {
		rc = zerr(err, errlen, "zmq");
		coll_close(k);
		return rc;
	}
	v = (int)(c->hwm ? c->hwm : 10000);
	zdl.setsockopt(k->sock, ZMQ_RCVHWM, &v, sizeof(v));
	v = 0;
	zdl.setsockopt(k->sock, ZMQ_LINGER, &v, sizeof(v));
	/* a message is one record: anything bigger is not ours, and is cut
	 * off before it is buffered */
	int64_t maxmsg = (int64_t)FWD_MSG_MAX;
	zdl.setsockopt(k->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	/* a domain makes libzmq ask the ZAP handler for NULL peers too */
	zdl.setsockopt(k->sock, ZMQ_ZAP_DOMAIN, "nfsrdma", 7);
	if (k->nkeys) {
		v = 1;
		if (zdl.setsockopt(k->sock, ZMQ_CURVE_SERVER, &v, sizeof(v)) ||
		    zdl.setsockopt(k->sock, ZMQ_CURVE_SECRETKEY, sec[0], 40)) {
			rc = zerr(err, errlen, "CURVE keys");
			coll_close(k);
			return rc;
		}
		explicit_bzero(sec, sizeof(sec));
	}
	if (zdl.bind(k->sock, ep) != 0) {
		rc = zerr(err, errlen, c->collect);
		coll_close(k);
		return rc;
	}
	k->log_t0 = clock_mono_ns();
	*out = k;
	return 0;
}

void coll_close(struct collector *k)
{
	if (!k)
		return;
	/* The listener goes before the ZAP handler: a forwarder reconnecting
	 * in between would get no answer, which libzmq takes as a refusal
	 * and never retries. */
	if (k->sock)
		zdl.close(k->sock);
	atomic_store(&k->stop, true);
	if (k->zap_started)
		pthread_join(k->zap_th, NULL);
	if (k->zap)
		zdl.close(k->zap);
	if (k->ctx)
		zdl.ctx_term(k->ctx);
	pthread_mutex_destroy(&k->mu);
	free(k->keys);
	free(k);
}

/* ---- receive ---- */

int coll_poll(struct collector *k, struct pollfd *fds, int nfds, int timeout_ms)
{
	zmq_pollitem_t it[nfds + 1];

	for (int i = 0; i < nfds; i++)
		it[i] = (zmq_pollitem_t){ NULL, fds[i].fd, fds[i].events, 0 };
	it[nfds] = (zmq_pollitem_t){ k->sock, 0, ZMQ_POLLIN, 0 };
	int n = zdl.poll(it, nfds + 1, timeout_ms);
	for (int i = 0; i < nfds; i++)
		fds[i].revents = it[i].revents;
	if (n < 0 && zdl.errnum() == EINTR)
		errno = EINTR;
	return n;
}

static void bad_message(struct collector *k, const char *addr, int rc, size_t off, size_t len)
{
	uint64_t now = clock_mono_ns();

	if (now - k->log_t0 > LOG_WINDOW) {
		if (k->log_suppressed)
			log_warn("collect: %" PRIu64 " more bad messages not logged", k->log_suppressed);
		k->log_t0 = now;
		k->log_n = 0;
		k->log_suppressed = 0;
	}
	if (k->log_n++ < LOG_BURST)
		log_warn("collect: bad message from %s: %s at offset %zu of %zu", addr, fwd_msg_err_name(rc), off, len);
	else
		k->log_suppressed++;
}

size_t coll_drain(struct collector *k, size_t max, coll_record_fn fn, void *ctx)
{
	size_t taken = 0;

	while (taken < max) {
		zmq_msg_t m;
		zdl.msg_init(&m);
		if (zdl.msg_recv(&m, k->sock, ZMQ_DONTWAIT) < 0) {
			zdl.msg_close(&m);
			break;
		}
		taken++;
		const char *pa = zdl.msg_gets(&m, "Peer-Address");
		char addr[64];
		snprintf(addr, sizeof(addr), "%s", pa ? pa : "?");
		struct fwd_meta meta;
		size_t off = 0, len = zdl.msg_size(&m);
		/* a sender that splits a message into frames is not one of ours */
		int rc = zdl.msg_more(&m) ? -FWD_ERR_FIELD
					  : fwd_msg_decode(zdl.msg_data(&m), len, &meta, &k->rec, &off);
		if (rc == 0 && meta.kind == FWD_KIND_CLOCK) {
			/* the line points into the message, closed below */
			memcpy(k->clock, meta.clock, meta.clock_len);
			meta.clock = k->clock;
		}
		if (zdl.msg_more(&m)) {
			/* drop the rest of the multipart message with it */
			zmq_msg_t rest;
			zdl.msg_init(&rest);
			while (zdl.msg_recv(&rest, k->sock, ZMQ_DONTWAIT) >= 0 && zdl.msg_more(&rest))
				;
			zdl.msg_close(&rest);
		}
		zdl.msg_close(&m);
		pthread_mutex_lock(&k->mu);
		if (rc < 0) {
			struct coll_peer *p = peer_find(k, addr, 0, true);
			if (p)
				p->malformed++;
			k->st.malformed++;
			pthread_mutex_unlock(&k->mu);
			bad_message(k, addr, rc, off, len);
			continue;
		}
		struct coll_peer *p = peer_find(k, addr, meta.session, false);
		if (meta.kind == FWD_KIND_END) {
			/* the forwarder stopped after meta.seq records: what it
			 * sent that did not come was lost on the way */
			uint64_t tail = 0;
			if (p && meta.seq > p->next_seq && p->received) {
				tail = meta.seq - p->next_seq;
				p->lost += tail;
				k->st.lost += tail;
				p->next_seq = meta.seq;
			} else if (p && !p->received) {
				p->earlier = meta.seq;
			}
			if (p)
				p->peer_dropped = meta.dropped;
			pthread_mutex_unlock(&k->mu);
			log_info("collect: %s (%s) stopped after %" PRIu64 " records sent, %" PRIu64 " dropped there%s",
				 meta.host, addr, meta.seq, meta.dropped, tail ? ", some lost on the way" : "");
			continue;
		}
		if (meta.kind == FWD_KIND_CLOCK) {
			/* no sequence number, no record: straight to the join */
			struct coll_peer snap = p ? *p : (struct coll_peer){ 0 };
			pthread_mutex_unlock(&k->mu);
			fn(NULL, &meta, &snap, ctx);
			continue;
		}
		k->st.received++;
		if (p) {
			if (!p->received) {
				p->earlier = meta.seq;   /* queued before we heard this session */
			} else if (meta.seq > p->next_seq) {
				p->lost += meta.seq - p->next_seq;
				k->st.lost += meta.seq - p->next_seq;
			}
			if (meta.seq >= p->next_seq)
				p->next_seq = meta.seq + 1;
			p->received++;
			memcpy(p->host, meta.host, sizeof(p->host));
			p->peer_dropped = meta.dropped;
			p->last_realtime_ns = meta.realtime_ns;
			p->last_mono_ns = meta.mono_ns;
			p->last_recv_ns = clock_wall_ns();
		}
		struct coll_peer snap = p ? *p : (struct coll_peer){ 0 };
		pthread_mutex_unlock(&k->mu);
		if (!p)
			snprintf(snap.addr, sizeof(snap.addr), "%s", addr);
		fn(&k->rec, &meta, &snap, ctx);
	}
	return taken;
}

void coll_get_stats(struct collector *k, struct coll_stats *s)
{
	pthread_mutex_lock(&k->mu);
	*s = k->st;
	pthread_mutex_unlock(&k->mu);
}
