/* The shared NFS vocabulary against the protocol's own tables, written
 * out here by hand from RFC 1813 (NFSv3 section 3, MOUNT appendix I),
 * RFC 7530 section 16, RFC 8881 sections 18 and 20 (nfs_opnum4,
 * nfs_cb_opnum4) and RFC 7862 / RFC 8276 (NFSv4.2, xattrs); and the
 * bounded XDR walks on hand-built arguments. */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/nfs_vocab.h"
#include "dissect/nfs_xdr_skip.h"

struct pair {
	uint32_t num;
	const char *name;
};

/* nfs_opnum4, RFC 8881 section 16.2.1 and RFC 7862 section 11.2 */
static const struct pair v4ops[] = {
	{ 3, "ACCESS" }, { 4, "CLOSE" }, { 5, "COMMIT" }, { 6, "CREATE" }, { 7, "DELEGPURGE" },
	{ 8, "DELEGRETURN" }, { 9, "GETATTR" }, { 10, "GETFH" }, { 11, "LINK" }, { 12, "LOCK" },
	{ 13, "LOCKT" }, { 14, "LOCKU" }, { 15, "LOOKUP" }, { 16, "LOOKUPP" }, { 17, "NVERIFY" },
	{ 18, "OPEN" }, { 19, "OPENATTR" }, { 20, "OPEN_CONFIRM" }, { 21, "OPEN_DOWNGRADE" },
	{ 22, "PUTFH" }, { 23, "PUTPUBFH" }, { 24, "PUTROOTFH" }, { 25, "READ" }, { 26, "READDIR" },
	{ 27, "READLINK" }, { 28, "REMOVE" }, { 29, "RENAME" }, { 30, "RENEW" }, { 31, "RESTOREFH" },
	{ 32, "SAVEFH" }, { 33, "SECINFO" }, { 34, "SETATTR" }, { 35, "SETCLIENTID" },
	{ 36, "SETCLIENTID_CONFIRM" }, { 37, "VERIFY" }, { 38, "WRITE" }, { 39, "RELEASE_LOCKOWNER" },
	{ 40, "BACKCHANNEL_CTL" }, { 41, "BIND_CONN_TO_SESSION" }, { 42, "EXCHANGE_ID" },
	{ 43, "CREATE_SESSION" }, { 44, "DESTROY_SESSION" }, { 45, "FREE_STATEID" },
	{ 46, "GET_DIR_DELEGATION" }, { 47, "GETDEVICEINFO" }, { 48, "GETDEVICELIST" },
	{ 49, "LAYOUTCOMMIT" }, { 50, "LAYOUTGET" }, { 51, "LAYOUTRETURN" }, { 52, "SECINFO_NO_NAME" },
	{ 53, "SEQUENCE" }, { 54, "SET_SSV" }, { 55, "TEST_STATEID" }, { 56, "WANT_DELEGATION" },
	{ 57, "DESTROY_CLIENTID" }, { 58, "RECLAIM_COMPLETE" }, { 59, "ALLOCATE" }, { 60, "COPY" },
	{ 61, "COPY_NOTIFY" }, { 62, "DEALLOCATE" }, { 63, "IO_ADVISE" }, { 64, "LAYOUTERROR" },
	{ 65, "LAYOUTSTATS" }, { 66, "OFFLOAD_CANCEL" }, { 67, "OFFLOAD_STATUS" }, { 68, "READ_PLUS" },
	{ 69, "SEEK" }, { 70, "WRITE_SAME" }, { 71, "CLONE" }, { 72, "GETXATTR" }, { 73, "SETXATTR" },
	{ 74, "LISTXATTRS" }, { 75, "REMOVEXATTR" }, { 10044, "ILLEGAL" },
};

/* nfs_cb_opnum4, RFC 8881 section 20 and RFC 7862 section 16 */
static const struct pair cbops[] = {
	{ 3, "CB_GETATTR" }, { 4, "CB_RECALL" }, { 5, "CB_LAYOUTRECALL" }, { 6, "CB_NOTIFY" },
	{ 7, "CB_PUSH_DELEG" }, { 8, "CB_RECALL_ANY" }, { 9, "CB_RECALLABLE_OBJ_AVAIL" },
	{ 10, "CB_RECALL_SLOT" }, { 11, "CB_SEQUENCE" }, { 12, "CB_WANTS_CANCELLED" },
	{ 13, "CB_NOTIFY_LOCK" }, { 14, "CB_NOTIFY_DEVICEID" }, { 15, "CB_OFFLOAD" },
	{ 10044, "CB_ILLEGAL" },
};

/* NFSPROC3_*, RFC 1813 section 3 */
static const struct pair v3procs[] = {
	{ 0, "NULL" }, { 1, "GETATTR" }, { 2, "SETATTR" }, { 3, "LOOKUP" }, { 4, "ACCESS" },
	{ 5, "READLINK" }, { 6, "READ" }, { 7, "WRITE" }, { 8, "CREATE" }, { 9, "MKDIR" },
	{ 10, "SYMLINK" }, { 11, "MKNOD" }, { 12, "REMOVE" }, { 13, "RMDIR" }, { 14, "RENAME" },
	{ 15, "LINK" }, { 16, "READDIR" }, { 17, "READDIRPLUS" }, { 18, "FSSTAT" }, { 19, "FSINFO" },
	{ 20, "PATHCONF" }, { 21, "COMMIT" },
};

/* MOUNTPROC3_*, RFC 1813 appendix I */
static const struct pair mntprocs[] = {
	{ 0, "NULL" }, { 1, "MNT" }, { 2, "DUMP" }, { 3, "UMNT" }, { 4, "UMNTALL" }, { 5, "EXPORT" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void names(void)
{
	for (size_t i = 0; i < NELEM(v4ops); i++)
		CHECK_EQ_STR(nfs4_op_name(v4ops[i].num), v4ops[i].name);
	for (uint32_t op = 0; op < 3; op++)
		CHECK_EQ_STR(nfs4_op_name(op), "OP_?");
	CHECK_EQ_STR(nfs4_op_name(76), "OP_?");
	CHECK_EQ_STR(nfs4_op_name(10043), "OP_?");
	CHECK_EQ_STR(nfs4_op_name(UINT32_MAX), "OP_?");

	for (size_t i = 0; i < NELEM(cbops); i++)
		CHECK_EQ_STR(nfs4_cb_op_name(cbops[i].num), cbops[i].name);
	CHECK_EQ_STR(nfs4_cb_op_name(2), "CB_?");
	CHECK_EQ_STR(nfs4_cb_op_name(16), "CB_?");

	for (size_t i = 0; i < NELEM(v3procs); i++)
		CHECK_EQ_STR(nfs3_proc_name(v3procs[i].num), v3procs[i].name);
	CHECK(nfs3_proc_name(22) == NULL, "NFSv3 has 22 procedures");
	CHECK_EQ_U64(NFS3P_NPROCS, 22);

	for (size_t i = 0; i < NELEM(mntprocs); i++)
		CHECK_EQ_STR(mount3_proc_name(mntprocs[i].num), mntprocs[i].name);
	CHECK(mount3_proc_name(6) == NULL, "MOUNT v3 has 6 procedures");
}

/* The enumerators carry the protocol's numbers. */
static void numbers(void)
{
	CHECK_EQ_U64(PROG_PORTMAP, 100000);
	CHECK_EQ_U64(PROG_NFS, 100003);
	CHECK_EQ_U64(PROG_MOUNT, 100005);
	CHECK_EQ_U64(PROG_NLM, 100021);
	CHECK_EQ_U64(PROG_NSM, 100024);
	CHECK_EQ_U64(PROG_NFSACL, 100227);
	CHECK_EQ_U64(PROG_NFS_CB, 0x40000000);
	CHECK_EQ_U64(NFS4_OP_ACCESS, 3);
	CHECK_EQ_U64(NFS4_OP_OPEN, 18);
	CHECK_EQ_U64(NFS4_OP_PUTFH, 22);
	CHECK_EQ_U64(NFS4_OP_RELEASE_LOCKOWNER, 39);
	CHECK_EQ_U64(NFS4_OP_EXCHANGE_ID, 42);
	CHECK_EQ_U64(NFS4_OP_SEQUENCE, 53);
	CHECK_EQ_U64(NFS4_OP_RECLAIM_COMPLETE, 58);
	CHECK_EQ_U64(NFS4_OP_ALLOCATE, 59);
	CHECK_EQ_U64(NFS4_OP_CLONE, 71);
	CHECK_EQ_U64(NFS4_OP_REMOVEXATTR, 75);
	CHECK_EQ_U64(NFS4_OP_ILLEGAL, 10044);
	CHECK_EQ_U64(NFS4_OP_CB_RECALL, 4);
	CHECK_EQ_U64(NFS4_OP_CB_RECALL_ANY, 8);
	CHECK_EQ_U64(NFS4_OP_CB_SEQUENCE, 11);
	CHECK_EQ_U64(NFS4_OP_CB_OFFLOAD, 15);
	CHECK_EQ_U64(NFS4_OP_CB_ILLEGAL, 10044);
	CHECK_EQ_U64(NFS3P_READ, 6);
	CHECK_EQ_U64(NFS3P_WRITE, 7);
	CHECK_EQ_U64(NFS3P_READDIRPLUS, 17);
	CHECK_EQ_U64(NFS3P_COMMIT, 21);
	CHECK_EQ_U64(MOUNT3P_MNT, 1);
	CHECK_EQ_U64(MOUNT3P_EXPORT, 5);
}

static void sattr3(void)
{
	struct xb x = { 0 };
	/* mode set, uid unset, gid set, size set, atime server, mtime client */
	xb_u32(&x, 1); xb_u32(&x, 0644);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 100);
	xb_u32(&x, 1); xb_u64(&x, 1u << 20);
	xb_u32(&x, 1);
	xb_u32(&x, 2); xb_u32(&x, 1700000000); xb_u32(&x, 5);
	xb_u32(&x, 0xabcd);   /* what follows */
	struct cursor c = cur_make(x.b, x.n);
	CHECK(nfs3_skip_sattr3(&c), "sattr3 walks");
	CHECK_EQ_U64(c.off, x.n - 4);

	/* set_mode3 with a bool of 2 is invalid, the error at that word */
	x.n = 0;
	xb_u32(&x, 2); xb_u32(&x, 0644);
	c = cur_make(x.b, x.n);
	CHECK(!nfs3_skip_sattr3(&c), "bad bool");
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 0);

	/* time_how 3 does not exist */
	x.n = 0;
	for (int i = 0; i < 4; i++)
		xb_u32(&x, 0);
	xb_u32(&x, 3);
	c = cur_make(x.b, x.n);
	CHECK(!nfs3_skip_sattr3(&c), "bad time_how");
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 16);

	/* cut inside the size */
	x.n = 0;
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 1); xb_u32(&x, 0);
	c = cur_make(x.b, x.n);
	CHECK(!nfs3_skip_sattr3(&c), "truncated");
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
}

static void fattr4(void)
{
	struct xb x = { 0 };
	uint32_t w0 = 0, w1 = 0;
	xb_u32(&x, 2); xb_u32(&x, 0x10); xb_u32(&x, 0x2);
	xb_opaque(&x, "\0\0\0\0\0\0\0\x10\0\0\x01\xa4", 12);
	struct cursor c = cur_make(x.b, x.n);
	CHECK(nfs4_skip_bitmap4(&c, &w0, &w1), "bitmap4");
	CHECK_EQ_U64(w0, 0x10);
	CHECK_EQ_U64(w1, 0x2);
	c = cur_make(x.b, x.n);
	CHECK(nfs4_skip_fattr4(&c), "fattr4");
	CHECK_EQ_U64(c.off, x.n);

	x.n = 0;
	xb_u32(&x, 65);
	c = cur_make(x.b, x.n);
	CHECK(!nfs4_skip_fattr4(&c), "65-word bitmap4");
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 0);

	x.n = 0;
	xb_u32(&x, 0); xb_u32(&x, (1u << 20) + 1);
	c = cur_make(x.b, x.n);
	CHECK(!nfs4_skip_fattr4(&c), "attr_vals over the bound");
}

/* OPEN4args up to the claim: seqid, share, open_owner4 */
static void open_head(struct xb *x)
{
	xb_u32(x, 7);
	xb_u32(x, 2); xb_u32(x, 0);
	xb_u64(x, 0x1122334455667788ull);
	xb_str(x, "owner");
}

static void open_args(void)
{
	struct xb x = { 0 };
	struct nfs4_open_args a;

	/* OPEN4_CREATE GUARDED4 with attributes, CLAIM_NULL "f" */
	open_head(&x);
	xb_u32(&x, 1); xb_u32(&x, 1);
	xb_u32(&x, 1); xb_u32(&x, 0x10); xb_opaque(&x, "12345678", 8);
	xb_u32(&x, 0); xb_str(&x, "f");
	struct cursor c = cur_make(x.b, x.n);
	CHECK(nfs4_walk_open_args(&c, &a), "OPEN create");
	CHECK_EQ_U64(c.off, x.n);
	CHECK_EQ_U64(a.seqid, 7);
	CHECK_EQ_U64(a.share_access, 2);
	CHECK_EQ_U64(a.clientid, 0x1122334455667788ull);
	CHECK(a.owner_len == 5 && a.owner && !memcmp(a.owner, "owner", 5), "owner");
	CHECK(a.create, "create");
	CHECK_EQ_U64(a.claim, NFS4_CLAIM_NULL);
	CHECK(a.name_len == 1 && a.name && a.name[0] == 'f', "name");

	/* EXCLUSIVE4_1: verifier and attributes; CLAIM_DELEG_CUR_FH: a stateid */
	x.n = 0;
	open_head(&x);
	xb_u32(&x, 1); xb_u32(&x, 3); xb_u64(&x, 42);
	xb_u32(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 5); xb_u32(&x, 9); xb_bytes(&x, "abcdefghijkl", 12);
	c = cur_make(x.b, x.n);
	CHECK(nfs4_walk_open_args(&c, &a), "EXCLUSIVE4_1, CLAIM_DELEG_CUR_FH");
	CHECK_EQ_U64(c.off, x.n);
	CHECK(a.deleg_stateid && !memcmp(a.deleg_stateid + 4, "abcdefghijkl", 12), "stateid");
	CHECK(a.name == NULL, "no name");

	/* OPEN4_NOCREATE, CLAIM_DELEGATE_CUR: stateid then name */
	x.n = 0;
	open_head(&x);
	xb_u32(&x, 0);
	xb_u32(&x, 2); xb_u32(&x, 1); xb_bytes(&x, "abcdefghijkl", 12); xb_str(&x, "dd");
	c = cur_make(x.b, x.n);
	CHECK(nfs4_walk_open_args(&c, &a), "CLAIM_DELEGATE_CUR");
	CHECK(!a.create && a.deleg_stateid && a.name_len == 2, "stateid and name");

	/* EXCLUSIVE4: a verifier only */
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 2); xb_u64(&x, 1); xb_u32(&x, 99);
	c = cur_make(x.b, x.n);
	CHECK(nfs4_skip_openflag4(&c, NULL), "EXCLUSIVE4");
	CHECK_EQ_U64(c.off, 16);

	/* createmode4 4, opentype4 2 and claim 7 do not exist */
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 4);
	c = cur_make(x.b, x.n);
	CHECK(!nfs4_skip_openflag4(&c, NULL) && c.err == CUR_INVALID && c.err_off == 4, "createmode4 4");
	x.n = 0;
	xb_u32(&x, 2);
	c = cur_make(x.b, x.n);
	CHECK(!nfs4_skip_openflag4(&c, NULL) && c.err == CUR_INVALID && c.err_off == 0, "opentype4 2");
	x.n = 0;
	open_head(&x);
	size_t claim_at = x.n + 4;
	xb_u32(&x, 0); xb_u32(&x, 7);
	c = cur_make(x.b, x.n);
	CHECK(!nfs4_walk_open_args(&c, &a), "claim 7");
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, claim_at);

	/* cut inside the owner */
	x.n = 0;
	open_head(&x);
	c = cur_make(x.b, x.n - 4);
	CHECK(!nfs4_walk_open_args(&c, &a) && c.err == CUR_TRUNCATED, "truncated owner");
}

int main(void)
{
	names();
	numbers();
	sattr3();
	fattr4();
	open_args();
	return check_summary("test_nfs_vocab");
}
