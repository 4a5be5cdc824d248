#include "dissect/rpc.h"

#include <errno.h>
#include <string.h>

static const char *rpc_auth_name(uint32_t flavor);
static const char *rpc_gss_proc_name(uint32_t p);
static const char *rpc_gss_svc_name(uint32_t s);

int rpc_peek_type(const uint8_t *p, size_t len)
{
	if (len < 8)
		return -1;
	uint32_t t = ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | p[7];
	return t <= 1 ? (int)t : -1;
}

static void cred_sys(struct rpc_msg *m, struct cursor *c, struct dtree *tree)
{
	uint32_t n;

	m->sys_stamp = cur_be32(c, "auth_sys stamp");
	const uint8_t *p = cur_xdr_opaque(c, 255, &n, "auth_sys machinename");
	m->sys_machine[0] = 0;
	if (p) {
		size_t k = n < sizeof(m->sys_machine) - 1 ? n : sizeof(m->sys_machine) - 1;
		for (size_t i = 0; i < k; i++)
			m->sys_machine[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
		m->sys_machine[k] = 0;
	}
	m->sys_uid = cur_be32(c, "auth_sys uid");
	m->sys_gid = cur_be32(c, "auth_sys gid");
	m->sys_ngids = cur_be32(c, "auth_sys gids count");
	if (m->sys_ngids > 16) {
		cur_fail(c, CUR_INVALID, "auth_sys gids count (> 16)");
		return;
	}
	cur_skip(c, (size_t)m->sys_ngids * 4, "auth_sys gids");
	DT(tree, "AUTH_SYS: stamp 0x%08x machine \"%s\" uid %u gid %u gids %u",
	   m->sys_stamp, m->sys_machine, m->sys_uid, m->sys_gid, m->sys_ngids);
}

static void cred_gss(struct rpc_msg *m, struct cursor *c, struct dtree *tree)
{
	m->gss_vers = cur_be32(c, "rpcsec_gss version");
	m->gss_proc = cur_be32(c, "rpcsec_gss proc");
	m->gss_seq = cur_be32(c, "rpcsec_gss seq_num");
	m->gss_svc = cur_be32(c, "rpcsec_gss service");
	cur_xdr_opaque(c, RPC_MAX_AUTH, NULL, "rpcsec_gss handle");
	DT(tree, "RPCSEC_GSS: version %u proc %s seq %u service %s", m->gss_vers,
	   rpc_gss_proc_name(m->gss_proc), m->gss_seq, rpc_gss_svc_name(m->gss_svc));
}

static void opaque_auth(struct cursor *c, uint32_t *flavor, const char *what)
{
	*flavor = cur_be32(c, what);
	cur_xdr_opaque(c, RPC_MAX_AUTH, NULL, what);
}

int rpc_decode(struct rpc_msg *m, struct cursor *c, struct dtree *tree)
{
	memset(m, 0, sizeof(*m));
	m->xid = cur_be32(c, "rpc xid");
	m->mtype = cur_be32(c, "rpc msg_type");
	if (!cur_ok(c))
		return -EBADMSG;
	if (m->mtype == RPC_CALL) {
		m->rpcvers = cur_be32(c, "rpc version");
		m->prog = cur_be32(c, "rpc program");
		m->vers = cur_be32(c, "rpc program version");
		m->proc = cur_be32(c, "rpc procedure");
		if (cur_ok(c) && m->rpcvers != 2) {
			c->off -= 16;
			cur_fail(c, CUR_INVALID, "rpc version (not 2)");
			return -EBADMSG;
		}
		DT(tree, "Remote Procedure Call: xid 0x%08x CALL rpcvers 2 prog %u vers %u proc %u",
		   m->xid, m->prog, m->vers, m->proc);
		dt_push(tree);
		m->cred_flavor = cur_be32(c, "rpc cred flavor");
		m->cred_len = cur_be32(c, "rpc cred length");
		if (cur_ok(c) && m->cred_len > RPC_MAX_AUTH) {
			c->off -= 4;
			cur_fail(c, CUR_INVALID, "rpc cred length (> 400)");
		}
		DT(tree, "credential: %s, %u bytes", rpc_auth_name(m->cred_flavor), m->cred_len);
		struct cursor body = cur_sub(c, (m->cred_len + 3u) & ~3u, "rpc cred body");
		if (m->cred_len > 0 && m->cred_len <= RPC_MAX_AUTH) {
			body.len = m->cred_len;
			dt_push(tree);
			if (m->cred_flavor == AUTH_SYS)
				cred_sys(m, &body, tree);
			else if (m->cred_flavor == RPCSEC_GSS)
				cred_gss(m, &body, tree);
			dt_pop(tree);
			if (!cur_ok(&body) && cur_ok(c)) {
				/* bad credential body: report where it is in c */
				c->off = (size_t)(body.base - c->base) + body.err_off;
				cur_fail(c, body.err, body.err_what);
			}
		}
		opaque_auth(c, &m->verf_flavor, "rpc verifier");
		DT(tree, "verifier: %s", rpc_auth_name(m->verf_flavor));
		dt_pop(tree);
	} else if (m->mtype == RPC_REPLY) {
		m->reply_stat = cur_be32(c, "rpc reply_stat");
		if (!cur_ok(c))
			return -EBADMSG;
		if (m->reply_stat == RPC_MSG_ACCEPTED) {
			opaque_auth(c, &m->verf_flavor, "rpc verifier");
			m->accept_stat = cur_be32(c, "rpc accept_stat");
			if (m->accept_stat == 2) {
				m->mis_low = cur_be32(c, "rpc prog_mismatch low");
				m->mis_high = cur_be32(c, "rpc prog_mismatch high");
			} else if (cur_ok(c) && m->accept_stat > 5) {
				c->off -= 4;
				cur_fail(c, CUR_INVALID, "rpc accept_stat");
			}
			DT(tree, "Remote Procedure Call: xid 0x%08x REPLY accepted verifier %s accept_stat %s",
			   m->xid, rpc_auth_name(m->verf_flavor), rpc_accept_name(m->accept_stat));
		} else if (m->reply_stat == RPC_MSG_DENIED) {
			m->reject_stat = cur_be32(c, "rpc reject_stat");
			if (m->reject_stat == 0) {
				m->mis_low = cur_be32(c, "rpc rpc_mismatch low");
				m->mis_high = cur_be32(c, "rpc rpc_mismatch high");
			} else if (m->reject_stat == 1) {
				m->auth_stat = cur_be32(c, "rpc auth_stat");
			} else if (cur_ok(c)) {
				c->off -= 4;
				cur_fail(c, CUR_INVALID, "rpc reject_stat");
			}
			DT(tree, "Remote Procedure Call: xid 0x%08x REPLY denied %s", m->xid,
			   m->reject_stat == 0 ? "RPC_MISMATCH" : rpc_auth_stat_name(m->auth_stat));
		} else {
			c->off -= 4;
			cur_fail(c, CUR_INVALID, "rpc reply_stat");
		}
	} else {
		c->off -= 4;
		cur_fail(c, CUR_INVALID, "rpc msg_type");
	}
	if (!cur_ok(c))
		return -EBADMSG;
	m->body_off = c->off;
	return 0;
}

static const char *rpc_auth_name(uint32_t f)
{
	switch (f) {
	case AUTH_NONE: return "AUTH_NONE";
	case AUTH_SYS: return "AUTH_SYS";
	case AUTH_SHORT: return "AUTH_SHORT";
	case AUTH_DH: return "AUTH_DH";
	case RPCSEC_GSS: return "RPCSEC_GSS";
	case AUTH_TLS: return "AUTH_TLS";
	default: return "AUTH_?";
	}
}

const char *rpc_accept_name(uint32_t s)
{
	static const char *const n[] = { "SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH",
					 "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR" };
	return s < 6 ? n[s] : "ACCEPT_?";
}

const char *rpc_auth_stat_name(uint32_t s)
{
	static const char *const n[] = { "AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED",
					 "AUTH_BADVERF", "AUTH_REJECTEDVERF", "AUTH_TOOWEAK",
					 "AUTH_INVALIDRESP", "AUTH_FAILED", "AUTH_KERB_GENERIC",
					 "AUTH_TIMEEXPIRE", "AUTH_TKT_FILE", "AUTH_DECODE",
					 "AUTH_NET_ADDR", "RPCSEC_GSS_CREDPROBLEM",
					 "RPCSEC_GSS_CTXPROBLEM" };
	return s < 15 ? n[s] : "AUTH_?";
}

static const char *rpc_gss_proc_name(uint32_t p)
{
	static const char *const n[] = { "DATA", "INIT", "CONTINUE_INIT", "DESTROY" };
	return p < 4 ? n[p] : "GSS_?";
}

static const char *rpc_gss_svc_name(uint32_t s)
{
	static const char *const n[] = { "?", "none", "integrity", "privacy" };
	return s < 4 ? n[s] : "?";
}
