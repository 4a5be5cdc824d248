/* MOUNT version 3 (RFC 1813 appendix I) over TCP, for the NFSv3 root
 * handle, and the portmapper GETPORT that finds mountd. */
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dissect/extract.h"
#include "src/base/log.h"

#define IPPROTO_TCP_ 6u

/* A portmapper GETPORT reply (RPC header included): the port, -EPROTO (an
 * RPC error) or -ENOENT (truncated, 0: not registered, or not a port). */
int pmap_decode_getport(const uint8_t *msg, size_t len)
{
	struct rpc_res res;
	size_t off;

	if (rpc_decode_reply_hdr(msg, len, &res, &off) < 0 || res.rpc_status != 0)
		return -EPROTO;
	struct cursor c = cur_make(msg + off, len - off);
	uint32_t port = cur_be32(&c, "port");
	if (!cur_ok(&c) || port == 0 || port > 65535)
		return -ENOENT;
	return (int)port;
}

/* A MNT v3 reply (RPC header included): 0 and the root handle, or a
 * negative errno with the reason in err ("MOUNT host:path: ..."). */
int mount3_decode_mnt(const uint8_t *msg, size_t len, const char *host, const char *path,
		      struct nfs_fh *root, char *err, size_t errlen)
{
	struct rpc_res res;
	size_t off;
	if (rpc_decode_reply_hdr(msg, len, &res, &off) < 0 || res.rpc_status != 0) {
		snprintf(err, errlen, "MOUNT %s:%s: RPC error %u", host, path, res.rpc_status);
		return -EPROTO;
	}
	struct cursor c = cur_make(msg + off, len - off);
	uint32_t st = cur_be32(&c, "mountstat3");
	if (!cur_ok(&c)) {
		snprintf(err, errlen, "MOUNT %s:%s: truncated reply", host, path);
		return -EBADMSG;
	}
	if (st != 0) {
		snprintf(err, errlen, "MOUNT %s:%s: mountstat3 %u", host, path, st);
		return st == 13 ? -EACCES : st == 2 ? -ENOENT : -EPERM;
	}
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(&c, NFS3_FHSIZE_MAX, &n, "fhandle3");
	if (!p) {
		snprintf(err, errlen, "MOUNT %s:%s: bad file handle", host, path);
		return -EBADMSG;
	}
	root->len = n;
	memcpy(root->data, p, n);
	return 0;
}

static int sync_call(const char *host, uint16_t port, struct nfs_msg *m, uint8_t *rbuf,
		     size_t rcap, size_t *rlen)
{
	/* the callers name what was asked of whom: one line for a failure */
	struct xprt_opts o = { .host = host, .port = port, .slots = 1, .max_bulk = 4096,
			       .reply_chunk_max = 8192, .reconnect_ms = 1, .quiet_connect = true };
	struct xprt *x;
	int ret = xprt_tcp_open(&x, &o);
	if (ret < 0)
		return ret;
	ret = xprt_call_sync(x, &m->req, rbuf, rcap, rlen, 10000);
	xprt_destroy(x);
	return ret;
}

/* Portmapper GETPORT over TCP (port 111).  Returns the port or -errno. */
static int pmap_getport(const char *host, uint32_t prog, uint32_t vers, uint32_t proto)
{
	struct nfs_msg m;
	uint8_t args[16], rbuf[256];
	size_t rlen;

	xenc_put_u32_at(args, prog);
	xenc_put_u32_at(args + 4, vers);
	xenc_put_u32_at(args + 8, proto);
	xenc_put_u32_at(args + 12, 0);
	int ret = rpc_enc_raw(&m, NULL, PROG_PORTMAP, 2, PMAPPROC_GETPORT, args, sizeof(args));
	if (ret < 0)
		return ret;
	if ((ret = sync_call(host, 111, &m, rbuf, sizeof(rbuf), &rlen)) < 0)
		return ret;
	return pmap_decode_getport(rbuf, rlen);
}

int mount3_mnt(const char *host, const char *path, const struct rpc_cred *cred,
	       struct nfs_fh *root, char *err, size_t errlen)
{
	int port = pmap_getport(host, PROG_MOUNT, 3, IPPROTO_TCP_);
	if (port < 0) {
		snprintf(err, errlen, "portmapper on %s port 111: no MOUNT v3 over TCP (%s)", host,
			 strerror(-port));
		return port;
	}
	struct nfs_msg m;
	uint8_t args[1100], rbuf[1024];
	struct xenc e;
	xenc_init(&e, args, sizeof(args));
	xenc_string(&e, path);
	if (!xenc_ok(&e)) {
		snprintf(err, errlen, "mount path too long");
		return -ENAMETOOLONG;
	}
	int ret = rpc_enc_raw(&m, cred, PROG_MOUNT, 3, MOUNT3P_MNT, args, e.len);
	size_t rlen;
	if (ret == 0)
		ret = sync_call(host, (uint16_t)port, &m, rbuf, sizeof(rbuf), &rlen);
	if (ret < 0) {
		snprintf(err, errlen, "MOUNT %s:%s (mountd port %d): %s", host, path, port, strerror(-ret));
		return ret;
	}
	if ((ret = mount3_decode_mnt(rbuf, rlen, host, path, root, err, errlen)) < 0)
		return ret;
	log_info("mount: %s:%s: root handle %u bytes (mountd port %d)", host, path, root->len, port);
	return 0;
}
