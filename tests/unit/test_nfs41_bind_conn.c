/* BIND_CONN_TO_SESSION (src/clnt/nfs41_session.c), what the replay sends on a new
 * connection so that the target can call back on it: the argument bytes
 * against RFC 8881 18.34's layout written out here, the dissector reading
 * the call, our decoder reading replies built by hand (OK with both
 * channels, BADSESSION, truncated), and a real exchange over RPC on TCP on
 * the loopback with a server thread that records what came: one op alone
 * in its COMPOUND (no SEQUENCE), the session ID, BACK_OR_BOTH; then the
 * connection dropped on request (xprt_drop) and bound again over the new
 * one the transport opened, and a third time against a server that lost
 * the session (BADSESSION); the dissector's -V lines for the bind and
 * for SEQUENCE's status flags. */
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

#include "dissect/dtree.h"
#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"
#include "src/xprt/xprt.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_session.h"
#include "src/xprt/xdr_enc.h"

static const uint8_t SID[16] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4,
				 0xc1, 0xc2, 0xc3, 0xc4, 0xd1, 0xd2, 0xd3, 0xd4 };

static void test_encoding(void)
{
	uint8_t buf[256];
	struct xenc e;
	xenc_init(&e, buf, sizeof(buf));
	nfs4_enc_bind_conn_to_session(&e, SID, NFS4_CDFC4_BACK_OR_BOTH, false);
	/* bind_conn_to_session4args: opcode 41, sessionid4 (16 opaque bytes),
	 * channel_dir_from_client4 (CDFC4_BACK_OR_BOTH = 0x7), bool false */
	static const uint8_t want[] = { 0, 0, 0, 41,
		0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4, 0xc1, 0xc2, 0xc3, 0xc4, 0xd1, 0xd2, 0xd3, 0xd4,
		0, 0, 0, 7, 0, 0, 0, 0 };
	CHECK(xenc_ok(&e) && e.len == sizeof(want), "28 bytes (got %zu)", e.len);
	CHECK(memcmp(buf, want, sizeof(want)) == 0, "bytes as RFC 8881 18.34 lays them out");
}

static void put_reply_hdr(struct xenc *e, uint32_t xid)
{
	xenc_u32(e, xid);
	xenc_u32(e, 1);   /* REPLY */
	xenc_u32(e, 0);   /* MSG_ACCEPTED */
	xenc_u32(e, 0);   /* verifier AUTH_NONE */
	xenc_u32(e, 0);
	xenc_u32(e, 0);   /* SUCCESS */
}

/* COMPOUND4res with one BIND_CONN_TO_SESSION result. */
static size_t bcts_reply(uint8_t *buf, size_t cap, uint32_t xid, uint32_t status, uint32_t dir)
{
	struct xenc e;
	xenc_init(&e, buf, cap);
	if (xid)
		put_reply_hdr(&e, xid);
	xenc_u32(&e, status);
	xenc_u32(&e, 0);   /* tag */
	xenc_u32(&e, 1);
	xenc_u32(&e, 41);
	xenc_u32(&e, status);
	if (status == 0) {
		xenc_fixed(&e, SID, 16);
		xenc_u32(&e, dir);
		xenc_u32(&e, 0);
	}
	return e.len;
}

static void test_reply_decode(void)
{
	uint8_t buf[256];
	struct nfs4_res r;

	size_t n = bcts_reply(buf, sizeof(buf), 0, 0, NFS4_CDFS4_BOTH);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, n, false, &r) == 0 && r.complete, "OK reply decodes");
	CHECK(r.has_bcts && r.bcts_dir == 3 && !r.bcts_rdma_mode, "both channels bound");
	CHECK(memcmp(r.sessionid, SID, 16) == 0, "the session ID echoed");

	struct nfsrdma_record rec;
	memset(&rec, 0, sizeof(rec));
	struct pdec d = { .c = cur_make(buf, n), .rec = &rec, .vers = 4, .proc = 1, .reply = true,
			  .layer = "nfs4" };
	prog_nfs4.decode_reply(&d);
	CHECK(!d.failed && d.c.off == n, "the dissector reads the whole reply");

	n = bcts_reply(buf, sizeof(buf), 0, 10052, 0);   /* NFS4ERR_BADSESSION */
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, n, false, &r) == 0, "refusal decodes");
	CHECK(r.status == 10052 && !r.has_bcts, "BADSESSION, nothing bound");

	n = bcts_reply(buf, sizeof(buf), 0, 0, NFS4_CDFS4_BOTH);
	memset(&r, 0, sizeof(r));
	nfs4_decode_body(1, buf, n - 6, false, &r);
	CHECK(!r.has_bcts && !r.complete, "a truncated result binds nothing");
}

/* ---- the loopback server ---- */
struct srv {
	int lfd;
	unsigned conns;               /* connections to accept */
	uint8_t call[3][1024];
	size_t call_len[3];
	uint32_t reply_dir;
	uint32_t status[3];           /* the NFS4 status of each connection's reply */
};

static void *serve(void *arg)
{
	struct srv *s = arg;
	for (unsigned i = 0; i < s->conns; i++) {
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		uint8_t mark[4];
		if (read_full(fd, mark, 4, 5000) == 4) {
			uint32_t len = ((uint32_t)mark[0] << 24 | (uint32_t)mark[1] << 16 |
					(uint32_t)mark[2] << 8 | mark[3]) & 0x7fffffffu;
			if (len <= sizeof(s->call[i]) && read_full(fd, s->call[i], len, 5000) == (ssize_t)len) {
				s->call_len[i] = len;
				uint32_t xid = (uint32_t)s->call[i][0] << 24 | (uint32_t)s->call[i][1] << 16 |
					       (uint32_t)s->call[i][2] << 8 | s->call[i][3];
				uint8_t out[260];
				size_t n = bcts_reply(out + 4, sizeof(out) - 4, xid, s->status[i], s->reply_dir);
				uint32_t m = 0x80000000u | (uint32_t)n;
				out[0] = (uint8_t)(m >> 24); out[1] = (uint8_t)(m >> 16);
				out[2] = (uint8_t)(m >> 8); out[3] = (uint8_t)m;
				if (write(fd, out, n + 4) != (ssize_t)(n + 4))
					s->call_len[i] = 0;
			}
		}
		/* keep it open until the client has read the reply and dropped it
		 * (the first) or is done (the second) */
		uint8_t b;
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (poll(&pf, 1, 5000) > 0 && read(fd, &b, 1) < 0)
			s->call_len[i] = 0;
		close(fd);
	}
	return NULL;
}

/* The call the server got: one op, BIND_CONN_TO_SESSION, as the dissector
 * reads it, with our session ID and direction. */
static void check_call(const struct srv *s, unsigned i)
{
	CHECK(s->call_len[i] > 0, "connection %u: a call came", i);
	if (!s->call_len[i])
		return;
	struct rpc_msg rm;
	struct cursor cur = cur_make(s->call[i], s->call_len[i]);
	CHECK(rpc_decode(&rm, &cur, NULL) == 0 && rm.prog == 100003 && rm.vers == 4 && rm.proc == 1,
	      "connection %u: an NFSv4 COMPOUND", i);
	struct nfsrdma_record r;
	memset(&r, 0, sizeof(r));
	struct pdec d = { .c = cur, .rec = &r, .vers = 4, .proc = 1, .layer = "nfs4" };
	prog_nfs4.decode_call(&d);
	CHECK(!d.failed && d.c.off == s->call_len[i], "connection %u: the dissector reads it all", i);
	CHECK(r.nops == 1 && r.ops[0].op == 41, "connection %u: BIND_CONN_TO_SESSION alone (nops %u)", i,
	      (unsigned)r.nops);
	/* the args are the last 24 bytes: session ID, direction, rdma mode */
	const uint8_t *a = s->call[i] + s->call_len[i] - 24;
	CHECK(memcmp(a, SID, 16) == 0, "connection %u: our session ID", i);
	CHECK(a[19] == 7 && a[23] == 0, "connection %u: BACK_OR_BOTH, not RDMA mode", i);
}

static void test_loopback(void)
{
	/* the third reply as from a server restarted since: the session is gone */
	struct srv s = { .conns = 3, .reply_dir = NFS4_CDFS4_BOTH, .status = { 0, 0, 10052 } };
	s.lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	socklen_t al = sizeof(a);
	CHECK(s.lfd >= 0 && bind(s.lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(s.lfd, 4) == 0 &&
	      getsockname(s.lfd, (struct sockaddr *)&a, &al) == 0, "loopback listener");
	pthread_t th;
	CHECK(pthread_create(&th, NULL, serve, &s) == 0, "server thread");

	struct xprt_opts o = { .host = "127.0.0.1", .port = ntohs(a.sin_port), .slots = 4,
			       .max_bulk = 65536, .reconnect_ms = 5000 };
	struct xprt *x = NULL;
	int ret = xprt_tcp_open(&x, &o);
	CHECK(ret == 0 && x, "connected: %d", ret);
	if (ret == 0 && x) {
		struct nfs41_session ses;
		struct rpc_cred c;
		nfs41_session_init(&ses, 1, "bind");
		rpc_cred_sys(&c, 0, 0);
		memcpy(ses.sessionid, SID, 16);
		ses.have_session = true;
		ses.back_channel = true;
		ses.nslots = 1;
		uint32_t dir = 0;
		ret = nfs41_bind_conn(x, &ses, &c, &dir);
		CHECK(ret == 0 && dir == NFS4_CDFS4_BOTH, "bound, both channels (ret %d dir %u)", ret, dir);
		CHECK(ses.slot_seq[0] == 0 && !ses.slot_busy[0], "no slot used: no SEQUENCE");

		xprt_drop(x, "test");
		CHECK_EQ_U64(x->st.reconnects, 0);
		ret = nfs41_bind_conn(x, &ses, &c, &dir);
		CHECK(ret == 0 && dir == NFS4_CDFS4_BOTH, "bound again over the new connection (ret %d)", ret);
		CHECK_EQ_U64(x->st.reconnects, 1);

		xprt_drop(x, "test");
		ret = nfs41_bind_conn(x, &ses, &c, &dir);
		CHECK(ret == 10052, "a server that lost the session: BADSESSION comes back as a status (%d)", ret);
		xprt_destroy(x);
	}
	pthread_join(th, NULL);
	close(s.lfd);
	check_call(&s, 0);
	check_call(&s, 1);
	check_call(&s, 2);

	struct nfs41_session none;
	nfs41_session_init(&none, 1, "none");
	uint32_t dir;
	CHECK(nfs41_bind_conn(NULL, &none, NULL, &dir) == -ENOTCONN, "no session: nothing to bind");
}

/* The dissector's -V lines: the bind's directions, and SEQUENCE's status
 * flags by name (0x201: CB_PATH_DOWN and CB_PATH_DOWN_SESSION, 0x80000:
 * a bit RFC 8881 does not name). */
static void test_decode_tree(void)
{
	uint8_t buf[256];
	struct xenc e;
	struct dtree t;
	struct nfsrdma_record rec;

	dt_init(&t, 4096);
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 1);   /* COMPOUND4args: tag, minor, 1 op */
	nfs4_enc_bind_conn_to_session(&e, SID, NFS4_CDFC4_BACK_OR_BOTH, false);
	memset(&rec, 0, sizeof(rec));
	struct pdec d = { .c = cur_make(buf, e.len), .rec = &rec, .vers = 4, .proc = 1, .layer = "nfs4",
			  .tree = &t };
	prog_nfs4.decode_call(&d);
	CHECK(!d.failed && t.buf && strstr(t.buf, "dir: BACK_OR_BOTH rdma_mode: false"),
	      "call: -V names the direction asked (%s)", t.buf ? t.buf : "");

	dt_reset(&t);
	size_t n = bcts_reply(buf, sizeof(buf), 0, 0, NFS4_CDFS4_BOTH);
	memset(&rec, 0, sizeof(rec));
	struct pdec r = { .c = cur_make(buf, n), .rec = &rec, .vers = 4, .proc = 1, .reply = true,
			  .layer = "nfs4", .tree = &t };
	prog_nfs4.decode_reply(&r);
	CHECK(!r.failed && t.buf && strstr(t.buf, "bound: BOTH rdma_mode: false"),
	      "reply: -V names the direction bound (%s)", t.buf ? t.buf : "");

	/* SEQUENCE4resok: sessionid, sequenceid, slotid, highest, target, flags */
	dt_reset(&t);
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 1);
	xenc_u32(&e, NFS4_OP_SEQUENCE); xenc_u32(&e, 0);
	xenc_fixed(&e, SID, 16);
	xenc_u32(&e, 9); xenc_u32(&e, 0); xenc_u32(&e, 29); xenc_u32(&e, 29);
	xenc_u32(&e, 0x80201);
	memset(&rec, 0, sizeof(rec));
	struct pdec q = { .c = cur_make(buf, e.len), .rec = &rec, .vers = 4, .proc = 1, .reply = true,
			  .layer = "nfs4", .tree = &t };
	prog_nfs4.decode_reply(&q);
	CHECK(!q.failed && q.c.off == e.len && t.buf &&
	      strstr(t.buf, "status_flags: 0x80201 CB_PATH_DOWN|CB_PATH_DOWN_SESSION|0x80000"),
	      "SEQUENCE: -V names the status flags (%s)", t.buf ? t.buf : "");
	struct nfs4_res res;
	memset(&res, 0, sizeof(res));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &res) == 0 && res.has_seq && res.seq_flags == 0x80201,
	      "our decoder keeps the flags the replay acts on");
	dt_free(&t);
}

int main(void)
{
	test_encoding();
	test_decode_tree();
	test_reply_decode();
	test_loopback();
	return check_summary("test_nfs41_bind_conn");
}
