/* --clients' group directory (replay_group_root, src/replay/replay_handles.c)
 * against a server this test plays: RPC over TCP on the loopback, a thread
 * that answers each call with the next reply of a script and keeps what
 * came.  The replay looks up replay-gG under the root; when the target has
 * none it makes it (MKDIR, NFSv4: CREATE of a directory), and when another
 * group made it first (NFS3ERR_EXIST / NFS4ERR_EXIST) it looks it up again.
 * Each case's truth is the script: the handle the test's server gave is
 * the group's root, made_dir says whether the replay's own MKDIR made it,
 * and the calls the server got are the ones the script answers, in order,
 * naming replay-g7 (the group the test set):
 *   - NFSv3: LOOKUP NOENT, MKDIR OK with a handle;
 *   - NFSv3: LOOKUP NOENT, MKDIR EXIST, LOOKUP OK;
 *   - NFSv3: LOOKUP NOENT, MKDIR ACCES: no group root, an error;
 *   - NFSv4.0: the same three with COMPOUNDs (PUTROOTFH, LOOKUP or
 *     CREATE, GETFH), the refusal NFS4ERR_ACCESS.
 *   - NFSv4.0 --export /topdir/subdir (replay_export_root): PUTROOTFH, LOOKUP topdir,
 *     GETFH; then PUTFH of the handle it gave, LOOKUP subdir, GETFH: the last
 *     handle is the replay's root; a component the server does not have
 *     (NOENT) is an error and no root.
 * A call past the script is answered with a refusal (NFSv3 LOOKUP:
 * NOENT, MKDIR: ACCES; NFSv4: CREATE's ACCES) and counted: each case
 * expects none.
 * Closing line: "test_replay_handles_mkdir: N passed, N failed". */
#include "read_full.h"
#include "check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"
#include "src/clnt/nfs4_session.h"
#include "src/replay/replay_engine.h"
#include "src/xprt/xdr_enc.h"
#include "src/xprt/xprt.h"

#define GROUP 7u
#define GNAME "replay-g7"

static const struct nfs_fh ROOT = { .len = 12, .data = { 'r', 'o', 'o', 't', 1, 2, 3, 4, 5, 6, 7, 8 } };
static const struct nfs_fh MADE = { .len = 16, .data = { 'm', 'a', 'd', 'e', 9, 9, 9, 9, 1, 1, 1, 1, 2, 2, 2, 2 } };
static const struct nfs_fh THEIRS = { .len = 8, .data = { 't', 'h', 'e', 'i', 'r', 's', 0, 1 } };

/* What a scripted reply says. */
enum step { LOOKUP_NOENT, LOOKUP_OK, MKDIR_OK, MKDIR_EXIST, MKDIR_ACCES };

#define MAXCALLS 6
struct srv {
	int lfd;
	bool v4;
	enum step script[MAXCALLS];
	unsigned nscript;
	/* what came: each call's NFSv3 procedure, or its NFSv4 ops */
	unsigned ncalls, extra;
	uint32_t proc[MAXCALLS];
	uint32_t ops[MAXCALLS][4];
	unsigned nops[MAXCALLS];
	const char *name[MAXCALLS];   /* what call i must name (NULL: GNAME) */
	bool named[MAXCALLS];         /* the call carries its name */
	bool putfh_theirs[MAXCALLS];  /* NFSv4: PUTFH of THEIRS */
	bool in_root[MAXCALLS];       /* NFSv3: the directory handle is ROOT */
};

static void fh3(struct xenc *e, const struct nfs_fh *fh) { xenc_opaque(e, fh->data, fh->len); }

/* The body of an NFSv3 reply after the accepted-SUCCESS header. */
static void v3_body(struct xenc *e, enum step s)
{
	switch (s) {
	case LOOKUP_NOENT: xenc_u32(e, 2); xenc_u32(e, 0); break;   /* dir_attributes: none */
	case LOOKUP_OK: xenc_u32(e, 0); fh3(e, &THEIRS); xenc_u32(e, 0); xenc_u32(e, 0); break;
	case MKDIR_OK:
		xenc_u32(e, 0);
		xenc_u32(e, 1);   /* post_op_fh3: handle follows */
		fh3(e, &MADE);
		xenc_u32(e, 0);   /* obj_attributes: none */
		xenc_u32(e, 0);   /* dir_wcc: before, after: none */
		xenc_u32(e, 0);
		break;
	case MKDIR_EXIST: xenc_u32(e, 17); xenc_u32(e, 0); xenc_u32(e, 0); break;
	case MKDIR_ACCES: xenc_u32(e, 13); xenc_u32(e, 0); xenc_u32(e, 0); break;
	}
}

/* COMPOUND4res of PUTROOTFH, LOOKUP or CREATE, GETFH: stops at the op
 * that failed (RFC 7530 15.2). */
static void v4_body(struct xenc *e, enum step s)
{
	bool create = s == MKDIR_OK || s == MKDIR_EXIST || s == MKDIR_ACCES;
	uint32_t st = s == LOOKUP_NOENT ? 2 : s == MKDIR_EXIST ? 17 : s == MKDIR_ACCES ? 13 : 0;
	const struct nfs_fh *fh = s == MKDIR_OK ? &MADE : &THEIRS;
	xenc_u32(e, st);
	xenc_u32(e, 0);          /* tag */
	xenc_u32(e, st ? 2 : 3);
	xenc_u32(e, 24);         /* PUTROOTFH */
	xenc_u32(e, 0);
	xenc_u32(e, create ? 6 : 15);
	xenc_u32(e, st);
	if (st)
		return;
	if (create) {
		xenc_u32(e, 1);      /* change_info4: atomic, before, after */
		xenc_u64(e, 1);
		xenc_u64(e, 2);
		xenc_u32(e, 0);      /* attrset: empty bitmap4 */
	}
	xenc_u32(e, 10);         /* GETFH */
	xenc_u32(e, 0);
	xenc_opaque(e, fh->data, fh->len);
}

/* Keeps what call i asked. */
static void note_call(struct srv *s, unsigned i, const uint8_t *msg, size_t len)
{
	struct rpc_msg rm;
	struct cursor c = cur_make(msg, len);
	if (rpc_decode(&rm, &c, NULL) < 0)
		return;
	s->proc[i] = rm.proc;
	const char *want = s->name[i] ? s->name[i] : GNAME;
	s->named[i] = memmem(msg, len, want, strlen(want)) != NULL;
	s->putfh_theirs[i] = memmem(msg, len, THEIRS.data, THEIRS.len) != NULL;
	if (!s->v4) {
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(&c, 64, &n, "dir");
		s->in_root[i] = p && n == ROOT.len && !memcmp(p, ROOT.data, n);
		return;
	}
	struct nfsrdma_record r;
	memset(&r, 0, sizeof(r));
	struct pdec d = { .c = c, .rec = &r, .vers = 4, .proc = 1, .layer = "nfs4" };
	prog_nfs4.decode_call(&d);
	s->nops[i] = d.failed ? 0 : r.nops;
	for (unsigned k = 0; k < r.nops && k < 4; k++)
		s->ops[i][k] = r.ops[k].op;
}

static void *serve(void *arg)
{
	struct srv *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	for (;;) {
		uint8_t mark[4], msg[2048], out[1024];
		if (read_full(fd, mark, 4, 20000) != 4)
			break;
		uint32_t len = xenc_get_u32(mark) & 0x7fffffffu;
		if (len > sizeof(msg) || read_full(fd, msg, len, 20000) != (ssize_t)len)
			break;
		unsigned i = s->ncalls++;
		enum step st;
		if (i < s->nscript) {
			st = s->script[i];
		} else {
			/* past the script: a refusal of the kind asked, counted */
			s->extra++;
			uint32_t proc = len >= 24 ? xenc_get_u32(msg + 20) : 0;
			st = s->v4 || proc == 9 ? MKDIR_ACCES : LOOKUP_NOENT;
		}
		if (i < MAXCALLS)
			note_call(s, i, msg, len);
		struct xenc e;
		xenc_init(&e, out, sizeof(out));
		xenc_u32(&e, 0);                     /* record mark, below */
		xenc_fixed(&e, msg, 4);              /* the call's xid */
		xenc_u32(&e, 1);                     /* REPLY */
		xenc_u32(&e, 0);                     /* MSG_ACCEPTED */
		xenc_u32(&e, 0);                     /* verifier AUTH_NONE */
		xenc_u32(&e, 0);
		xenc_u32(&e, 0);                     /* SUCCESS */
		if (s->v4)
			v4_body(&e, st);
		else
			v3_body(&e, st);
		xenc_put_u32_at(out, 0x80000000u | (uint32_t)(e.len - 4));
		if (write(fd, out, e.len) != (ssize_t)e.len)
			break;
	}
	close(fd);
	return NULL;
}

struct run {
	int ret;
	bool made;
	struct nfs_fh root;
	bool grouped;
};

/* replay_group_root of group GROUP (export NULL) or replay_export_root of
 * export against a server playing the script. */
static struct run run_case(struct srv *s, const char *export)
{
	struct run out = { .ret = -ECANCELED };
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	socklen_t al = sizeof(a);
	bool listening = s->lfd >= 0 && bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
			 listen(s->lfd, 1) == 0 && getsockname(s->lfd, (struct sockaddr *)&a, &al) == 0;
	CHECK(listening, "loopback listener");
	pthread_t th;
	bool serving = listening && pthread_create(&th, NULL, serve, s) == 0;
	CHECK(serving, "server thread");
	if (!serving) {
		if (s->lfd >= 0)
			close(s->lfd);
		return out;
	}
	struct xprt_opts o = { .host = "127.0.0.1", .port = ntohs(a.sin_port), .slots = 4,
			       .max_bulk = 65536, .reconnect_ms = 5000 };
	struct xprt *x = NULL;
	int ret = xprt_tcp_open(&x, &o);
	CHECK(ret == 0 && x, "connected: %d", ret);
	struct engine *e = calloc(1, sizeof(*e));
	struct replay_group_result res;
	struct replay_opts ro;
	struct nfs41_session ses;
	memset(&res, 0, sizeof(res));
	memset(&ro, 0, sizeof(ro));
	ro.allow_mutations = true;
	ro.group = GROUP;
	ro.result = &res;
	ro.export_path = export;
	CHECK(e != NULL, "engine");
	if (ret == 0 && x && e) {
		e->o = &ro;
		e->x = x;
		rpc_cred_sys(&e->cred, 0, 0);
		e->v4 = s->v4;
		if (s->v4) {
			/* NFSv4.0: no client ID to look up or create; the root by PUTROOTFH */
			nfs41_session_init(&ses, 0, "mkdir-test");
			e->v4s = &ses;
		} else {
			e->root = ROOT;
			e->have_root = true;
		}
		out.ret = export ? replay_export_root(e) : replay_group_root(e);
		out.made = res.made_dir;
		out.root = e->v4_root;
		out.grouped = e->have_v4_root;
		fhmap_free(&e->edges);
		fhmap_free(&e->tmap);
	}
	free(e);
	xprt_destroy(x);     /* the server's read ends: it returns */
	pthread_join(th, NULL);
	close(s->lfd);
	return out;
}

static bool fh_is(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* The calls came as the script has them: NFSv3 procedures (LOOKUP 3,
 * MKDIR 9) or NFSv4 COMPOUNDs of PUTROOTFH, LOOKUP (15) or CREATE (6),
 * GETFH; each naming the group's directory. */
static void check_calls(const char *what, const struct srv *s)
{
	CHECK(s->ncalls == s->nscript && s->extra == 0, "%s: %u calls, the script's %u (%u past it)", what,
	      s->ncalls, s->nscript, s->extra);
	for (unsigned i = 0; i < s->nscript && i < s->ncalls; i++) {
		bool mk = s->script[i] == MKDIR_OK || s->script[i] == MKDIR_EXIST || s->script[i] == MKDIR_ACCES;
		CHECK(s->named[i], "%s: call %u names " GNAME, what, i);
		if (s->v4) {
			CHECK(s->proc[i] == 1 && s->nops[i] == 3 && s->ops[i][0] == 24 &&
			      s->ops[i][1] == (mk ? 6u : 15u) && s->ops[i][2] == 10,
			      "%s: call %u PUTROOTFH, %s, GETFH", what, i, mk ? "CREATE" : "LOOKUP");
		} else {
			CHECK(s->proc[i] == (mk ? 9u : 3u) && s->in_root[i], "%s: call %u %s in the root (proc %u)",
			      what, i, mk ? "MKDIR" : "LOOKUP", s->proc[i]);
		}
	}
}

static void test_vers(bool v4)
{
	const char *v = v4 ? "NFSv4.0" : "NFSv3";
	char what[64];

	/* no directory yet: the replay's MKDIR makes it, its handle the root */
	struct srv a = { .v4 = v4, .script = { LOOKUP_NOENT, MKDIR_OK }, .nscript = 2 };
	struct run r = run_case(&a, NULL);
	snprintf(what, sizeof(what), "%s made", v);
	CHECK(r.ret == 0, "%s: group root set (%d)", what, r.ret);
	CHECK(r.grouped && fh_is(&r.root, &MADE), "%s: the group's root is the handle MKDIR gave", what);
	CHECK(r.made, "%s: made_dir", what);
	check_calls(what, &a);

	/* another group made it first: EXIST, then the handle LOOKUP gives */
	struct srv b = { .v4 = v4, .script = { LOOKUP_NOENT, MKDIR_EXIST, LOOKUP_OK }, .nscript = 3 };
	r = run_case(&b, NULL);
	snprintf(what, sizeof(what), "%s exists", v);
	CHECK(r.ret == 0, "%s: group root set (%d)", what, r.ret);
	CHECK(r.grouped && fh_is(&r.root, &THEIRS), "%s: the group's root is the handle LOOKUP gave", what);
	CHECK(!r.made, "%s: not made_dir (the other group made it)", what);
	check_calls(what, &b);

	/* refused: no root, an error, no LOOKUP topdirfter it */
	struct srv c = { .v4 = v4, .script = { LOOKUP_NOENT, MKDIR_ACCES }, .nscript = 2 };
	r = run_case(&c, NULL);
	snprintf(what, sizeof(what), "%s refused", v);
	CHECK(r.ret < 0, "%s: an error (%d)", what, r.ret);
	CHECK(!r.grouped && !r.made, "%s: no group root, nothing made", what);
	check_calls(what, &c);
}

/* --export /topdir/subdir on an NFSv4 trace: one look-up per component, each from
 * the handle the last gave (PUTROOTFH for the first). */
static void test_export(void)
{
	struct srv a = { .v4 = true, .script = { LOOKUP_OK, LOOKUP_OK }, .nscript = 2, .name = { "topdir", "subdir" } };
	struct run r = run_case(&a, "/topdir/./subdir/");
	CHECK(r.ret == 0, "export: root set (%d)", r.ret);
	CHECK(r.grouped && fh_is(&r.root, &THEIRS), "export: the root is the handle the last LOOKUP gave");
	CHECK(a.ncalls == 2 && a.extra == 0, "export: %u calls, the script's 2 (%u past it)", a.ncalls, a.extra);
	CHECK(a.nops[0] == 3 && a.ops[0][0] == 24 && a.ops[0][1] == 15 && a.ops[0][2] == 10 && a.named[0] &&
	      !a.putfh_theirs[0], "export: call 0 PUTROOTFH, LOOKUP topdir, GETFH");
	CHECK(a.nops[1] == 3 && a.ops[1][0] == 22 && a.ops[1][1] == 15 && a.ops[1][2] == 10 && a.named[1] &&
	      a.putfh_theirs[1], "export: call 1 PUTFH of topdir's handle, LOOKUP subdir, GETFH");

	struct srv b = { .v4 = true, .script = { LOOKUP_NOENT }, .nscript = 1, .name = { "topdir" } };
	r = run_case(&b, "/topdir/subdir");
	CHECK(r.ret == -ENOENT, "export missing: -ENOENT (%d)", r.ret);
	CHECK(!r.grouped, "export missing: no root");
	CHECK(b.ncalls == 1 && b.extra == 0 && b.named[0], "export missing: one LOOKUP of topdir, nothing after (%u calls)",
	      b.ncalls);

	/* an NFSv3 trace: the root is MOUNT's, nothing is looked up here */
	struct srv c = { .v4 = false, .nscript = 0 };
	r = run_case(&c, "/topdir/subdir");
	CHECK(r.ret == 0 && !r.grouped && c.ncalls == 0, "export, NFSv3: nothing sent (%u calls)", c.ncalls);
}

int main(void)
{
	test_vers(false);
	test_vers(true);
	test_export();
	return check_summary("test_replay_handles_mkdir");
}
