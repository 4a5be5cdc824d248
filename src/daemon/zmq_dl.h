/* libzmq, loaded when forwarding or collecting asks for it: a daemon that
 * reads only local sources does not pay for loading and relocating
 * libzmq and what it pulls in (libstdc++, Kerberos, libsodium, ...),
 * which was most of nfsrdmad's start-up.  The fwd_* files call libzmq
 * through zdl, after zmq_dl_open. */
#ifndef NFSRDMA_ZMQ_DL_H
#define NFSRDMA_ZMQ_DL_H

#include <stddef.h>
#include <zmq.h>

#define ZMQ_DL_FUNCS(X) \
	X(bind) X(close) X(connect) X(ctx_new) X(ctx_term) X(curve_keypair) X(curve_public) \
	X(disconnect) X(has) X(msg_close) X(msg_data) X(msg_gets) X(msg_init) \
	X(msg_more) X(msg_recv) X(msg_size) X(poll) X(send) X(setsockopt) X(socket) \
	X(socket_monitor) X(strerror) X(z85_decode) X(z85_encode)

/* typed from zmq.h's own declarations, so a call through zdl is checked
 * as a direct call would be */
struct zmq_dl {
#define ZMQ_DL_FIELD(name) __typeof__(zmq_##name) *name;
	ZMQ_DL_FUNCS(ZMQ_DL_FIELD)
#undef ZMQ_DL_FIELD
	__typeof__(zmq_errno) *errnum;   /* "errno" is a macro */
};
extern struct zmq_dl zdl;

/* Loads libzmq once (later calls return what the first did): 0, or
 * -ENOENT with one line in err naming the library and dlopen's reason.
 * The first call is made before any thread uses zdl. */
int zmq_dl_open(char *err, size_t errlen);

#endif
