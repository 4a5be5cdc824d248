/* The NFSv4.1/4.2 session of the replay tool and the load generator
 * (RFC 8881): EXCHANGE_ID, CREATE_SESSION, SEQUENCE slots, synchronous
 * COMPOUNDs, BIND_CONN_TO_SESSION, path lookup.  See nfs4_session.h. */
#include "src/clnt/nfs4_session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/clnt/nfs3.h"

int nfs41_slot_get(struct nfs41_session *s, uint32_t *seq)
{
	for (uint32_t i = 0; i < s->nslots && i < NFS41_MAX_SLOTS; i++) {
		if (s->slot_busy[i] || s->slot_dead[i])
			continue;
		s->slot_busy[i] = true;
		*seq = s->slot_seq[i] + 1;
		return (int)i;
	}
	return -1;
}

void nfs41_slot_put(struct nfs41_session *s, int slot, uint32_t seq, bool seq_ok, bool lost)
{
	if (slot < 0 || slot >= NFS41_MAX_SLOTS)
		return;
	s->slot_busy[slot] = false;
	if (lost)
		s->slot_dead[slot] = true;
	else if (seq_ok)
		s->slot_seq[slot] = seq;
	else
		s->seq_errors++;
}

uint32_t nfs41_highest(const struct nfs41_session *s)
{
	return s->nslots ? s->nslots - 1 : 0;
}

void nfs41_session_init(struct nfs41_session *s, uint32_t minor, const char *tag)
{
	char host[64] = "";
	memset(s, 0, sizeof(*s));
	s->minor = minor;
	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "localhost");
	uint64_t now = xprt_now_ns();
	snprintf(s->owner, sizeof(s->owner), "nfsrdma-replay/%s/%d/%s/%llx", host, (int)getpid(),
		 tag ? tag : "", (unsigned long long)now);
	for (int i = 0; i < 8; i++)
		s->verifier[i] = (uint8_t)(now >> (8 * i));
}

struct sync_build {
	struct nfs41_session *s;
	nfs41_build_fn build;
	void *ctx;
};

static int call_sync(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		     nfs41_build_fn build, void *ctx, uint32_t reply_max, struct nfs4_res *res,
		     bool sequence)
{
	struct nfs_msg m;
	struct xenc e;
	static uint8_t rbuf[80 * 1024];
	size_t rlen = 0;
	uint32_t seq = 0;
	int slot = -1;

	memset(&m.req, 0, sizeof(m.req));
	xenc_init(&e, m.buf, sizeof(m.buf));
	size_t at = nfs4_compound_begin(&e, c, s->minor);
	unsigned n = 0;
	if (sequence && s->have_session) {
		slot = nfs41_slot_get(s, &seq);
		if (slot < 0)
			return -EAGAIN;
		nfs4_enc_sequence(&e, s->sessionid, seq, (uint32_t)slot, nfs41_highest(s), false);
		n++;
	}
	n += build(&e, ctx);
	nfs4_compound_end(&e, at, n);
	if (!xenc_ok(&e)) {
		nfs41_slot_put(s, slot, seq, false, false);
		return -EMSGSIZE;
	}
	m.req.msg = m.buf;
	m.req.len = e.len;
	m.req.reply_max = reply_max ? reply_max : 1024;
	int ret = xprt_call_sync(x, &m.req, rbuf, sizeof(rbuf), &rlen, 15000);
	if (ret < 0) {
		nfs41_slot_put(s, slot, seq, false, ret == -EPIPE || ret == -ETIMEDOUT);
		return ret;
	}
	if (nfs4_decode_reply(1, rbuf, rlen, false, res) < 0 || res->rpc_status) {
		nfs41_slot_put(s, slot, seq, false, false);
		return -EPROTO;
	}
	nfs41_slot_put(s, slot, seq, res->has_seq && res->seq_status == 0, false);
	return 0;
}

int nfs41_call_sync(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		    nfs41_build_fn build, void *ctx, uint32_t reply_max, struct nfs4_res *res)
{
	return call_sync(x, s, c, build, ctx, reply_max, res, true);
}

unsigned nfs41_build_bind_conn(struct xenc *e, void *ctx)
{
	const struct nfs41_session *s = ctx;
	/* both channels only where CREATE_SESSION asked for a back channel:
	 * the server must not send callbacks a client cannot answer */
	nfs4_enc_bind_conn_to_session(e, s->sessionid,
				      s->back_channel ? NFS4_CDFC4_BACK_OR_BOTH : NFS4_CDFC4_FORE, false);
	return 1;
}

int nfs41_bind_conn(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		    uint32_t *dir)
{
	struct nfs4_res r;
	memset(&r, 0, sizeof(r));
	if (!s->have_session)
		return -ENOTCONN;
	int ret = call_sync(x, s, c, nfs41_build_bind_conn, s, 512, &r, false);
	if (ret < 0)
		return ret;
	return nfs41_bind_conn_result(s, &r, dir);
}

int nfs41_bind_conn_result(const struct nfs41_session *s, const struct nfs4_res *r, uint32_t *dir)
{
	if (r->status)
		return (int)r->status;
	if (!r->has_bcts || memcmp(r->sessionid, s->sessionid, 16) != 0)
		return -EPROTO;
	*dir = r->bcts_dir;
	return 0;
}

static unsigned b_exchange_id(struct xenc *e, void *ctx)
{
	struct nfs41_session *s = ctx;
	/* EXCHGID4_FLAG_USE_NON_PNFS (0x10000) */
	nfs4_enc_exchange_id(e, s->verifier, s->owner, (uint32_t)strlen(s->owner), 0x10000);
	return 1;
}

struct cs_args {
	struct nfs41_session *s;
	uint32_t slots;
};

static unsigned b_create_session(struct xenc *e, void *ctx)
{
	struct cs_args *a = ctx;
	/* no back channel (flags 0) unless we serve callbacks: without one
	 * the server grants no delegations */
	nfs4_enc_create_session(e, a->s->clientid, a->s->cs_seq,
				a->s->back_channel ? NFS4_CS_CONN_BACK_CHAN : 0, 1024 * 1024 + 4096,
				1024 * 1024 + 4096, a->slots);
	return 1;
}

static unsigned b_reclaim_complete(struct xenc *e, void *ctx)
{
	(void)ctx;
	nfs4_enc_reclaim_complete(e, false);
	return 1;
}

static unsigned b_destroy_session(struct xenc *e, void *ctx)
{
	nfs4_enc_destroy_session(e, ((struct nfs41_session *)ctx)->sessionid);
	return 1;
}

static unsigned b_destroy_clientid(struct xenc *e, void *ctx)
{
	nfs4_enc_destroy_clientid(e, ((struct nfs41_session *)ctx)->clientid);
	return 1;
}

void nfs41_session_adopt(struct nfs41_session *s, const struct nfs4_res *r, uint32_t asked)
{
	s->cs_seq++;
	memcpy(s->sessionid, r->sessionid, 16);
	s->nslots = r->fore_maxreqs < asked ? r->fore_maxreqs : asked;
	if (s->nslots > NFS41_MAX_SLOTS)
		s->nslots = NFS41_MAX_SLOTS;
	if (!s->nslots)
		s->nslots = 1;
	s->maxreq = r->fore_maxreq;
	s->maxresp = r->fore_maxresp;
	memset(s->slot_seq, 0, sizeof(s->slot_seq));
	memset(s->slot_busy, 0, sizeof(s->slot_busy));
	memset(s->slot_dead, 0, sizeof(s->slot_dead));
	s->have_session = true;
}

int nfs41_session_open(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		       uint32_t slots, char *err, size_t errlen)
{
	struct nfs4_res r;
	int ret;

	s->have_session = false;
	if ((ret = nfs41_call_sync(x, s, c, b_exchange_id, s, 1024, &r)) < 0 || r.status ||
	    !r.has_clientid) {
		snprintf(err, errlen, "EXCHANGE_ID: %s", ret < 0 ? strerror(-ret) : "refused");
		if (ret == 0)
			snprintf(err, errlen, "EXCHANGE_ID: NFS4 status %u", r.status);
		return ret < 0 ? ret : -EPROTO;
	}
	s->have_client = true;
	s->clientid = r.clientid;
	s->cs_seq = r.eir_seq;
	if (slots > NFS41_MAX_SLOTS)
		slots = NFS41_MAX_SLOTS;
	struct cs_args ca = { s, slots ? slots : 1 };
	if ((ret = nfs41_call_sync(x, s, c, b_create_session, &ca, 1024, &r)) < 0 || r.status ||
	    !r.has_session) {
		snprintf(err, errlen, "CREATE_SESSION: %s", ret < 0 ? strerror(-ret) : "refused");
		if (ret == 0)
			snprintf(err, errlen, "CREATE_SESSION: NFS4 status %u", r.status);
		return ret < 0 ? ret : -EPROTO;
	}
	nfs41_session_adopt(s, &r, ca.slots);
	if ((ret = nfs41_call_sync(x, s, c, b_reclaim_complete, NULL, 512, &r)) < 0) {
		snprintf(err, errlen, "RECLAIM_COMPLETE: %s", strerror(-ret));
		return ret;
	}
	/* NFS4ERR_COMPLETE_ALREADY is fine; anything else is logged only */
	if (r.status && r.status != 10054)
		log_warn("nfs4.1: RECLAIM_COMPLETE: status %u", r.status);
	log_info("nfs4.%u: client 0x%016llx, session with %u slot(s) (asked %u), maxreq %u maxresp %u",
		 s->minor, (unsigned long long)s->clientid, s->nslots, ca.slots, s->maxreq, s->maxresp);
	return 0;
}

void nfs41_session_close(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c)
{
	struct nfs4_res r;
	if (s->have_session) {
		/* DESTROY_SESSION goes without SEQUENCE */
		call_sync(x, s, c, b_destroy_session, s, 512, &r, false);
		s->have_session = false;
	}
	if (s->have_client) {
		nfs41_call_sync(x, s, c, b_destroy_clientid, s, 512, &r);
		s->have_client = false;
	}
}

struct lk_args {
	const struct nfs_fh *dir;  /* NULL: PUTROOTFH */
	const char *name;          /* NULL: just GETFH */
};

static unsigned b_lookup(struct xenc *e, void *ctx)
{
	struct lk_args *a = ctx;
	unsigned n = 2;
	if (a->dir)
		nfs4_enc_putfh(e, a->dir);
	else
		nfs4_enc_putrootfh(e);
	if (a->name) {
		nfs4_enc_lookup(e, a->name);
		n++;
	}
	nfs4_enc_getfh(e);
	return n;
}

int nfs41_lookup_path(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      const char *path, struct nfs_fh *out, uint32_t *st)
{
	struct nfs4_res r;
	struct lk_args a = { NULL, NULL };
	struct nfs_fh cur;
	char buf[1024], *save = NULL;
	int ret;

	*st = 0;
	if ((ret = nfs41_call_sync(x, s, c, b_lookup, &a, 1024, &r)) < 0)
		return ret;
	if (r.status || !r.nfh) {
		*st = r.status;
		return -ENOENT;
	}
	cur = r.fh[0];
	snprintf(buf, sizeof(buf), "%s", path ? path : "");
	for (char *comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		a.dir = &cur;
		a.name = comp;
		if ((ret = nfs41_call_sync(x, s, c, b_lookup, &a, 1024, &r)) < 0)
			return ret;
		if (r.status || !r.nfh) {
			*st = r.status;
			return -ENOENT;
		}
		cur = r.fh[0];
	}
	*out = cur;
	return 0;
}
