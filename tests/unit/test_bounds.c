/* Every XDR and transport length bound of dissect/ at its edge (issue 32,
 * item 2): for each bound site the smallest message that reaches it, with
 * the length at exactly the maximum (decodes, the length accepted) and at
 * the maximum + 1 (INVALID, the diagnostic naming the field, pointing at
 * the length word).  tests/unit/bounds_list.sh fails when a bound site in
 * dissect/ has no row here, so a new bound cannot come without its edge.
 *
 * A row's message: PRE, the bounded item, POST, written in a small word
 * language (see put_fmt) so that one line per site stays readable. */
#include <stdlib.h>

/* rows leave the fields they do not need out */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "check.h"
#include "xdrbuild.h"

#include "dissect/nfs_xdr_skip.h"
#include "dissect/pnfs_rdma.h"
#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma.h"
#include "dissect/rpcrdma2.h"
#include "dissect/xdr.h"

/* Items longer than this are not built: at the maximum the length must be
 * accepted (the decode then runs out of bytes reading the body, TRUNCATED
 * at the same field), at the maximum + 1 refused before the body. */
#define BUILD_LIMIT (8u << 20)

enum run { R_CALL, R_REPLY, R_RPC, R_RDMA1, R_RDMA2, R_FATTR4, R_BITMAP4, R_OPEN, R_PNFS_DEV, R_PRIM };
/* the bounded item: opaque<n> of 'a' bytes; array: count n then n times
 * REP; list: n times REP with no count word */
enum item { I_OPAQUE, I_ARRAY, I_LIST };

struct bcase {
	const char *site;      /* "file.c:diagnostic" as bounds_list.sh finds it */
	enum run run;
	const struct prog_info *prog;
	uint32_t vers, proc;
	const char *pre, *post;
	uint32_t max;
	enum item item;
	const char *rep;       /* I_ARRAY, I_LIST: one element */
	const char *diag;      /* expected err_what at max + 1 (NULL: site's) */
	bool off_after;        /* the code points past the count, not at it */
	enum { KEEP_NONE, KEEP_NAME, KEEP_FH } keep; /* where the value must be kept */
	bool off_any;          /* the refusal is found elsewhere (a body, a shadowing bound) */
};

struct buf {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct buf *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 4096;
		o->b = realloc(o->b, o->cap);
		if (!o->b)
			abort();
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put_xb(struct buf *o, const struct xb *x) { put(o, x->b, x->n); }

/* Words: a number is a u32 (decimal or 0x), "h" a zero u64, "sid" a zero
 * stateid4, "fh" a 32-byte filehandle, "s:TEXT" a string, "z:N" N zero
 * bytes, "v:N" opaque<N> of zero bytes, "@" an RPC credential's length
 * (patched to its body: all that follows it but the 8-byte verifier). */
static size_t patch_at;  /* where "@" put a length to patch, or 0 */

static void put_fmt(struct buf *o, const char *fmt)
{
	struct xb x;
	char tok[128];
	const char *p = fmt;

	while (p && *p) {
		size_t k = strcspn(p, " ");
		if (k >= sizeof(tok))
			abort();
		memcpy(tok, p, k);
		tok[k] = 0;
		p += k + (p[k] == ' ');
		if (!k)
			continue;
		x.n = 0;
		if (!strcmp(tok, "h"))
			xb_u64(&x, 0);
		else if (!strcmp(tok, "sid"))
			memset(x.b, 0, 16), x.n = 16;
		else if (!strcmp(tok, "fh"))
			xb_fh(&x, 7);
		else if (!strncmp(tok, "s:", 2))
			xb_str(&x, tok + 2);
		else if (!strncmp(tok, "z:", 2))
			x.n = strtoul(tok + 2, NULL, 0), memset(x.b, 0, x.n);
		else if (!strcmp(tok, "@"))
			patch_at = o->n, xb_u32(&x, 0);
		else if (!strncmp(tok, "v:", 2)) {
			uint32_t n = (uint32_t)strtoul(tok + 2, NULL, 0);
			uint8_t z[1024] = { 0 };
			xb_opaque(&x, z, n);
		} else
			xb_u32(&x, (uint32_t)strtoul(tok, NULL, 0));
		put_xb(o, &x);
	}
}

/* PRE, the item with length n, POST; *at = where the item starts. */
static void build(const struct bcase *k, uint32_t n, struct buf *o, size_t *at, bool *whole)
{
	struct xb w;

	o->n = 0;
	patch_at = 0;
	put_fmt(o, k->pre);
	*at = o->n;
	*whole = true;
	if (k->item != I_LIST) {
		w.n = 0;
		xb_u32(&w, n);
		put_xb(o, &w);
	}
	if (k->item == I_OPAQUE) {
		if (n > BUILD_LIMIT) {
			*whole = false;
			return;
		}
		size_t pad = (4 - (n & 3)) & 3;
		for (uint32_t i = 0; i < n + pad; i++) {
			uint8_t c = i < n ? 'a' : 0;
			put(o, &c, 1);
		}
	} else {
		struct buf one = { 0 };
		put_fmt(&one, k->rep);
		free(one.b);
		if ((uint64_t)n * one.n > BUILD_LIMIT) {
			*whole = false;
			return;
		}
		for (uint32_t i = 0; i < n; i++)
			put_fmt(o, k->rep);
	}
	put_fmt(o, k->post);
	if (patch_at) {
		uint32_t body = (uint32_t)(o->n - patch_at - 4 - 8);
		for (int i = 0; i < 4; i++)
			o->b[patch_at + i] = (uint8_t)(body >> (24 - 8 * i));
	}
}

static const char *site_what(const char *site)
{
	const char *c = strchr(site, ':');
	return c ? c + 1 : site;
}

struct result {
	enum cur_err err;
	size_t err_off, off;
	const char *what;
	struct nfsrdma_record rec;
};

static void prim(const struct bcase *k, struct cursor *c);

static void run(const struct bcase *k, const struct buf *o, struct result *r)
{
	static struct xdr_ddp ddp;
	struct cursor c = cur_make(o->b, o->n);

	memset(r, 0, sizeof(*r));
	memset(&ddp, 0, sizeof(ddp));
	struct pdec d = { .c = c, .rec = &r->rec, .ddp = &ddp, .reply = k->run == R_REPLY, .vers = k->vers,
			  .proc = k->proc, .layer = k->prog ? k->prog->layer : "test" };
	switch (k->run) {
	case R_CALL: k->prog->decode_call(&d); c = d.c; break;
	case R_REPLY: k->prog->decode_reply(&d); c = d.c; break;
	case R_RPC: { struct rpc_msg m; rpc_decode(&m, &c, NULL); break; }
	case R_RDMA1: { static struct rpcrdma_hdr h; rpcrdma_decode(&h, &c); break; }
	case R_RDMA2: { static struct rpcrdma2_hdr h; rpcrdma2_decode(&h, &c, RPCRDMA2_DRAFT07); break; }
	case R_FATTR4: nfs4_skip_fattr4(&c); break;
	case R_BITMAP4: nfs4_skip_bitmap4(&c, NULL, NULL); break;
	case R_OPEN: { struct nfs4_open_args a; nfs4_walk_open_args(&c, &a); break; }
	case R_PNFS_DEV:
		pnfs_rdma_device_addr(&d, o->b, o->n);
		c = d.c;
		if (cur_ok(&c))
			c.off = o->n;
		break;
	case R_PRIM: prim(k, &c); break;
	}
	r->err = c.err;
	r->err_off = c.err_off;
	r->off = c.off;
	r->what = c.err_what;
}

static void check_case(const struct bcase *k)
{
	struct buf o = { 0 };
	struct result r;
	size_t at;
	bool whole;
	const char *diag = k->diag ? k->diag : site_what(k->site);

	/* exactly the maximum: accepted */
	build(k, k->max, &o, &at, &whole);
	run(k, &o, &r);
	if (whole) {
		CHECK(r.err == CUR_OK && r.off == o.n, "%s: length %u (the maximum) must decode, got %s at %zu (%s), %zu of %zu bytes",
		      k->site, k->max, cur_err_name(r.err), r.err_off, r.what ? r.what : "", r.off, o.n);
		if (k->keep == KEEP_NAME) {
			size_t want = k->max < REC_NAME_MAX - 1 ? k->max : REC_NAME_MAX - 1;
			CHECK(strlen(r.rec.name) == want && strspn(r.rec.name, "a") == want,
			      "%s: the name kept is \"%s\", expected %zu 'a'", k->site, r.rec.name, want);
		} else if (k->keep == KEEP_FH) {
			CHECK(r.rec.fh_hash == xdr_fh_hash(o.b + at + 4, k->max) && r.rec.fh_hash,
			      "%s: the filehandle kept hashes 0x%llx", k->site, (unsigned long long)r.rec.fh_hash);
		}
	} else {
		/* an array's first element names its own field */
		CHECK(r.err == CUR_TRUNCATED && r.err_off == at + 4 &&
		      (k->item != I_OPAQUE || (r.what && !strcmp(r.what, diag))),
		      "%s: length %u (the maximum) must be taken and its body read, got %s at %zu (%s)",
		      k->site, k->max, cur_err_name(r.err), r.err_off, r.what ? r.what : "");
	}
	/* the maximum + 1: refused, naming the field, at the length word */
	build(k, k->max + 1, &o, &at, &whole);
	run(k, &o, &r);
	size_t want_off = at + (k->off_after ? 4 : 0);
	if (k->item == I_LIST || k->off_any)
		want_off = (size_t)-1;
	CHECK(r.err == CUR_INVALID && r.what && !strcmp(r.what, diag) &&
	      (want_off == (size_t)-1 || r.err_off == want_off),
	      "%s: length %u (maximum + 1) must be INVALID \"%s\" at %zu, got %s at %zu (%s)", k->site,
	      k->max + 1, diag, want_off, cur_err_name(r.err), r.err_off, r.what ? r.what : "");
	free(o.b);
}

#define NFS4C(op) "0 0 1 " #op           /* COMPOUND: tag "", minor 0, one op */
#define NFS4R(op) "0 0 1 " #op " 0"      /* its reply: NFS4_OK, tag "", one result, OK */
#define CBC(op) "0 1 0 1 " #op           /* CB_COMPOUND: tag "", minor 1, ident, one op */
#define OPQ I_OPAQUE, NULL
#define ARR(rep) I_ARRAY, rep
#define LST(rep) I_LIST, rep
#define CALL(p, v, n) R_CALL, &prog_##p, v, n
#define REPLY(p, v, n) R_REPLY, &prog_##p, v, n
#define RUN(r) r, NULL, 0, 0
#define BIG (1u << 20)

static const struct bcase cases[] = {
	/* the primitives themselves, at a small maximum (9: not a multiple of 4) */
	{ "extract.h:cur_xdr_opaque", RUN(R_PRIM), "", "", 9, OPQ, "prim" },
	{ "xdr.h:xdr_skip_opaque", RUN(R_PRIM), "", "", 9, OPQ, "prim" },
	{ "xdr.c:xdr_string", RUN(R_PRIM), "", "", 9, OPQ, "prim" },
	{ "xdr.c:xdr_fh", RUN(R_PRIM), "", "", 9, OPQ, "prim" },
	{ "xdr.c:xdr_ddp_opaque", RUN(R_PRIM), "", "", 9, OPQ, "prim" },
	{ "xdr.h:xdr_skip_array", RUN(R_PRIM), "", "", 9, ARR("0"), "prim" },

	/* MOUNT, NFSACL, NLM, NSM */
	{ "mount.c:mount dirpath", CALL(mount, 3, 1), "", "", 1024, OPQ, .keep = KEEP_NAME },
	{ "mount.c:mount fhandle3", REPLY(mount, 3, 1), "0", "", 64, OPQ, .keep = KEEP_FH },
	{ "nfsacl.c:nfsacl fh", CALL(nfsacl, 3, 1), "", "0", 64, OPQ, .keep = KEEP_FH },
	{ "nlm.c:nlm caller_name", CALL(nlm, 4, 2), "v:0 0 0", "v:8 v:0 0 h h", 1024, OPQ, .keep = KEEP_NAME },
	{ "nlm.c:nlm fh", CALL(nlm, 4, 2), "v:0 0 0 s:c", "v:0 0 h h", 1024, OPQ, .keep = KEEP_FH },
	{ "nlm.c:nlm oh", CALL(nlm, 4, 2), "v:0 0 0 s:c v:8", "0 h h", 1024, OPQ },
	{ "nlm.c:nlm cookie", CALL(nlm, 4, 1), "", "0 s:c v:8 v:0 0 h h", 1024, OPQ },
	{ "nlm.c:nlm cookie", CALL(nlm, 4, 2), "", "0 0 s:c v:8 v:0 0 h h", 1024, OPQ },
	{ "nlm.c:nlm cookie", CALL(nlm, 4, 4), "", "s:c v:8 v:0 0 h h", 1024, OPQ },
	{ "nlm.c:nlm cookie", REPLY(nlm, 4, 1), "", "0", 1024, OPQ },
	{ "nsm.c:nsm mon_name", CALL(nsm, 1, 1), "", "", 1024, OPQ, .keep = KEEP_NAME },

	/* NFSv3 */
	{ "nfs3.c:what", CALL(nfs3, 3, 1), "", "", 64, OPQ, "object", .keep = KEEP_FH },
	{ "nfs3.c:nfs3 name", CALL(nfs3, 3, 3), "fh", "", 1024, OPQ, .keep = KEEP_NAME },
	{ "nfs3.c:write data", CALL(nfs3, 3, 7), "fh h 0 0", "", 1u << 30, OPQ },
	{ "nfs3.c:symlink path", CALL(nfs3, 3, 10), "fh s:l 0 0 0 0 0 0", "", 4096, OPQ },
	{ "nfs3.c:read data", REPLY(nfs3, 3, 6), "0 0 0 0", "", 1u << 30, OPQ },
	{ "nfs3.c:readlink path", REPLY(nfs3, 3, 5), "0 0", "", 4096, OPQ },

	/* NFSv4 COMPOUND arguments */
	{ "nfs4.c:compound tag", CALL(nfs4, 4, 1), "", "0 0", 1024, OPQ },
	{ "nfs4.c:what", CALL(nfs4, 4, 1), "0 0", "", 4096, ARR("10"), "argarray count" },
	{ "nfs4.c:what", REPLY(nfs4, 4, 1), "0 0", "", 4096, ARR("22 0"), "resarray count" },
	{ "nfs4.c:linkdata", CALL(nfs4, 4, 1), NFS4C(6) " 5", "s:n 0 v:0", 4096, OPQ },
	{ "nfs4.c:open_owner owner", CALL(nfs4, 4, 1), NFS4C(18) " 0 0 0 h", "0 0 s:f", 1024, OPQ },
	{ "nfs4.c:nfs_fh4", CALL(nfs4, 4, 1), NFS4C(22), "", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4.c:nfs_client_id4 id", CALL(nfs4, 4, 1), NFS4C(35) " h", "0 v:0 v:0 0", 1024, OPQ },
	{ "nfs4.c:write data", CALL(nfs4, 4, 1), NFS4C(38) " sid h 0", "", BIG * 64, OPQ },
	{ "nfs4.c:co_ownerid", CALL(nfs4, 4, 1), NFS4C(42) " h", "0 0 0", 1024, OPQ },
	{ "nfs4.c:lrf_body", CALL(nfs4, 4, 1), NFS4C(51) " 0 0 0 1 h h sid", "", BIG, OPQ },
	{ "nfs4.c:ssv", CALL(nfs4, 4, 1), NFS4C(54), "v:0", 1024, OPQ },
	{ "nfs4.c:digest", CALL(nfs4, 4, 1), NFS4C(54) " v:0", "", 1024, OPQ },
	{ "nfs4.c:stateids", CALL(nfs4, 4, 1), NFS4C(55), "", 4096, ARR("sid") },
	{ "nfs4.c:src_servers count", CALL(nfs4, 4, 1), NFS4C(60) " sid sid h h h 0 0", "", 64, ARR("1 v:0") },
	{ "nfs4.c:device_error4", CALL(nfs4, 4, 1), NFS4C(64) " h h sid", "", 4096, ARR("z:24") },
	{ "nfs4.c:adb_pattern", CALL(nfs4, 4, 1), NFS4C(70) " sid 0 h z:36", "", BIG, OPQ },
	{ "nfs4.c:xattrvalue4", CALL(nfs4, 4, 1), NFS4C(73) " 0 s:x", "", BIG, OPQ },
	{ "nfs4.c:compound tag", REPLY(nfs4, 4, 1), "0", "0", 1024, OPQ },

	/* NFSv4 shared pieces (nfs4_xdr.c) */
	{ "nfs4_xdr.c:component4", CALL(nfs4, 4, 1), NFS4C(15), "", 4096, OPQ, .keep = KEEP_NAME },
	{ "nfs4_xdr.c:component4", CALL(nfs4, 4, 1), "0 2 1 72", "", 4096, OPQ },   /* GETXATTR: nfs4_component, not kept */
	{ "nfs4_xdr.c:lock_owner owner", CALL(nfs4, 4, 1), NFS4C(39) " h", "", 1024, OPQ },
	{ "nfs4_xdr.c:nfs4_netaddr4 netid", CALL(nfs4, 4, 1), NFS4C(35) " h v:0 0", "v:0 0", 1024, OPQ },
	{ "nfs4_xdr.c:nfs4_netaddr4 addr", CALL(nfs4, 4, 1), NFS4C(35) " h v:0 0 v:0", "0", 1024, OPQ },
	{ "nfs4_xdr.c:nfs4_netloc4 name", CALL(nfs4, 4, 1), NFS4C(61) " sid 1", "", 1024, OPQ },
	{ "nfs4_xdr.c:nfsace4 who", REPLY(nfs4, 4, 1), NFS4R(18) " sid z:20 0 0 1 sid 0 z:12", "", 1024, OPQ },
	{ "nfs4_xdr.c:callback_sec_parms count", CALL(nfs4, 4, 1), NFS4C(40) " 0", "", 64, ARR("0") },
	{ "nfs4_xdr.c:machinename", CALL(nfs4, 4, 1), NFS4C(40) " 0 1 1 0", "0 0 0", 255, OPQ },
	{ "nfs4_xdr.c:gids", CALL(nfs4, 4, 1), NFS4C(40) " 0 1 1 0 v:0 0 0", "", 16, ARR("0") },
	{ "nfs4_xdr.c:gcbp_handle_from_server", CALL(nfs4, 4, 1), NFS4C(40) " 0 1 6 0", "v:0", 1024, OPQ },
	{ "nfs4_xdr.c:gcbp_handle_from_client", CALL(nfs4, 4, 1), NFS4C(40) " 0 1 6 0 v:0", "", 1024, OPQ },
	{ "nfs4_xdr.c:ca_rdma_ird", CALL(nfs4, 4, 1), NFS4C(43) " z:16 z:24", "z:24 0 0 0", 1, ARR("0") },
	{ "nfs4_xdr.c:sec_oid4 count", CALL(nfs4, 4, 1), NFS4C(42) " h v:0 0 2 0 0", "0 h 0", 64, ARR("v:0") },
	{ "nfs4_xdr.c:sec_oid4", CALL(nfs4, 4, 1), NFS4C(42) " h v:0 0 2 0 0 1", "0 h 0", 1024, OPQ },
	{ "nfs4_xdr.c:nfs_impl_id4 count", CALL(nfs4, 4, 1), NFS4C(42) " h v:0 0 0", "", 1, ARR("v:0 v:0 z:12") },
	{ "nfs4_xdr.c:nii_domain", CALL(nfs4, 4, 1), NFS4C(42) " h v:0 0 0 1", "v:0 z:12", 1024, OPQ },
	{ "nfs4_xdr.c:nii_name", CALL(nfs4, 4, 1), NFS4C(42) " h v:0 0 0 1 v:0", "z:12", 1024, OPQ },
	{ "nfs4_xdr.c:wr_callback_id", REPLY(nfs4, 4, 1), NFS4R(60), "z:20 h", 1, ARR("z:16") },
	{ "nfs4_xdr.c:nfs4_layoutupdate4 body", CALL(nfs4, 4, 1), NFS4C(49) " h h 0 sid 0 0 1", "", BIG, OPQ },

	/* bounded walks shared with the clients (nfs_xdr_skip.c) */
	{ "nfs_xdr_skip.c:bitmap4 length", RUN(R_BITMAP4), "", "", 64, ARR("0") },
	{ "nfs_xdr_skip.c:fattr4 attrlist", RUN(R_FATTR4), "0", "", 1u << 20, OPQ },
	{ "nfs_xdr_skip.c:open_owner owner", RUN(R_OPEN), "0 0 0 h", "0 0 s:f", 1024, OPQ },
	{ "nfs_xdr_skip.c:component4", RUN(R_OPEN), "0 0 0 h v:0 0 0", "", 4096, OPQ },
	{ "nfs_xdr_skip.c:component4", RUN(R_OPEN), "0 0 0 h v:0 0 2 sid", "", 4096, OPQ },

	/* NFSv4 COMPOUND results */
	{ "nfs4_res.c:nfs_fh4", REPLY(nfs4, 4, 1), NFS4R(10), "", 128, OPQ },
	{ "nfs4_res.c:read data", REPLY(nfs4, 4, 1), NFS4R(25) " 0", "", BIG * 64, OPQ },
	{ "nfs4_res.c:linktext", REPLY(nfs4, 4, 1), NFS4R(27), "", 4096, OPQ },
	{ "nfs4_res.c:secinfo4 count", REPLY(nfs4, 4, 1), NFS4R(33), "", 64, ARR("1") },
	{ "nfs4_res.c:oid", REPLY(nfs4, 4, 1), NFS4R(33) " 1 6", "h", 1024, OPQ },
	{ "nfs4_res.c:spi_handles count", REPLY(nfs4, 4, 1), NFS4R(42) " z:16 2 0 0 z:16", "h v:0 v:0 0", 64, ARR("v:0") },
	{ "nfs4_res.c:spi_handle", REPLY(nfs4, 4, 1), NFS4R(42) " z:16 2 0 0 z:16 1", "h v:0 v:0 0", 1024, OPQ },
	{ "nfs4_res.c:so_major_id", REPLY(nfs4, 4, 1), NFS4R(42) " z:16 0 h", "v:0 0", 1024, OPQ },
	{ "nfs4_res.c:server_scope", REPLY(nfs4, 4, 1), NFS4R(42) " z:16 0 h v:0", "0", 1024, OPQ },
	{ "nfs4_res.c:da_addr_body", REPLY(nfs4, 4, 1), NFS4R(47) " 1", "0", BIG, OPQ },
	{ "nfs4_res.c:deviceid list", REPLY(nfs4, 4, 1), NFS4R(48) " z:16", "0", BIG, ARR("z:16") },
	{ "nfs4_res.c:layouts count", REPLY(nfs4, 4, 1), NFS4R(50) " 0 sid", "", 1024, ARR("z:20 1 v:0") },
	{ "nfs4_res.c:loc_body", REPLY(nfs4, 4, 1), NFS4R(50) " 0 sid 1 z:20 1", "", BIG, OPQ },
	{ "nfs4_res.c:digest", REPLY(nfs4, 4, 1), NFS4R(54), "", 1024, OPQ },
	{ "nfs4_res.c:status codes", REPLY(nfs4, 4, 1), NFS4R(55), "", 4096, ARR("0") },
	{ "nfs4_res.c:source_server count", REPLY(nfs4, 4, 1), NFS4R(61) " z:12 sid", "", 64, ARR("1 v:0") },
	{ "nfs4_res.c:complete", REPLY(nfs4, 4, 1), NFS4R(67) " h", "", 1, ARR("0") },
	{ "nfs4_res.c:contents count", REPLY(nfs4, 4, 1), NFS4R(68) " 0", "", BIG, ARR("1 h h") },
	{ "nfs4_res.c:data", REPLY(nfs4, 4, 1), NFS4R(68) " 0 1 0 h", "", BIG * 64, OPQ },
	{ "nfs4_res.c:xattrvalue4", REPLY(nfs4, 4, 1), NFS4R(72), "", BIG, OPQ },
	{ "nfs4_res.c:names count", REPLY(nfs4, 4, 1), NFS4R(74) " h", "0", BIG, ARR("v:0") },

	/* NFSv4 callbacks */
	{ "nfs4_cb.c:cb_compound tag", CALL(nfs_cb, 1, 1), "", "1 0 0", 1024, OPQ },
	{ "nfs4_cb.c:cb_compound tag", REPLY(nfs_cb, 1, 1), "0", "0", 1024, OPQ },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(3), "0", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(4) " sid 0", "", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(5) " h 0 1", "h h sid", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(6) " sid", "0", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(7), "0", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(13), "h v:0", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:fh", CALL(nfs_cb, 1, 1), CBC(15), "sid 1 h", 128, OPQ, .keep = KEEP_FH },
	{ "nfs4_cb.c:changes count", CALL(nfs_cb, 1, 1), CBC(14), "", 1024, ARR("0 v:0") },
	{ "nfs4_cb.c:notify_vals", CALL(nfs_cb, 1, 1), CBC(14) " 1 0", "", BIG, OPQ },
	{ "nfs4_cb.c:referring_call_lists count", CALL(nfs_cb, 1, 1), CBC(11) " z:16 0 0 0 0", "", 1024, ARR("z:16 0") },
	{ "nfs4_cb.c:referring_calls", CALL(nfs_cb, 1, 1), CBC(11) " z:16 0 0 0 0 1 z:16", "", 1024, ARR("h") },

	/* rpcbind */
	{ "rpcbind.c:rpcb r_netid", CALL(portmap, 3, 3), "100003 3", "v:0 v:0", 1024, OPQ },
	{ "rpcbind.c:rpcb r_addr", CALL(portmap, 3, 3), "100003 3 v:0", "v:0", 1024, OPQ },
	{ "rpcbind.c:rpcb r_owner", CALL(portmap, 3, 3), "100003 3 v:0 v:0", "", 1024, OPQ },
	{ "rpcbind.c:rpcb rmtcall args", CALL(portmap, 3, 5), "100003 3 0", "", 65536, OPQ },
	{ "rpcbind.c:rpcb uaddr", CALL(portmap, 3, 7), "", "", 1024, OPQ, .keep = KEEP_NAME },
	{ "rpcbind.c:rpcb netbuf buf", CALL(portmap, 3, 8), "0", "", 1024, OPQ },
	{ "rpcbind.c:rpcb_entry r_maddr", REPLY(portmap, 4, 11), "1", "v:0 0 v:0 v:0 0", 1024, OPQ },
	{ "rpcbind.c:rpcb_entry r_nc_netid", REPLY(portmap, 4, 11), "1 v:0", "0 v:0 v:0 0", 1024, OPQ },
	{ "rpcbind.c:rpcb_entry r_nc_protofmly", REPLY(portmap, 4, 11), "1 v:0 v:0 0", "v:0 0", 1024, OPQ },
	{ "rpcbind.c:rpcb_entry r_nc_proto", REPLY(portmap, 4, 11), "1 v:0 v:0 0 v:0", "0", 1024, OPQ },
	{ "rpcbind.c:rpcbs_addrlist netid", REPLY(portmap, 4, 12), "z:60 1 z:16", "0 0 z:60 0 0 z:60 0 0", 1024, OPQ },
	{ "rpcbind.c:rpcbs_rmtcalllist netid", REPLY(portmap, 4, 12), "z:60 0 1 z:24", "0 z:60 0 0 z:60 0 0", 1024, OPQ },
	{ "rpcbind.c:what", REPLY(portmap, 3, 3), "", "", 1024, OPQ, "rpcb uaddr" },
	{ "rpcbind.c:rpcb rmtcall results", REPLY(portmap, 3, 5), "v:0", "", 65536, OPQ },
	{ "rpcbind.c:rpcb netbuf buf", REPLY(portmap, 3, 7), "0", "", 1024, OPQ },
	{ "rpcbind.c:rpcb uaddr", REPLY(portmap, 3, 8), "", "", 1024, OPQ },
	{ "rpcbind.c:rpcb rmtcall results", REPLY(portmap, 4, 10), "v:0", "", 65536, OPQ },

	/* RPC header (the credential's length word is patched to its body) */
	{ "rpc.c:rpc cred length (> 400)", RUN(R_RPC), "1 0 2 100003 3 0 0", "0 0", 400, OPQ },
	{ "rpc.c:what", RUN(R_RPC), "1 0 2 100003 3 0 0 0 0", "", 400, OPQ, "rpc verifier" },
	{ "rpc.c:what", RUN(R_RPC), "1 1 0 0", "0", 400, OPQ, "rpc verifier" },
	{ "rpc.c:auth_sys machinename", RUN(R_RPC), "1 0 2 100003 3 0 1 @ 0", "0 0 0 0 0", 255, OPQ },
	/* RPCSEC_GSS's handle is bounded by RPC_MAX_AUTH (400) too, but it sits
	 * in a credential of at most 400 bytes after 16 of its own and its
	 * length word: 380 is the longest that can come, and one more is
	 * refused as the credential's length. */
	{ "rpc.c:rpcsec_gss handle", RUN(R_RPC), "1 0 2 100003 3 0 6 @ 1 0 0 0", "0 0", 380, OPQ,
	  "rpc cred length (> 400)", .off_any = true },
	{ "rpc.c:auth_sys gids count (> 16)", RUN(R_RPC), "1 0 2 100003 3 0 1 @ 0 v:0 0 0", "0 0", 16, ARR("0"),
	  .off_after = true },

	/* RPC-over-RDMA v1 */
	{ "rpcrdma.c:read list too long", RUN(R_RDMA1), "1 1 1 0", "0 0 0", 4096, LST("1 0 0 0 h") },
	{ "rpcrdma.c:what", RUN(R_RDMA1), "1 1 1 0 0 1", "0 0", 4096, ARR("0 0 h"), "write chunk segment count" },
	{ "rpcrdma.c:write list too long", RUN(R_RDMA1), "1 1 1 0 0", "0 0", 4096, LST("1 0") },
	{ "rpcrdma.c:what", RUN(R_RDMA1), "1 1 1 0 0 0 1", "", 4096, ARR("0 0 h"), "reply chunk segment count" },

	/* RPC-over-RDMA v2 (draft -07: CALL_INLINE, CONNPROP) */
	{ "rpcrdma2.c:v2 read list too long", RUN(R_RDMA2), "1 2 1 10 0", "0 0 0", 4096, LST("1 0 0 0 h") },
	{ "rpcrdma2.c:v2 write chunk segments", RUN(R_RDMA2), "1 2 1 10 0 0 1", "0 0", 4096, ARR("0 0 h"),
	  .off_after = true },
	{ "rpcrdma2.c:v2 write list too long", RUN(R_RDMA2), "1 2 1 10 0 0", "0 0", 4096, LST("1 0") },
	{ "rpcrdma2.c:v2 reply chunk segments", RUN(R_RDMA2), "1 2 1 10 0 0 0 1", "", 4096, ARR("0 0 h"),
	  .off_after = true },
	{ "rpcrdma2.c:v2 connprop count", RUN(R_RDMA2), "1 2 1 7", "", 256, ARR("0 v:0"), .off_after = true },
	{ "rpcrdma2.c:v2 property value", RUN(R_RDMA2), "1 2 1 7 1 0", "", 65536, OPQ },

	/* the pNFS RDMA layout's device address */
	{ "pnfs_rdma.c:pnfs_rdma_device_addr4 netid", RUN(R_PNFS_DEV), "", "v:0", 1024, OPQ, .off_any = true },
	{ "pnfs_rdma.c:pnfs_rdma_device_addr4 addr", RUN(R_PNFS_DEV), "v:0", "", 1024, OPQ, .off_any = true },
};

/* The primitives, called directly: the value at the maximum kept whole. */
static void prim(const struct bcase *k, struct cursor *c)
{
	struct pdec d = { .c = *c, .layer = "test" };
	const char *f = site_what(k->site);
	uint32_t n = 0;
	bool moved = true;
	char out[64];

	if (!strcmp(f, "cur_xdr_opaque")) {
		const uint8_t *p = cur_xdr_opaque(&d.c, k->max, &n, "prim");
		if (cur_ok(&d.c))
			CHECK(p && n == k->max && p[0] == 'a' && p[n - 1] == 'a', "cur_xdr_opaque kept %u bytes", n);
	} else if (!strcmp(f, "xdr_skip_opaque")) {
		xdr_skip_opaque(&d, k->max, "prim");
	} else if (!strcmp(f, "xdr_string")) {
		bool ok = xdr_string(&d, k->max, out, sizeof(out), "prim");
		if (cur_ok(&d.c))
			CHECK(ok && strlen(out) == k->max && strspn(out, "a") == k->max, "xdr_string kept \"%s\"", out);
	} else if (!strcmp(f, "xdr_fh")) {
		uint64_t h = xdr_fh(&d, k->max, "prim");
		if (cur_ok(&d.c))
			CHECK(h == xdr_fh_hash((const uint8_t *)"aaaaaaaaaaaaaaaa", k->max), "xdr_fh hash 0x%llx",
			      (unsigned long long)h);
	} else if (!strcmp(f, "xdr_ddp_opaque")) {
		n = xdr_ddp_opaque(&d, k->max, &moved, "prim");
		if (cur_ok(&d.c))
			CHECK(n == k->max && !moved, "xdr_ddp_opaque returned %u", n);
	} else if (!strcmp(f, "xdr_skip_array")) {
		n = xdr_skip_array(&d, 4, k->max, "prim");
		if (cur_ok(&d.c))
			CHECK(n == k->max, "xdr_skip_array returned %u", n);
	} else {
		CHECK(0, "no primitive %s", f);
	}
	*c = d.c;
}

/* Caps: past them the header still decodes, the first MAX entries are
 * stored, the wire count says how many came, and v1 sets overflow. */
enum capf { F_RSEGS, F_WSEGS, F_WCHUNKS, F_RPSEGS, F_PROPS };

struct ccase {
	const char *site;      /* "file.c:MACRO" */
	enum run run;          /* R_RDMA1 or R_RDMA2 */
	const char *pre, *rep, *post;  /* PRE, n times REP, POST */
	uint32_t max;          /* of n; the cap is max + extra */
	enum capf field;
	uint32_t extra;        /* entries stored before the n (the merge) */
	bool no_wire;          /* no wire count to check */
};

static const struct ccase caps[] = {
	{ "rpcrdma.c:RPCRDMA_MAX_RSEGS", R_RDMA1, "1 1 1 0", "1 0 0 0 h", "0 0 0", 32, F_RSEGS },
	{ "rpcrdma.c:RPCRDMA_MAX_WSEGS", R_RDMA1, "1 1 1 0 0 1 @n", "0 0 h", "0 0", 64, F_WSEGS },
	{ "rpcrdma.c:RPCRDMA_MAX_WCHUNKS", R_RDMA1, "1 1 1 0 0", "1 0", "0 0", 8, F_WCHUNKS },
	{ "rpcrdma.c:RPCRDMA_MAX_RPSEGS", R_RDMA1, "1 1 1 0 0 0 1 @n", "0 0 h", "", 32, F_RPSEGS },
	{ "rpcrdma2.c:RPCRDMA_MAX_RSEGS", R_RDMA2, "1 2 1 10 0", "1 0 0 0 h", "0 0 0", 32, F_RSEGS },
	{ "rpcrdma2.c:RPCRDMA_MAX_WSEGS", R_RDMA2, "1 2 1 10 0 0 1 @n", "0 0 h", "0 0", 64, F_WSEGS },
	{ "rpcrdma2.c:RPCRDMA_MAX_WCHUNKS", R_RDMA2, "1 2 1 10 0 0", "1 0", "0 0", 8, F_WCHUNKS },
	{ "rpcrdma2.c:RPCRDMA_MAX_RPSEGS", R_RDMA2, "1 2 1 10 0 0 0 1 @n", "0 0 h", "", 32, F_RPSEGS },
	{ "rpcrdma2.c:RPCRDMA2_MAX_PROPS", R_RDMA2, "1 2 1 7 @n", "1 v:4", "", 16, F_PROPS, .no_wire = true },
	/* CALL_EXTERNAL: the rdma_call chunk (one segment) merged into a read list of n */
	{ "rpcrdma2.c:RPCRDMA_MAX_RSEGS", R_RDMA2, "1 2 1 8 0 1 0 0 0 h 0", "1 0 0 0 h", "0 0 0", 31, F_RSEGS, 1,
	  .no_wire = true },
};

static void check_cap(const struct ccase *k, uint32_t n)
{
	struct buf o = { 0 };
	static struct rpcrdma_hdr h1;
	static struct rpcrdma2_hdr h2;

	/* "@n" is the count itself */
	char pre[128];
	const char *at = strstr(k->pre, "@n");
	if (at)
		snprintf(pre, sizeof(pre), "%.*s%u%s", (int)(at - k->pre), k->pre, n, at + 2);
	else
		snprintf(pre, sizeof(pre), "%s", k->pre);
	put_fmt(&o, pre);
	for (uint32_t i = 0; i < n; i++)
		put_fmt(&o, k->rep);
	put_fmt(&o, k->post);
	struct cursor c = cur_make(o.b, o.n);
	int rc = k->run == R_RDMA1 ? rpcrdma_decode(&h1, &c) : rpcrdma2_decode(&h2, &c, RPCRDMA2_DRAFT07);
	const struct rpcrdma_hdr *l = k->run == R_RDMA1 ? &h1 : &h2.lists;
	uint32_t kept = 0, wire = n;
	switch (k->field) {
	case F_RSEGS: kept = l->nrsegs; wire = l->nrsegs_wire; break;
	case F_WSEGS: kept = l->nwsegs; wire = l->nwchunks ? l->wchunks[0].nsegs_wire : 0; break;
	case F_WCHUNKS: kept = l->nwchunks; wire = l->nwchunks_wire; break;
	case F_RPSEGS: kept = l->nrpsegs; wire = l->nrpsegs_wire; break;
	case F_PROPS: kept = h2.nprops; break;
	}
	uint32_t want = n < k->max ? n + k->extra : k->max + k->extra;
	CHECK(rc == 0 && cur_ok(&c), "%s: %u entries must decode, got %s (%s)", k->site, n, cur_err_name(c.err),
	      c.err_what ? c.err_what : "");
	CHECK(kept == want, "%s: %u entries: %u stored, expected %u", k->site, n, kept, want);
	if (!k->no_wire)
		CHECK(wire == n, "%s: %u entries: the wire count says %u", k->site, n, wire);
	if (k->run == R_RDMA1)
		CHECK(h1.overflow == (n > k->max), "%s: %u entries: overflow %d", k->site, n, h1.overflow);
	free(o.b);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		check_cap(&caps[i], caps[i].max);
		check_cap(&caps[i], caps[i].max + 1);
	}
	return check_summary("test_bounds");
}
