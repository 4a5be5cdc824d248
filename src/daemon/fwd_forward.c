/* The forwarding side (fwd_link.h): one PUSH socket connected to the
 * collector.  Called from the daemon's main thread only (a ZeroMQ socket
 * belongs to one thread). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/daemon/fwd_link.h"
#include "src/daemon/fwd_priv.h"
#include "src/daemon/zmq_dl.h"

#define RECONNECT_MS     100    /* first retry; doubles up to the max */
#define RECONNECT_MAX_MS 5000

struct forwarder {
	void *ctx, *sock, *mon;
	bool connected;
	char target[300];
	char endpoint[300];          /* tcp://HOST:PORT */
	uint64_t retry_at;           /* after a refusal: when to try again (CLOCK_MONOTONIC) */
	struct fwd_meta meta;
	uint64_t sent, dropped;
	uint8_t buf[FWD_MSG_MAX];
};

static int zerr(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, zdl.strerror(zdl.errnum()));
	return -EIO;
}

int fwd_open(struct forwarder **out, const struct fwd_cfg *c, char *err, size_t errlen)
{
	struct forwarder *f;
	char host[256], ep[300];
	unsigned port;
	int v, e;

	*out = NULL;
	if ((e = zmq_dl_open(err, errlen)) < 0)
		return e;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	if (fwd_split(c->forward, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "%s: not HOST:PORT", c->forward);
		free(f);
		return -EINVAL;
	}
	snprintf(f->target, sizeof(f->target), "%s", c->forward);
	if (strchr(host, ':'))
		snprintf(ep, sizeof(ep), "tcp://[%s]:%u", host, port);
	else
		snprintf(ep, sizeof(ep), "tcp://%s:%u", host, port);
	/* the sender's name: what labels its records on the collector */
	if (c->host)
		snprintf(f->meta.host, sizeof(f->meta.host), "%s", c->host);
	else if (gethostname(f->meta.host, sizeof(f->meta.host) - 1) < 0)
		snprintf(f->meta.host, sizeof(f->meta.host), "unknown");
	for (char *p = f->meta.host; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			*p = '_';
	if (!f->meta.host[0])
		snprintf(f->meta.host, sizeof(f->meta.host), "unknown");
	if (getrandom(&f->meta.session, sizeof(f->meta.session), 0) != sizeof(f->meta.session))
		f->meta.session = clock_mono_ns() ^ ((uint64_t)getpid() << 32);

	f->ctx = zdl.ctx_new();
	if (!f->ctx || !(f->sock = zdl.socket(f->ctx, ZMQ_PUSH))) {
		int rc = zerr(err, errlen, "zmq");
		fwd_close(f);
		return rc;
	}
	v = (int)(c->hwm ? c->hwm : 10000);
	zdl.setsockopt(f->sock, ZMQ_SNDHWM, &v, sizeof(v));
	v = RECONNECT_MS;
	zdl.setsockopt(f->sock, ZMQ_RECONNECT_IVL, &v, sizeof(v));
	v = RECONNECT_MAX_MS;
	zdl.setsockopt(f->sock, ZMQ_RECONNECT_IVL_MAX, &v, sizeof(v));
	v = 0;
	zdl.setsockopt(f->sock, ZMQ_LINGER, &v, sizeof(v));
	if (c->curve_key) {
		char sec[1][41], srv[1][41], pub[41];
		if (fwd_read_keys(c->curve_key, sec, 1, err, errlen) < 0 ||
		    fwd_read_keys(c->curve_server_key, srv, 1, err, errlen) < 0) {
			fwd_close(f);
			return -EINVAL;
		}
		if (zdl.curve_public(pub, sec[0]) != 0 ||
		    zdl.setsockopt(f->sock, ZMQ_CURVE_SECRETKEY, sec[0], 40) ||
		    zdl.setsockopt(f->sock, ZMQ_CURVE_PUBLICKEY, pub, 40) ||
		    zdl.setsockopt(f->sock, ZMQ_CURVE_SERVERKEY, srv[0], 40)) {
			int rc = zerr(err, errlen, "CURVE keys");
			fwd_close(f);
			return rc;
		}
		explicit_bzero(sec, sizeof(sec));
	}
	/* connection events, for the log and the connected gauge */
	char monep[64];
	snprintf(monep, sizeof(monep), "inproc://fwd-monitor-%p", (void *)f);
	if (zdl.socket_monitor(f->sock, monep, ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED |
						       ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
						       ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
						       ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
						       ZMQ_EVENT_CLOSED) == 0 &&
	    (f->mon = zdl.socket(f->ctx, ZMQ_PAIR)) && zdl.connect(f->mon, monep) != 0) {
		zdl.close(f->mon);
		f->mon = NULL;
	}
	snprintf(f->endpoint, sizeof(f->endpoint), "%s", ep);
	if (zdl.connect(f->sock, ep) != 0) {
		int rc = zerr(err, errlen, c->forward);
		fwd_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

void fwd_tick(struct forwarder *f)
{
	if (f->retry_at && clock_mono_ns() >= f->retry_at && f->sock) {
		f->retry_at = 0;
		zdl.disconnect(f->sock, f->endpoint);
		zdl.connect(f->sock, f->endpoint);
	}
	for (int i = 0; f->mon && i < 16; i++) {
		zmq_msg_t ev, addr;
		zdl.msg_init(&ev);
		if (zdl.msg_recv(&ev, f->mon, ZMQ_DONTWAIT) < 0) {
			zdl.msg_close(&ev);
			return;
		}
		uint16_t id = 0;
		uint32_t val = 0;
		if (zdl.msg_size(&ev) >= 6) {
			memcpy(&id, zdl.msg_data(&ev), 2);
			memcpy(&val, (uint8_t *)zdl.msg_data(&ev) + 2, 4);
		}
		zdl.msg_close(&ev);
		zdl.msg_init(&addr);
		zdl.msg_recv(&addr, f->mon, 0);   /* the second frame: the endpoint */
		zdl.msg_close(&addr);
		switch (id) {
		case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
			f->connected = true;
			log_info("forward: connected to %s", f->target);
			break;
		case ZMQ_EVENT_DISCONNECTED:
			if (f->connected)
				log_warn("forward: lost the collector at %s; reconnecting", f->target);
			f->connected = false;
			break;
		case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
			/* libzmq gives up on a peer that refused us; the
			 * collector's allow-list may change, so try again later */
			log_warn("forward: %s refused this host (status %u); trying again in %d s", f->target, val,
				 RECONNECT_MAX_MS / 1000);
			f->retry_at = clock_mono_ns() + RECONNECT_MAX_MS * 1000000ull;
			break;
		case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
		case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
			log_warn("forward: handshake with %s failed (%s)", f->target,
				 id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ? "protocol" : zdl.strerror((int)val));
			break;
		default:
			break;
		}
	}
}

void fwd_record(struct forwarder *f, const struct nfsrdma_record *r)
{
	if (!f->sock) {
		f->dropped++;   /* after shutdown: nothing can leave */
		return;
	}
	f->meta.vantage = r->source;
	f->meta.seq = f->sent;
	f->meta.dropped = f->dropped;
	f->meta.realtime_ns = clock_wall_ns();
	f->meta.mono_ns = clock_mono_ns();
	size_t n = fwd_msg_encode(f->buf, &f->meta, r);
	/* never wait: a collector that is away or slow costs records
	 * (counted), not the daemon's own work */
	if (zdl.send(f->sock, f->buf, n, ZMQ_DONTWAIT) == (int)n)
		f->sent++;
	else
		f->dropped++;
}

void fwd_clock(struct forwarder *f, const char *line, size_t len)
{
	if (!f->sock)
		return;
	f->meta.vantage = 0;
	f->meta.seq = f->sent;
	f->meta.dropped = f->dropped;
	f->meta.realtime_ns = clock_wall_ns();
	f->meta.mono_ns = clock_mono_ns();
	size_t n = fwd_msg_encode_clock(f->buf, &f->meta, line, len);
	if (n)
		zdl.send(f->sock, f->buf, n, ZMQ_DONTWAIT);
}

void fwd_get_stats(const struct forwarder *f, struct fwd_stats *s)
{
	s->sent = f->sent;
	s->dropped = f->dropped;
}

const char *fwd_target(const struct forwarder *f) { return f->target; }

void fwd_shutdown(struct forwarder *f, unsigned linger_ms)
{
	if (!f)
		return;
	if (f->mon) {
		zdl.socket_monitor(f->sock, NULL, 0);
		zdl.close(f->mon);
		f->mon = NULL;
	}
	if (f->sock) {
		/* the last word: how many were sent, so the collector can count
		 * what is still on the way and never arrives */
		int to = (int)linger_ms;
		f->meta.seq = f->sent;
		f->meta.dropped = f->dropped;
		f->meta.vantage = 0;
		f->meta.realtime_ns = clock_wall_ns();
		f->meta.mono_ns = clock_mono_ns();
		size_t n = fwd_msg_encode_end(f->buf, &f->meta);
		zdl.setsockopt(f->sock, ZMQ_SNDTIMEO, &to, sizeof(to));
		if (linger_ms && zdl.send(f->sock, f->buf, n, 0) != (int)n)
			log_warn("forward: could not tell %s that this run ended (%" PRIu64 " sent): "
				 "what did not arrive there is not counted as lost", f->target, f->sent);
		int v = (int)linger_ms;
		zdl.setsockopt(f->sock, ZMQ_LINGER, &v, sizeof(v));
		zdl.close(f->sock);
		f->sock = NULL;
	}
	if (f->ctx)
		zdl.ctx_term(f->ctx);
	f->ctx = NULL;
}

void fwd_close(struct forwarder *f)
{
	fwd_shutdown(f, 0);
	free(f);
}
