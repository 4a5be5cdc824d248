/* The replay engine's state, shared by its parts (src/replay/replay_*.c):
 * the handle maps, the layout of a captured NFSv3 call, the statistics
 * per operation, the calls in flight and the engine itself. */
#ifndef NFSRDMA_REPLAY_ENGINE_H
#define NFSRDMA_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/clnt/nfs4_cb.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/clnt/nfs4_session.h"
#include "src/replay/loadgen_hist.h"
#include "src/replay/replay_late.h"
#include "src/replay/replay_pace.h"
#include "src/replay/replay.h"
#include "src/replay/trace.h"
#include "src/xprt/xprt.h"

/* ---- handle maps (replay_handles.c) ---- */
struct fhent {
	struct fhent *next;
	uint64_t h;
	struct nfs_fh key;
	char *name;           /* NULL for plain fh -> fh maps */
	struct nfs_fh val;
};

struct fhmap {
	struct fhent *b[4096];
	size_t n;
};

/* replay_fhmap.c: the maps, and below the NFSv4 keys built for them */
/* a key's bucket hash (the trace names' own map, tname, builds on it) */
uint64_t fhmap_hash(const struct nfs_fh *fh, const char *name);
struct fhent *fhmap_get(const struct fhmap *m, const struct nfs_fh *fh, const char *name);
/* Sets (or, with overwrite, replaces) an entry. */
void fhmap_put(struct fhmap *m, const struct nfs_fh *fh, const char *name,
	       const struct nfs_fh *val, bool overwrite);
void fhmap_free(struct fhmap *m);
bool fhmap_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b);

/* ---- a captured NFSv3 call's arguments (replay_nfs3_args.c) ---- */
#define MAXREFS 3
struct argref {
	uint32_t off, size;   /* the opaque<> (length word + bytes + pad) */
	struct nfs_fh fh;
};

struct layout {
	struct argref ref[MAXREFS];
	unsigned nref;
	bool has_name;
	char name[256];       /* first name argument */
	bool has_ddp;
	uint32_t ddp_at;      /* offset of the DDP opaque's length word */
	uint32_t ddp_len;
	uint32_t count;       /* READ/READDIR(PLUS) count, WRITE count */
};

/* Where the handles are in a NFSv3 / NFSACLv3 call.  Returns false when
 * the arguments do not decode. */
bool replay_nfs3_layout(const struct tcall *tc, struct layout *l);

/* ---- statistics (replay_report.c) ---- */
/* The report has a row per call name (tcall.name, as nfsrdma-dissect
 * names it), like `nfsrdma-dissect -z proc`: up to REPLAY_ROWS names, the
 * calls of any further one in a last "other" row. */
#define REPLAY_ROWS 256
#define REPLAY_OTHER REPLAY_ROWS
struct engine;
/* Gives every trace call its row (tcall.row). */
void replay_rows(struct engine *e);

struct opstat {
	uint64_t trace, replayed, refused, skipped, unsupported, ok, mismatch, errors, lost;
	uint64_t no_trace_reply, bytes;
	uint64_t dep_refused;   /* skipped or differing only because a mutation was refused */
	uint64_t no_deleg;      /* gave back a delegation the target never granted: not sent */
	uint64_t read_chunks, write_chunks, reply_chunks;
	struct lhist lat, tlat;
	struct lhist issue;     /* --speed > 0: how late each call left (ns) against the trace's schedule */
	uint64_t early;         /* ... calls that left before their time (counted as 0 late) */
};

struct mismatch {
	uint32_t xid;
	char name[sizeof(((struct tcall *)0)->name)];
	uint64_t frame;
	uint32_t trpc, tstat, rpc, stat;
	int err;
};

/* ---- the engine ---- */
/* A traced client replayed (t.clients[k]): its own client ID and session,
 * and what became of its calls. */
#define RC_MAXCONN 4        /* a client's own connections (one per traced one) */
struct rclient {
	struct nfs41_session s;
	bool v4;
	/* its connections to the target: one per traced connection of its
	 * (the first RC_MAXCONN; later ones share the last) */
	struct xprt *x[RC_MAXCONN];
	uint32_t tconn[RC_MAXCONN];
	unsigned nx;
	bool shared;                     /* past the connection limit: on another client's */
	uint64_t trace, replayed, ok, mismatch, errors, unsupported, early;
	/* its calls in flight; a state or namespace change of its own sent
	 * and not answered yet (its next call waits: other clients' do not) */
	uint32_t inflight;
	bool barrier_pending;
	struct lhist lat, tlat, issue;   /* replay and trace latency; issue-time error */
	size_t next;                     /* its next call to schedule (SIZE_MAX: none) */
	uint64_t last_done_ns;           /* its last reply */
	uint64_t last_issue_ns;          /* when the scheduler was done with its last call */
	/* --delegations (NFSv4): the callbacks it serves (4.1+: on its
	 * session's back channel; 4.0: its own callback server), the recalls
	 * it has to give back, binding its new connections to its session */
	struct engine *e;
	struct nfs41_cb cb;
	struct nfs4_cb_location cbloc;
	struct nfs40_cbsrv *cbsrv;
	struct nfs41_cb_recall recalls[8];
	unsigned nrecalls;
	/* NFSv4.0 --delegations: waiting for the target's probe of its
	 * callback path (replay_deleg.c): its calls held, no other client's */
	bool cb_wait, cb_probed;
	uint64_t cb_wait_since, cb_wait_until;
	uint64_t bound_reconnects;       /* its connections' reconnects when last bound */
	bool bind_wanted;
	bool bind_first;                 /* a new connection's bind not answered yet */
	uint64_t last_bind_ns;
};

struct rcall {
	struct engine *e;
	struct xprt *x;       /* the connection it went on */
	size_t idx;
	bool busy;
	struct xprt_req req;
	uint8_t *buf;         /* RPC call (kept from call to call: bufcap bytes) */
	size_t bufcap;
	uint8_t *data;        /* DDP data (owned) */
	struct nfs_fh tdir;   /* target dir of a naming call */
	bool has_tdir;
	int slot;             /* NFSv4.1 session slot (-1: none) */
	uint32_t seq;
	struct v40use *use;   /* NFSv4.0 owner seqids the call carries */
	unsigned nuse;
	struct nfs_fh putfh;  /* NFSv4: the target handle its last PUTFH went with */
	bool has_putfh;
};

/* An NFSv4.0 open- or lock-owner seqid sent in a call (op idx): whether
 * it advances depends on that op's status in the reply. */
#define V40_MAXUSE 16
struct v40use {
	struct nfs40_owner *o;
	uint32_t idx, op, seqid;
	bool names_owner;
};

struct tinfo {
	bool has_child;
	struct nfs_fh child;  /* trace handle the call's reply named */
	bool refused_dep;     /* named by a call that was refused */
	uint64_t dep;         /* 1 + the other client's call it waits for (replay_deps.c); 0: none */
	bool inflight;        /* sent, reply not in yet */
	uint8_t xi;           /* its client's connection (rclient.x[xi]) */
	/* the scheduler's (replay_sched.c) */
	bool issued;          /* handed to replay_one (sent, or counted as not sent) */
	bool retried;         /* given back once (REPLAY_RETRY): waits for its client's replies */
	bool no_prebuild;     /* built at its time only (replay_prebuild.c) */
	bool barrier_known, barrier;
	uint8_t holds;        /* HOLD_* bits that kept it back once due (bit HOLD_KINDS:
			       * its client's call before it, until t_prev) */
	uint8_t hold;         /* the first of them */
	size_t next;          /* its client's next call (SIZE_MAX: none) */
	uint64_t t_done;      /* when its reply came (or it was done with unsent) */
	uint64_t t_pick;      /* when the scheduler took it (its last try) */
	uint64_t t_prev;      /* when its client's call before it was done with, if after its time */
};

/* Why a call due to leave was held back, as intended: its cross-client
 * dependency's reply, its own client's order (a change in flight before
 * it, or it is one), the in-flight count the trace had on its connection */
enum { HOLD_NONE, HOLD_DEP, HOLD_ORDER, HOLD_INFLIGHT, HOLD_KINDS };

/* Synchronous work of the run loop that holds back every client
 * (replay_blocking.c): a session or client ID set up inline, the wait for
 * an NFSv4.0 callback probe, the DELEGRETURN of a recalled delegation, a
 * handle's path resolved on the target (the wait for every call in
 * flight before it, and its LOOKUPs), an NFSv4.0 OPEN_CONFIRM the target
 * asked for */
enum { BLOCK_SETUP, BLOCK_CB_PROBE, BLOCK_DELEGRETURN, BLOCK_PATH, BLOCK_OPEN_CONFIRM, BLOCK_KINDS };

struct engine {
	const struct replay_opts *o;
	struct trace t;
	struct tinfo *ti;
	struct xprt *x;          /* the current call's client's connection */
	struct xprt **xs;        /* every connection, in the order they were opened */
	unsigned nxs;
	unsigned conns_wanted, clients_sharing;   /* replay_conns.c: past the limit */
	struct nfs_fh troot, root;
	bool have_troot;
	struct fhmap tmap;     /* trace fh -> target fh */
	struct fhmap tparent;  /* trace child -> trace parent */
	struct fhmap tname;    /* trace child -> (val unused), name holds the entry name: keyed (child, NULL)... */
	struct fhmap edges;    /* (target dir, name) -> target child */
	struct fhmap refused;  /* trace handles whose producer was refused */
	struct rcall *rc;
	uint32_t nrc;
	uint32_t slots;          /* credits asked on each connection (session slots) */
	struct opstat op[REPLAY_ROWS + 1];   /* by tcall.row */
	char rowname[REPLAY_ROWS][sizeof(((struct tcall *)0)->name)];
	unsigned nrows;
	struct mismatch mm[32];
	unsigned nmm;
	uint64_t mm_total, lost, sent, extra_lookups, unmapped, not_sent;
	uint64_t bytes_read, bytes_written;
	struct rpc_cred cred;
	FILE *out;
	FILE *vout;              /* -v's lines: out, or stderr under --json */
	/* NFSv4.1+ */
	bool v4;                 /* the trace has NFSv4.1+ COMPOUNDs */
	bool have_root;          /* e->root is the target's (MOUNT or PUTROOTFH) */
	struct nfs41_session *v4s;   /* the current call's client's (cl[].s) */
	struct rclient *cl;          /* one per traced client (t.clients) */
	struct rclient *cur;
	uint64_t deps, deps_held;    /* calls after another client's; of them, held for its reply */
	uint64_t t0, t0_trace;       /* the replay's start, and the trace's first call */
	/* the issue-time error with the holds in (how late against the
	 * trace's schedule, whatever the reason), and the holds by kind */
	struct lhist issue_all, hold[HOLD_KINDS];
	/* the issue-time error in two parts: until the scheduler took the
	 * call, and from then until it left (building it, and what it waited
	 * for inside: a full transport, a synchronous call) */
	struct lhist issue_pick, issue_build;
	/* how long the replay was ready to run and not running while it
	 * replayed (the kernel's run_delay, /proc/self/schedstat): time the
	 * CPU went to others (soft-RoCE, the target), not the scheduler's */
	int64_t cpu_wait_ns;
	/* -v at --speed > 0: what the thread was doing while calls were late */
	struct late_log late;
	struct pace pace;        /* how it waits for a call's time */
	/* the next call due, built before its time (replay_prebuild.c) */
	struct prebuilt {
		bool on;             /* NFSRDMA_REPLAY_PREBUILD is not 0 */
		bool building;       /* replay_one of call i stops before its post */
		bool have;           /* call i is built, its post left */
		size_t i;
		struct rcall *rc;
		struct opstat *os;
		bool barrier, v4;
	} pre;
	/* the handle the trace's PUTROOTFH goes as (PUTFH): --export's
	 * directory, --clients' group directory below it */
	bool have_v4_root;
	struct nfs_fh v4_root;
	struct fhmap sidmap;     /* replay_sid_key (client + trace other, 14) -> target other + seqids */
	struct fhmap delegmap;   /* replay_sid_key of a trace delegation the target did not grant ->
				  * the trace's open stateid other (12) of the same OPEN */
	uint64_t delegs_granted, delegs_absent;
	uint64_t delegs_unasked;  /* granted where the trace's OPEN got none: given back */
	const struct nfs_fh *learn_putfh;   /* replay_v4_learn: the handle the call's PUTFH went with */
	struct fhmap closedmap;  /* replay_sid_key of a trace open stateid a CLOSE the target
				  * answered OK gave back */
	uint64_t deleg_claims;   /* OPEN claims of absent delegations made plain */
	uint64_t deleg_anon;     /* I/O under an absent delegation whose open was
				  * closed: sent with the anonymous stateid */
	/* --delegations: what the target granted and then recalled (the
	 * callbacks are each client's, struct rclient) */
	struct fhmap grantmap;   /* target delegation other (12) -> the trace's
				  * delegation other + its OPEN's open stateid other (24) */
	struct fhmap recalledmap; /* replay_sid_key of a trace delegation whose target
				   * counterpart was recalled and given back */
	bool returning;
	uint64_t deleg_returned, deleg_return_failed, recalls_dropped, cb_refused;
	/* The connection: --disconnect-after, and (4.1+ with a back channel)
	 * binding a new one to the session */
	bool drop_pending;
	struct xprt *drop_x;
	uint64_t drops;
	struct trace_idle_cut idle;   /* --max-idle: what was cut */
	uint64_t conn_bound, conn_bind_failed, cb_path_down;
	uint32_t bind_dir;          /* what the target bound last (NFS4_CDFS4_*) */
	struct fhmap cidmap;     /* trace client ID (8) -> target's */
	struct fhmap sessmap;    /* trace session ID (16) -> target's */
	bool v4_refused;         /* a mutating COMPOUND was refused */
	int cur_slot;            /* slot taken while a COMPOUND is rewritten */
	struct rcall *cur_rc;    /* the call being rewritten (its PUTFH kept) */
	uint32_t cur_seq;
	uint64_t v4_sessions;    /* sessions (4.0: client IDs) the replay opened itself */
	/* NFSv4.0 */
	struct nfs40_owners owners;
	struct v40use cur_use[V40_MAXUSE];
	unsigned cur_nuse;
	bool v40_confirm;        /* the target asked for an OPEN_CONFIRM not sent yet */
	struct nfs40_owner *v40_conf_owner;
	struct nfs4_stateid v40_conf_sid;   /* the target's open stateid */
	struct nfs_fh v40_conf_fh;
	bool v40_conf_have_tr;
	uint8_t v40_conf_tother[12];        /* the trace's stateid for it */
	uint64_t v40_confirms_added, v40_confirms_dropped, v40_renews, v40_seqid_errors;
	/* synchronous work that held back every client (replay_blocking.c) */
	uint64_t blocked_n[BLOCK_KINDS], blocked_ns[BLOCK_KINDS], blocked_max_ns[BLOCK_KINDS];
	uint64_t before_start_n, before_start_ns;
	uint64_t cb_waits, cb_wait_ns, cb_wait_max_ns;   /* the clients' own probe waits */
	void *setup;             /* replay_setup.c's steps (freed at the end) */
};

/* READDIRPLUS entries of a reply to dir: a trace one names trace handles,
 * a target one gives (target dir, name) -> target child edges. */
struct rdp_ctx {
	struct engine *e;
	const struct nfs_fh *dir;
	bool target;
};

/* replay_handles.c */
void replay_tpath_put(struct engine *e, const struct nfs_fh *parent, const char *name,
		      const struct nfs_fh *child);
const char *replay_tpath_name(const struct engine *e, const struct nfs_fh *child);
void replay_rdp_entry(void *ctx, const char *name, const struct nfs_fh *fh);
/* trace handle -> target handle.  0, or -ENOENT (no path / not on the
 * target), -EPERM (named by a refused call). */
int replay_resolve(struct engine *e, const struct nfs_fh *tfh, struct nfs_fh *out, int depth);

/* --clients: the group's directory replay-gG under the target's root
 * becomes the replay's root.  0 or a negative errno (said in the log). */
int replay_group_root(struct engine *e);
/* NFSv4 trace and --export: the path's directory below the target's
 * pseudo-root becomes the replay's root.  0 or a negative errno (said). */
int replay_export_root(struct engine *e);

/* replay_learn.c: before replaying */
/* Learns the trace's names from its own replies. */
void replay_prepass(struct engine *e);
void replay_trace_latencies(struct engine *e);

/* replay_clients.c: gives every call its client (tcall.client); 0 or
 * -ENOMEM */
int replay_clients(struct trace *t);

/* replay_deps.c: every call's cross-client dependency (tinfo.dep) */
void replay_deps(struct engine *e);

/* replay_v4_state.c */
int replay_v4_session(struct engine *e);
int replay_v40_client(struct engine *e);
/* A trace stateid's key in the stateid maps: the traced client holding
 * it (cl; NULL: the first) and its "other" (replay_fhmap.c). */
struct nfs_fh replay_sid_key(const struct engine *e, const struct rclient *cl, const uint8_t other[12]);
/* A trace stateid as the current client's call sends it to the target
 * (replay_v4_send.c): 0, -ENOENT (no counterpart), -EPERM (refused). */
int replay_v4_map_stateid(struct engine *e, const struct nfs4_stateid *t, struct nfs4_stateid *out);

/* A client ID as a key or value of cidmap (8 bytes, big-endian; replay_fhmap.c). */
struct nfs_fh replay_cid_key(uint64_t id);
void replay_v4_learn(struct engine *e, const struct nfs4_res *rr, const struct nfs4_res *tr);
void replay_v40_after(struct engine *e, struct rcall *rc, const struct nfs4_res *rr,
		      const struct nfs4_res *tr);
int replay_v40_confirm(struct engine *e);
void replay_v4_note_closes(struct engine *e, const struct tcall *tc, const struct nfs4_res *rr);
int replay_v40_keep_lease(struct engine *e);

/* replay_reply.c: the xprt_req done callback of every replayed call */
void replay_done(struct xprt_req *req, const struct xprt_reply *rep);

/* replay_deleg.c */
/* --delegations: serve the target's callbacks.  Returns 0 or a negative
 * errno (said in the log). */
int replay_serve_callbacks(struct engine *e);
/* NFSv4.0 with --delegations, once the current client's ID is confirmed:
 * its calls wait (at most CB_PROBE_WAIT_NS) for the target's probe of the
 * callback path and CB_PROBE_GRACE_NS after it; other clients' do not. */
#define CB_PROBE_WAIT_NS 5000000000ull
#define CB_PROBE_GRACE_NS 200000000ull
void replay_v40_wait_cb_probe(struct engine *e);
/* The earliest time a client's wait ends or must be looked at again
 * (UINT64_MAX: none waits; never before now): the scheduler sleeps no
 * longer. */
uint64_t replay_async_wake(const struct engine *e, uint64_t now);
/* After a poll: every client's recalls given back, its new connections
 * bound to its session.  0 or -ENOTCONN. */
int replay_callbacks_after_poll(struct engine *e);
/* Whether cl's calls wait for its new connection's BIND_CONN_TO_SESSION
 * (a connection down, or back and not yet bound). */
bool replay_bind_holds(const struct rclient *cl);
/* The callbacks served by every client, added up. */
void replay_cb_counts(const struct engine *e, uint64_t *calls, uint64_t *recalls, uint64_t *refused,
		      bool *served, bool *cbsrv);
void replay_callbacks_stop(struct engine *e);

/* replay_v4_send.c: builds and submits NFSv4 call i (0 or -ENOTCONN) */
int replay_one_v4(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0,
		  struct opstat *os);

/* replay_conns.c: every client's connections (one per traced connection) */
/* The connections the replay may open at most: REPLAY_CONN_CAP, what an
 * open-file limit of nofile leaves past REPLAY_FD_RESERVE descriptors at
 * fds_per_conn each, and the device's QP limit (0: unknown).  *why: which
 * of them binds. */
#define REPLAY_CONN_CAP 4096
#define REPLAY_FD_RESERVE 64   /* the capture, stdio, logs */
unsigned replay_conn_limit(uint64_t nofile, unsigned fds_per_conn, uint64_t dev_max_qp, const char **why);
/* The descriptors the NFSv4.0 callback servers will take (--delegations:
 * one per traced NFSv4.0 client, each a listening socket, its wake pipe
 * and the target's connection), kept out of what connections may use. */
#define REPLAY_FDS_PER_CB_SERVER 4
uint64_t replay_cb_server_fds(const struct trace *t, bool delegations);
/* Which connection each call goes on, given at most limit of them: each
 * client's traced connections their own (its first RC_MAXCONN, later ones
 * on its last) while the limit allows; then a client with one carries its
 * further traced connections on its last, and a client with none shares
 * connection (client % limit) with another client. */
struct conn_plan_client {
	unsigned n;                  /* its connections (rclient.x) */
	uint32_t tconn[RC_MAXCONN];  /* the traced connection of each */
	unsigned g[RC_MAXCONN];      /* the replay's connection (engine.xs) of each */
	bool shared;                 /* on another client's */
};
struct conn_plan {
	unsigned n;                  /* connections to open */
	unsigned wanted;             /* connections wanted (the limit apart) */
	unsigned sharing;            /* clients on another's connection */
	struct conn_plan_client *cl; /* per traced client */
	struct { unsigned g; uint8_t xi; } *of_call;   /* per call: its connection, its client's index */
};
int replay_conn_plan(const struct trace *t, unsigned limit, struct conn_plan *p);
void replay_conn_plan_free(struct conn_plan *p);
int replay_conns_open(struct engine *e, const struct xprt_opts *xo, bool tcp);
void replay_conns_close(struct engine *e);
/* Calls in flight on every connection. */
unsigned replay_inflight_all(const struct engine *e);
/* The counters of every connection, added up. */
void replay_xprt_stats(const struct engine *e, struct xprt_stats *sum);

/* replay_rt.c: timer slack off at --speed > 0; --realtime (a line when
 * not permitted, and the replay goes on) */
void replay_timing_setup(const struct replay_opts *o);

/* replay_sched.c: issues every call, each client's in trace order, a
 * call as soon as it is due and nothing it is meant to wait for holds it.
 * 0, or a negative errno (the connection is gone). */
int replay_schedule(struct engine *e);
/* replay_one.c: call i as its own client */
int replay_one(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0);
/* What replay_one returns for a call that cannot go before its own
 * client's calls in flight are answered (a handle or stateid they name, a
 * session slot they hold): nothing was sent or counted; the scheduler
 * holds it until its client has nothing in flight, and tries again. */
#define REPLAY_RETRY 1
/* What replay_one returns for call e->pre.i while building it ahead of
 * its time: built, a session slot and a call slot taken, nothing sent
 * or counted but the trace's call. */
#define REPLAY_BUILT 2

/* replay_prebuild.c: the next call due, built before its time, so that
 * at its time only its post is left.  replay_prebuild: builds call i
 * (REPLAY_BUILT), or has done with it unsent (0), or could not build it
 * now (REPLAY_RETRY), or a negative errno.  replay_post_built: its post
 * (0, or a negative errno as replay_one's).  replay_prebuilt_drop: gives
 * it back unsent (its slots freed; built again at its time). */
void replay_prebuild_init(struct engine *e);
int replay_prebuild(struct engine *e, size_t i);
int replay_post_built(struct engine *e);
void replay_prebuilt_drop(struct engine *e);

/* replay_io.c: polling, pacing, submitting; below the builders and the
 * scheduler, calling up to none of them */
/* The call's time on the replay's clock: the trace's, scaled by --speed. */
uint64_t replay_due(const struct engine *e, const struct tcall *tc);

int replay_poll(struct engine *e, int ms);
/* The same, sleeping at most ns (to the nanosecond, on every connection). */
int replay_poll_ns(struct engine *e, uint64_t ns);
int replay_wait_all(struct engine *e);
/* Until none of the current client's calls (e->cur) is in flight. */
int replay_wait_client(struct engine *e);
/* Waits until the call's recorded send time (scaled by --speed). */
int replay_pace(struct engine *e, const struct tcall *tc, uint64_t t0_trace, uint64_t t0);
int replay_wait_rcall(struct engine *e, const struct tcall *tc, struct rcall **out);
int replay_submit(struct engine *e, struct rcall *rc, size_t i);
/* rc's call buffer, at least cap bytes (NULL: no memory). */
uint8_t *replay_rcall_buf(struct rcall *rc, size_t cap);
int replay_submit_failed(struct rcall *rc, struct opstat *os, int ret);
int replay_submitted(struct engine *e, struct rcall *rc, struct opstat *os, bool barrier);

/* replay_v4_names.c: the component names a COMPOUND of the trace carries
 * (LOOKUP, OPEN by name, CREATE, REMOVE, RENAME old and new, LINK), in op
 * order, the first V4_NAMES_MAX */
#define V4_NAMES_MAX 8
struct v4_names {
	unsigned n;
	char name[V4_NAMES_MAX][256];
};
void replay_v4_names(const struct tcall *tc, const struct nfs4_call_info *in, struct v4_names *v);

/* replay_own.c: a COMPOUND of the replay's own (SEQUENCE on the client's
 * session first, when it has one and sequence is asked, then what build
 * appends) sent on x as client cl, without waiting: done gets the decoded
 * reply (NULL when err: -EPIPE lost, -EPROTO undecodable) and how long it
 * took, inside the transport's poll.  0, -EAGAIN (no session slot or
 * transport credit now: try again after a poll) or another negative errno. */
typedef void (*replay_own_fn)(void *ctx, struct rclient *cl, const struct nfs4_res *r, int err,
			      uint64_t took_ns);
int replay_own_submit(struct engine *e, struct rclient *cl, struct xprt *x, bool sequence,
		      nfs41_build_fn build, void *bctx, uint32_t reply_max, replay_own_fn done, void *ctx);

/* replay_setup.c: before t0, every NFSv4 client whose trace uses a
 * session (client ID) it did not create gets one of the replay's own, all
 * at once.  0 or a negative errno (the connections are gone). */
bool replay_needs_own_state(const struct trace *t, unsigned k);
int replay_setup_own(struct engine *e);

/* replay_blocking.c: work of kind BLOCK_* done synchronously since
 * `since` (counted apart before the schedule's start); its report (text
 * notes; JSON "blocking":{...},) */
void replay_blocked(struct engine *e, unsigned kind, uint64_t since);
void replay_report_blocking(const struct engine *e, FILE *f);
struct jw;
void replay_blocking_json(const struct engine *e, struct jw *j);

/* replay_dry_run.c, replay_report.c */
int replay_dry_run(struct engine *e);
void replay_report(struct engine *e, double secs, int rc);
/* A trace with no NFS call to replay: one line on stderr naming the file
 * and what it held; --json: the same as one object on stdout. */
void replay_report_no_calls(const struct engine *e);
/* replay_report_json.c: the report as one JSON object (--json): the
 * exit status, tot[] the totals replay_report adds up, rows[] the
 * operations' rows in order and name[] their names */
void replay_report_json(const struct engine *e, double secs, int status, const uint64_t tot[11],
			const unsigned *rows, const char *const *name, unsigned nrows);
void replay_report_no_calls_json(const struct engine *e);
/* replay_report_clients.c: a text row per traced client */
void replay_report_clients(const struct engine *e, FILE *f);
/* A hold's name in the report ("dep", "order", "inflight"). */
const char *replay_hold_name(unsigned kind);

#endif
