/* Load generation (nfsrdma-replay --generate): NULL, GETATTR, READ, WRITE,
 * a READ/WRITE mix or READDIRPLUS at a fixed queue depth over RDMA or TCP;
 * warm-up, duration or count; HDR-style latency percentiles, IOPS, MB/s
 * and client CPU per MB (getrusage); sweeps over transfer sizes with an
 * SVG plot.  NFSv3, or NFSv4.1/4.2 with a session of --qd slots: every
 * call is SEQUENCE + PUTFH + the op, READ/WRITE on an OPEN stateid. */
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_session.h"
#include "src/replay/loadgen_report.h"
#include "src/replay/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "src/base/log.h"
#include "src/base/outfile.h"

struct lg_slot {
	struct nfs_msg m;
	struct lg *lg;
	bool busy;
	bool measured;
	uint32_t op;      /* NFS3P_* */
	uint32_t size;
	int sslot;        /* NFSv4.1 session slot (-1: none) */
	uint32_t sseq;
};

struct lg {
	const struct loadgen_opts *o;
	struct xprt *x;
	struct rpc_cred cred;
	struct nfs_fh root, fh;
	struct lg_slot *slots;
	uint32_t nslots;
	uint64_t next_off, file_size;
	uint32_t size;
	unsigned seq;
	bool measuring;
	struct lg_result *cur;
	enum lg_op op;
	uint32_t rtmax, wtmax;
	bool v4;
	struct nfs41_session s;
	struct nfs4_stateid sid;  /* OPEN stateid of the file (READ/WRITE) */
	bool have_sid;
};

static const char *op_name(enum lg_op op)
{
	static const char *const n[] = { "null", "getattr", "read", "write", "mix", "readdirplus" };
	return op <= LG_READDIRPLUS ? n[op] : "?";
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void lg_done(struct xprt_req *req, const struct xprt_reply *rep)
{
	struct lg_slot *s = req->ctx;
	struct lg *lg = s->lg;
	struct lg_result *r = lg->cur;

	bool ok = false;
	uint32_t count = 0;

	s->busy = false;
	if (lg->v4) {
		static struct nfs4_res v4r;
		bool dec = !rep->err && nfs4_decode_reply(s->op == NFS3P_NULL ? 0 : 1, rep->msg, rep->len,
							  rep->bulk_moved, &v4r) == 0;
		/* the slot goes back whether or not this call is measured */
		nfs41_slot_put(&lg->s, s->sslot, s->sseq, dec && v4r.has_seq && v4r.seq_status == 0,
			       rep->err == -EPIPE);
		s->sslot = -1;
		ok = dec && v4r.rpc_status == 0 && v4r.has_status && v4r.status == 0;
		count = s->op == NFS3P_READ ? (uint32_t)xprt_reply_read_bytes(rep, v4r.read_count) : v4r.write_count;
	} else if (!rep->err && s->measured && r) {
		struct rpc_res res;
		ok = nfs3_decode_reply(s->op, rep->msg, rep->len, rep->bulk_moved, &res, NULL, NULL) >= 0 &&
		     res.rpc_status == 0 && res.has_status && res.status == 0;
		count = s->op == NFS3P_READ ? (uint32_t)xprt_reply_read_bytes(rep, res.count) : res.count;
	}
	if (!s->measured || !r)
		return;
	if (rep->err) {
		if (rep->err == -EPIPE)
			r->lost++;
		r->errors++;
		return;
	}
	if (!ok) {
		r->errors++;
		return;
	}
	r->ops++;
	if (s->op == NFS3P_READ || s->op == NFS3P_WRITE) {
		r->bytes += count;
		if (count < s->size)
			r->short_io++;
	}
	lhist_add(&r->h, rep->t_done_ns - req->t_submit_ns);
}

static int lookup_path(struct lg *lg, const char *path, struct nfs_fh *out, bool create, uint32_t *st)
{
	struct nfs_fh cur = lg->root;
	char buf[1024], *save = NULL;
	uint8_t rbuf[4096];
	size_t rlen;

	snprintf(buf, sizeof(buf), "%s", path);
	*st = 0;
	for (char *comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		struct nfs_msg m;
		struct rpc_res res;
		bool last = !save || !*save || strspn(save, "/") == strlen(save);
		nfs3_enc_lookup(&m, &lg->cred, &cur, comp);
		int ret = xprt_call_sync(lg->x, &m.req, rbuf, sizeof(rbuf), &rlen, 10000);
		if (ret < 0)
			return ret;
		if (nfs3_decode_reply(NFS3P_LOOKUP, rbuf, rlen, false, &res, NULL, NULL) < 0 ||
		    res.rpc_status)
			return -EPROTO;
		if (res.status == 2 /* NOENT */ && last && create) {
			nfs3_enc_create(&m, &lg->cred, &cur, comp, 0644);
			ret = xprt_call_sync(lg->x, &m.req, rbuf, sizeof(rbuf), &rlen, 10000);
			if (ret < 0)
				return ret;
			if (nfs3_decode_reply(NFS3P_CREATE, rbuf, rlen, false, &res, NULL, NULL) < 0 ||
			    res.rpc_status)
				return -EPROTO;
		}
		if (res.status || !res.has_fh) {
			*st = res.status;
			return -ENOENT;
		}
		cur = res.fh;
	}
	*out = cur;
	return 0;
}

static enum lg_op pick(struct lg *lg)
{
	if (lg->op != LG_MIX)
		return lg->op;
	lg->seq = lg->seq * 1103515245u + 12345u;
	return ((lg->seq >> 16) % 100) < lg->o->read_pct ? LG_READ : LG_WRITE;
}

/* One NFSv4.1 COMPOUND: SEQUENCE, PUTFH, the op. */
static int enc_v4(struct lg *lg, struct lg_slot *s, enum lg_op op, uint64_t off)
{
	struct xenc e;
	memset(&s->m.req, 0, sizeof(s->m.req));
	xenc_init(&e, s->m.buf, sizeof(s->m.buf));
	s->sslot = -1;
	if (op == LG_NULL) {
		xenc_rpc_call(&e, 0, PROG_NFS, 4, 0, NULL);
		s->op = NFS3P_NULL;
	} else {
		uint32_t seq;
		int slot = nfs41_slot_get(&lg->s, &seq);
		if (slot < 0)
			return -EAGAIN;
		s->sslot = slot;
		s->sseq = seq;
		size_t at = nfs4_compound_begin(&e, &lg->cred, lg->s.minor);
		nfs4_enc_sequence(&e, lg->s.sessionid, seq, (uint32_t)slot, nfs41_highest(&lg->s), false);
		nfs4_enc_putfh(&e, &lg->fh);
		s->m.req.reply_max = 1024;
		switch (op) {
		case LG_GETATTR:
			nfs4_enc_getattr(&e, FATTR4_W0_TYPE | FATTR4_W0_CHANGE | FATTR4_W0_SIZE |
					 FATTR4_W0_FSID | FATTR4_W0_FILEID,
					 FATTR4_W1_MODE | FATTR4_W1_NUMLINKS | FATTR4_W1_TIME_MODIFY);
			s->op = NFS3P_GETATTR;
			break;
		case LG_READ:
			nfs4_enc_read(&e, &lg->sid, off, lg->size);
			s->m.req.wchunk = lg->size;   /* RFC 8267: Write chunk */
			s->m.req.reply_max = 512;
			s->op = NFS3P_READ;
			break;
		case LG_WRITE:
			nfs4_enc_write(&e, &lg->sid, off, 0 /* UNSTABLE4 */, lg->size);
			s->m.req.has_ddp = true;      /* Read chunk when it does not fit inline */
			s->m.req.ddp = NULL;
			s->m.req.ddp_len = lg->size;
			s->op = NFS3P_WRITE;
			break;
		case LG_READDIRPLUS:
			nfs4_enc_readdir(&e, 0, NULL, 8192, 65536, FATTR4_W0_TYPE | FATTR4_W0_FILEID |
					 FATTR4_W0_FILEHANDLE, FATTR4_W1_MODE);
			s->m.req.reply_max = 65536 + 1024;
			s->op = NFS3P_READDIRPLUS;
			break;
		default:
			return -EINVAL;
		}
		nfs4_compound_end(&e, at, 3);
	}
	if (!xenc_ok(&e))
		return -EMSGSIZE;
	s->m.req.msg = s->m.buf;
	s->m.req.len = e.len;
	if (!s->m.req.reply_max)
		s->m.req.reply_max = 512;
	return 0;
}

static void v4_unslot(struct lg *lg, struct lg_slot *s)
{
	if (s->sslot >= 0)
		lg->s.slot_busy[s->sslot] = false;
	s->sslot = -1;
}

static int submit_one(struct lg *lg, struct lg_slot *s)
{
	enum lg_op op = pick(lg);
	int ret = 0;
	uint64_t off = 0;

	if (lg->v4 && op != LG_NULL && !lg->s.have_session)
		return -ENOTCONN;
	if (lg->v4 && op != LG_NULL) {
		/* a session slot first: none free is like no credit */
		uint32_t seq;
		int slot = nfs41_slot_get(&lg->s, &seq);
		if (slot < 0)
			return -EAGAIN;
		lg->s.slot_busy[slot] = false;
	}
	if (op == LG_READ || op == LG_WRITE) {
		if (lg->next_off + lg->size > lg->file_size)
			lg->next_off = 0;
		off = lg->next_off;
		lg->next_off += lg->size;
	}
	if (lg->v4) {
		ret = enc_v4(lg, s, op, off);
		if (ret < 0) {
			v4_unslot(lg, s);
			return ret;
		}
		goto send;
	}
	switch (op) {
	case LG_NULL:
		ret = nfs3_enc_null(&s->m);
		s->op = NFS3P_NULL;
		break;
	case LG_GETATTR:
		ret = nfs3_enc_getattr(&s->m, &lg->cred, &lg->fh);
		s->op = NFS3P_GETATTR;
		break;
	case LG_READ:
		ret = nfs3_enc_read(&s->m, &lg->cred, &lg->fh, off, lg->size);
		s->op = NFS3P_READ;
		break;
	case LG_WRITE:
		ret = nfs3_enc_write(&s->m, &lg->cred, &lg->fh, off, lg->size, 0, NULL);
		s->op = NFS3P_WRITE;
		break;
	case LG_READDIRPLUS:
		ret = nfs3_enc_readdirplus(&s->m, &lg->cred, &lg->fh, 0, NULL, 8192, 65536);
		s->op = NFS3P_READDIRPLUS;
		break;
	default:
		return -EINVAL;
	}
	if (ret < 0)
		return ret;
send:
	s->size = lg->size;
	s->m.req.done = lg_done;
	s->m.req.ctx = s;
	s->measured = lg->measuring;
	ret = xprt_submit(lg->x, &s->m.req);
	if (ret < 0 && lg->v4)
		v4_unslot(lg, s);
	if (ret == 0) {
		s->busy = true;
		if (lg->cur && s->measured) {
			lg->cur->read_chunks += s->m.req.used_read_chunk;
			lg->cur->write_chunks += s->m.req.used_write_chunk;
			lg->cur->reply_chunks += s->m.req.used_reply_chunk;
			lg->cur->inline_calls += !s->m.req.used_read_chunk && !s->m.req.used_p0;
		}
	}
	return ret;
}

/* Runs one phase: keeps qd calls in flight until the time or count is
 * reached, then drains.  Returns 0 or -ENOTCONN. */
static int run_phase(struct lg *lg, double secs, uint64_t count)
{
	uint64_t start = xprt_now_ns(), issued = 0;
	uint64_t end = secs > 0 ? start + (uint64_t)(secs * 1e9) : UINT64_MAX;

	for (;;) {
		bool stop = xprt_now_ns() >= end || (count && issued >= count);
		if (!stop) {
			for (uint32_t i = 0; i < lg->nslots && xprt_can_send(lg->x); i++) {
				if (lg->slots[i].busy)
					continue;
				if (count && issued >= count)
					break;
				int ret = submit_one(lg, &lg->slots[i]);
				if (ret == -EAGAIN)
					break;
				if (ret < 0)
					return ret;
				issued++;
			}
		}
		unsigned busy = 0;
		for (uint32_t i = 0; i < lg->nslots; i++)
			busy += lg->slots[i].busy;
		if (stop && !busy)
			return 0;
		int n = xprt_poll(lg->x, 100);
		if (n < 0)
			return n;
	}
}

/* 0, or -errno with one line said (the run fails: the plot was asked for) */
/* ---- NFSv4.1 set-up: session, file handle, OPEN stateid ---- */

struct v4open {
	struct lg *lg;
	const struct nfs_fh *dir;
	const char *name;
	uint32_t access;
	bool create;
};

static unsigned b_open(struct xenc *e, void *ctx)
{
	struct v4open *a = ctx;
	static const char owner[] = "nfsrdma-replay-load";
	nfs4_enc_putfh(e, a->dir);
	nfs4_enc_open(e, a->access, a->lg->s.clientid, owner, sizeof(owner) - 1, a->create, 0644,
		      a->name);
	nfs4_enc_getfh(e);
	return 3;
}

static unsigned b_close(struct xenc *e, void *ctx)
{
	struct lg *lg = ctx;
	nfs4_enc_putfh(e, &lg->fh);
	nfs4_enc_close(e, &lg->sid);
	return 2;
}

static int v4_setup(struct lg *lg, bool rw, char *err, size_t errlen)
{
	const struct loadgen_opts *o = lg->o;
	uint32_t st = 0;
	int ret;

	nfs41_session_init(&lg->s, o->minor ? o->minor : 1, "load");
	if ((ret = nfs41_session_open(lg->x, &lg->s, &lg->cred, lg->nslots, err, errlen)) < 0)
		return ret;
	if (lg->s.nslots < lg->nslots)
		log_warn("NFSv4.%u: the server granted %u session slot(s): at most %u calls in flight",
			 lg->s.minor, lg->s.nslots, lg->s.nslots);
	/* --export: a path below the server's NFSv4 pseudo-root */
	if ((ret = nfs41_lookup_path(lg->x, &lg->s, &lg->cred, o->export_path ? o->export_path : "",
				     &lg->root, &st)) < 0) {
		snprintf(err, errlen, "cannot look up the export \"%s\" below the pseudo-root (%s, "
			 "nfsstat4 %u)", o->export_path ? o->export_path : "", strerror(-ret), st);
		return ret;
	}
	lg->fh = lg->root;
	if (!rw && o->op != LG_READDIRPLUS && !(o->op == LG_GETATTR && o->file))
		return 0;
	const char *file = o->file ? o->file : (rw ? "nfsrdma-replay.load" : "");
	if (!rw) {
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", o->export_path ? o->export_path : "", file);
		if ((ret = nfs41_lookup_path(lg->x, &lg->s, &lg->cred, path, &lg->fh, &st)) < 0) {
			snprintf(err, errlen, "cannot look up \"%s\" (%s, nfsstat4 %u)", file,
				 strerror(-ret), st);
			return ret;
		}
		return 0;
	}
	/* READ / WRITE: OPEN the file (created with --allow-mutations) */
	struct nfs_fh dir = lg->root;
	char buf[1024], *slash;
	snprintf(buf, sizeof(buf), "%s", file);
	const char *name = buf;
	if ((slash = strrchr(buf, '/'))) {
		*slash = 0;
		name = slash + 1;
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", o->export_path ? o->export_path : "", buf);
		if ((ret = nfs41_lookup_path(lg->x, &lg->s, &lg->cred, path, &dir, &st)) < 0) {
			snprintf(err, errlen, "cannot look up \"%.200s\" (%s, nfsstat4 %u)", buf, strerror(-ret), st);
			return ret;
		}
	}
	struct v4open a = { lg, &dir, name, o->allow_mutations ? 3 : 1, o->allow_mutations };
	struct nfs4_res r;
	if ((ret = nfs41_call_sync(lg->x, &lg->s, &lg->cred, b_open, &a, 2048, &r)) < 0) {
		snprintf(err, errlen, "OPEN \"%s\": %s", file, strerror(-ret));
		return ret;
	}
	if (r.status || !r.nsid || !r.nfh) {
		snprintf(err, errlen, "OPEN \"%s\": nfsstat4 %u%s", file, r.status,
			 o->allow_mutations ? "" : "; with --allow-mutations it is created");
		return -ENOENT;
	}
	lg->sid = r.sid[0];
	lg->fh = r.fh[0];
	lg->have_sid = true;
	return 0;
}

static void v4_teardown(struct lg *lg)
{
	struct nfs4_res r;
	if (lg->have_sid && lg->s.have_session)
		nfs41_call_sync(lg->x, &lg->s, &lg->cred, b_close, lg, 1024, &r);
	nfs41_session_close(lg->x, &lg->s, &lg->cred);
}

/* NFSv3: the server's transfer limits (FSINFO): a larger READ comes back
 * short, a larger WRITE may be refused (RDMA_ERROR / ERR_CHUNK). */
static void v3_limits(struct lg *lg, bool rw, uint32_t maxsize)
{
	const struct loadgen_opts *o = lg->o;
	struct nfs_msg m;
	uint8_t rbuf[1024];
	size_t rlen;
	struct rpc_res fr;

	if (nfs3_enc_fsinfo(&m, &lg->cred, &lg->root) == 0 &&
	    xprt_call_sync(lg->x, &m.req, rbuf, sizeof(rbuf), &rlen, 10000) == 0 &&
	    nfs3_decode_reply(NFS3P_FSINFO, rbuf, rlen, false, &fr, NULL, NULL) == 0 &&
	    fr.rpc_status == 0 && fr.status == 0) {
		lg->rtmax = fr.rtmax;
		lg->wtmax = fr.wtmax;
		if (rw && maxsize > (o->op == LG_READ ? fr.rtmax : fr.wtmax))
			log_warn("transfer size %u exceeds the server's %s %u (FSINFO): expect "
				 "short transfers or RDMA_ERROR", maxsize,
				 o->op == LG_READ ? "rtmax" : "wtmax",
				 o->op == LG_READ ? fr.rtmax : fr.wtmax);
	}
}

/* One measured run at a transfer size: its warm-up, its calls, its time,
 * CPU and the transport's fast-path work into r.  0 or a negative errno. */
static int measure(struct lg *lg, struct lg_result *r, uint32_t size)
{
	const struct loadgen_opts *o = lg->o;
	int ret;

	lg->size = size;
	lg->next_off = 0;
	lg->cur = NULL;
	lg->measuring = false;
	if (o->warmup > 0 && (ret = run_phase(lg, o->warmup, 0)) < 0)
		return ret;
	r->size = size;
	lg->cur = r;
	lg->measuring = true;
	double c0 = cpu_now();
	uint64_t t0 = xprt_now_ns();
	struct xprt_stats s0 = lg->x->st;
	ret = run_phase(lg, o->count ? 0 : (o->duration > 0 ? o->duration : 5), o->count);
	r->secs = (double)(xprt_now_ns() - t0) / 1e9;
	r->cpu_secs = cpu_now() - c0;
	const struct xprt_stats *s1 = &lg->x->st;
	r->doorbells = s1->doorbells - s0.doorbells;
	r->signaled = s1->signaled - s0.signaled;
	r->inline_sends = s1->inline_sends - s0.inline_sends;
	r->recv_posts = s1->recv_posts - s0.recv_posts;
	r->sleeps = s1->sleeps - s0.sleeps;
	r->cq_events = s1->cq_events - s0.cq_events;
	r->naps = s1->naps - s0.naps;
	lg->cur = NULL;
	return ret;
}

int loadgen_run(const struct loadgen_opts *o, FILE *out)
{
	struct lg lg = { .o = o, .op = o->op };
	char err[256];
	int ret, rc = REPLAY_EXIT_FAILED;   /* until the load runs: a set-up failure */
	bool rw = o->op == LG_READ || o->op == LG_WRITE || o->op == LG_MIX;
	bool tcp = o->transport && strcmp(o->transport, "tcp") == 0;

	if ((o->op == LG_WRITE || o->op == LG_MIX) && !o->allow_mutations) {
		log_error("--generate %s changes the target's data: add --allow-mutations", op_name(o->op));
		return 4;
	}
	uint32_t sizes[16];
	unsigned nsizes = o->nsizes;
	memcpy(sizes, o->sizes, sizeof(sizes));
	if (!nsizes) {
		sizes[0] = o->size ? o->size : 4096;
		nsizes = 1;
	}
	uint32_t maxsize = 0;
	for (unsigned i = 0; i < nsizes; i++)
		if (sizes[i] > maxsize)
			maxsize = sizes[i];
	rpc_cred_sys(&lg.cred, 0, 0);
	lg.v4 = o->vers == 4;
	if (!lg.v4 && (ret = mount3_mnt(o->target, o->export_path ? o->export_path : "/export",
					&lg.cred, &lg.root, err, sizeof(err))) < 0) {
		log_error("%s", err);
		return REPLAY_EXIT_FAILED;
	}
	struct xprt_opts xo = { .host = o->target, .port = o->port, .slots = o->qd ? o->qd : 1,
				.max_bulk = maxsize > 65536 ? maxsize : 65536, .reply_chunk_max = 72 * 1024,
				.busy_poll = o->busy_poll, .moderate_us = o->moderate_us, .fill = 0x5a };
	ret = tcp ? xprt_tcp_open(&lg.x, &xo) : xprt_rdma_open(&lg.x, &xo);
	if (ret < 0)
		return REPLAY_EXIT_FAILED;
	lg.nslots = xo.slots;
	lg.slots = calloc(lg.nslots, sizeof(*lg.slots));
	struct lg_result *res = calloc(nsizes, sizeof(*res));
	if (!lg.slots || !res)
		goto out;
	for (uint32_t i = 0; i < lg.nslots; i++) {
		lg.slots[i].lg = &lg;
		lg.slots[i].sslot = -1;
	}

	uint32_t st;
	if (lg.v4) {
		ret = v4_setup(&lg, rw, err, sizeof(err));
		if (ret < 0) {
			log_error("NFSv4.%u on %s: %s", o->minor, o->target, err);
			goto out;
		}
		goto ready;
	}
	lg.fh = lg.root;
	if (rw || o->op == LG_READDIRPLUS || (o->op == LG_GETATTR && o->file)) {
		const char *file = o->file ? o->file : (rw ? "nfsrdma-replay.load" : "");
		ret = lookup_path(&lg, file, &lg.fh, rw && o->allow_mutations, &st);
		if (ret < 0) {
			log_error("%s: cannot look up \"%s\" on %s:%s (%s, nfsstat3 %u)%s", op_name(o->op),
				  file, o->target, o->export_path ? o->export_path : "/export",
				  strerror(-ret), st, o->allow_mutations ? "" :
				  "; with --allow-mutations it is created");
			goto out;
		}
	}
	v3_limits(&lg, rw, maxsize);
ready:
	lg.file_size = o->file_size ? o->file_size : 16ull << 20;
	if (lg.file_size < maxsize)
		lg.file_size = maxsize;
	if ((o->op == LG_READ || o->op == LG_MIX) && o->allow_mutations) {
		/* fill the file first so READs return data (not short at EOF) */
		lg.size = maxsize;
		lg.op = LG_WRITE;
		lg.next_off = 0;
		ret = run_phase(&lg, 0, (lg.file_size + maxsize - 1) / maxsize);
		lg.op = o->op;
		if (ret < 0)
			goto out;
	}
	for (unsigned i = 0; i < nsizes; i++)
		if ((ret = measure(&lg, &res[i], sizes[i])) < 0)
			break;
	const struct lg_label label = { .vers = lg.v4 ? (o->minor == 2 ? "4.2" : "4.1") : "3",
					.op = op_name(o->op), .xprt = lg.x->ops->name, .qd = o->qd };
	unsigned done = 0;
	for (unsigned i = 0; i < nsizes; i++)
		if (res[i].size && !o->json)
			lg_print_row(&label, &res[i], out, done++ == 0);
		else if (res[i].size)
			done++;
	if (o->json)
		lg_print_json(out, o->target, &label, res, nsizes, lg.rtmax, lg.wtmax, lg.x);
	int svg_rc = o->svg && done ? lg_write_svg(o->svg, &label, res, done) : 0;
	rc = svg_rc < 0 ? 1 : 0;
	for (unsigned i = 0; i < nsizes; i++) {
		if (res[i].lost)
			rc = REPLAY_EXIT_LOST;
		else if ((res[i].errors || (!res[i].ops && res[i].size)) && rc == 0)
			rc = 1;
	}
	if (ret < 0) {
		log_error("load generation stopped: %s", strerror(-ret));
		rc = rc ? rc : REPLAY_EXIT_LOST;
	}
	if (lg.v4 && ret == 0)
		v4_teardown(&lg);
out:
	free(res);
	free(lg.slots);
	xprt_destroy(lg.x);
	return rc;
}
