/* ONC RPC header decoding (RFC 5531). */
#include "check.h"
#include "xdrbuild.h"

#include <errno.h>

#include "dissect/rpc.h"

int main(void)
{
	struct xb x;
	struct rpc_msg m;
	struct cursor c;

	x.n = 0;
	xb_rpc_call(&x, 0x1234, 100003, 3, 6);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), 0);
	CHECK_EQ_U64(m.xid, 0x1234);
	CHECK_EQ_U64(m.mtype, RPC_CALL);
	CHECK_EQ_U64(m.prog, 100003);
	CHECK_EQ_U64(m.vers, 3);
	CHECK_EQ_U64(m.proc, 6);
	CHECK_EQ_U64(m.cred_flavor, AUTH_SYS);
	CHECK_EQ_U64(m.sys_uid, 1000);
	CHECK_EQ_U64(m.sys_ngids, 1);
	CHECK_EQ_STR(m.sys_machine, "client");
	CHECK_EQ_U64(m.body_off, x.n);
	CHECK_EQ_U64(rpc_peek_type(x.b, x.n), RPC_CALL);

	/* an AUTH_SYS credential of RPC_MAX_AUTH (400) bytes, its last 60
	 * past the 16 gids: still read; 401 is refused at the length */
	for (uint32_t len = RPC_MAX_AUTH; len <= RPC_MAX_AUTH + 1; len++) {
		x.n = 0;
		xb_u32(&x, 6); xb_u32(&x, 0); xb_u32(&x, 2); xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 1);
		xb_u32(&x, AUTH_SYS);
		xb_u32(&x, len);
		size_t body = x.n;
		xb_u32(&x, 7);
		xb_opaque(&x, "edge", 4);
		xb_u32(&x, 4321); xb_u32(&x, 99); xb_u32(&x, 16);
		while (x.n < body + ((len + 3) & ~3u))
			xb_u32(&x, 0);
		xb_u32(&x, AUTH_NONE); xb_u32(&x, 0);
		c = cur_make(x.b, x.n);
		memset(&m, 0, sizeof(m));
		int rc = rpc_decode(&m, &c, NULL);
		if (len == RPC_MAX_AUTH) {
			CHECK_EQ_U64(rc, 0);
			CHECK_EQ_U64(m.sys_uid, 4321);
			CHECK_EQ_U64(m.sys_gid, 99);
			CHECK_EQ_STR(m.sys_machine, "edge");
		} else {
			CHECK(rc != 0 && c.err == CUR_INVALID && c.err_off == body - 4, "cred length 401 refused at it");
		}
	}

	/* RPCSEC_GSS credential, with a -V tree */
	x.n = 0;
	xb_u32(&x, 5); xb_u32(&x, 0); xb_u32(&x, 2); xb_u32(&x, 100003); xb_u32(&x, 4); xb_u32(&x, 1);
	xb_u32(&x, RPCSEC_GSS);
	xb_u32(&x, 24);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 77); xb_u32(&x, 2); xb_u32(&x, 4); xb_u32(&x, 0xabcd);
	xb_u32(&x, RPCSEC_GSS);
	xb_u32(&x, 0);
	struct dtree t;
	dt_init(&t, 0);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, &t), 0);
	CHECK_EQ_U64(m.gss_seq, 77);
	CHECK_EQ_U64(m.gss_svc, RPC_GSS_SVC_INTEGRITY);
	CHECK(t.buf && strstr(t.buf, "RPCSEC_GSS") && strstr(t.buf, "integrity"), "tree: %s", t.buf ? t.buf : "");
	dt_free(&t);

	/* accepted reply, PROG_MISMATCH */
	x.n = 0;
	xb_u32(&x, 9); xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 2); xb_u32(&x, 2); xb_u32(&x, 3);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), 0);
	CHECK_EQ_U64(m.accept_stat, 2);
	CHECK_EQ_U64(m.mis_high, 3);
	CHECK_EQ_STR(rpc_accept_name(m.accept_stat), "PROG_MISMATCH");

	/* denied: AUTH_ERROR / AUTH_TOOWEAK */
	x.n = 0;
	xb_u32(&x, 9); xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 5);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), 0);
	CHECK_EQ_U64(m.reply_stat, RPC_MSG_DENIED);
	CHECK_EQ_STR(rpc_auth_stat_name(m.auth_stat), "AUTH_TOOWEAK");

	/* invalid: rpcvers 3, msg_type 2, oversize credential, truncated */
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 3); xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 1);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_INVALID);
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 2);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err_off, 4);
	CHECK_EQ_U64(rpc_peek_type(x.b, x.n), (uint64_t)-1);
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 2); xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 1);
	xb_u32(&x, 1); xb_u32(&x, 401);
	c = cur_make(x.b, x.n);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_INVALID);
	x.n = 0;
	xb_rpc_call(&x, 1, 1, 1, 1);
	c = cur_make(x.b, x.n - 3);
	CHECK_EQ_U64(rpc_decode(&m, &c, NULL), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
	return check_summary("test_rpc");
}
