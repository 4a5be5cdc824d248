/* NFSv3 (RFC 1813) names, arguments and results, and the small programs. */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/nfs_status.h"
#include "dissect/programs.h"

static struct nfsrdma_record rec;
static struct xdr_ddp ddp;

static bool run(const struct prog_info *p, uint32_t vers, uint32_t proc, bool reply,
		const struct xb *x)
{
	struct pdec d = { .c = cur_make(x->b, x->n), .rec = &rec, .ddp = &ddp, .reply = reply,
			  .vers = vers, .proc = proc, .layer = p->layer };
	if (reply)
		p->decode_reply(&d);
	else
		p->decode_call(&d);
	return cur_ok(&d.c) && d.c.off == x->n;
}

/* RFC 1813 mknoddata3 by ftype3: NF3SOCK (6) and NF3FIFO (7) carry a
 * sattr3 (here mode 0600, the rest unset: 7 words), NF3REG (1), NF3DIR
 * (2) and NF3LNK (5) nothing; each decodes to its last byte. */
static void test_mknod_types(void)
{
	const struct prog_info *p = &prog_nfs3;
	struct xb x;

	for (uint32_t type = 1; type <= 7; type++) {
		if (type == 3 || type == 4)
			continue;
		bool attrs = type == 6 || type == 7;
		memset(&rec, 0, sizeof(rec));
		x.n = 0;
		xb_fh(&x, 1); xb_str(&x, "node"); xb_u32(&x, type);
		if (attrs) {
			xb_u32(&x, 1); xb_u32(&x, 0600);
			xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
			xb_u32(&x, 0); xb_u32(&x, 0);
		}
		CHECK(run(p, 3, 11, false, &x), "mknod ftype3 %u %s, %zu bytes, decoded to its end", type,
		      attrs ? "with sattr3" : "with no more", x.n);
		CHECK_EQ_STR(rec.name, "node");
	}
}

/* NFSv2 (RFC 1094 numbers, RFC 8267 §4.1): the results of READLINK
 * (5) and READ (6), the arguments of WRITE (8) and SYMLINK (13). */
static void test_nfs2_ddp(void)
{
	const struct prog_info *v2 = prog_lookup(100003, 2);

	CHECK(v2 && v2->ddp_eligible, "an NFSv2 entry that judges DDP eligibility");
	for (uint32_t proc = 0; v2 && v2->ddp_eligible && proc <= 17; proc++) {
		bool res = proc == 5 || proc == 6, args = proc == 8 || proc == 13;
		CHECK(v2->ddp_eligible(2, proc, true) == res, "NFSv2 proc %u reply %s", proc,
		      res ? "eligible" : "not eligible");
		CHECK(v2->ddp_eligible(2, proc, false) == args, "NFSv2 proc %u call %s", proc,
		      args ? "eligible" : "not eligible");
	}
}

/* Results: READ with attributes and inline data, WRITE, an error; a
 * filehandle cut short or longer than 64 bytes. */
static void test_replies(void)
{
	const struct prog_info *p = &prog_nfs3;
	struct xb x;

	/* replies: READ with attributes, inline data; WRITE; an error */
	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	x.n = 0;
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	for (int i = 0; i < 21; i++)
		xb_u32(&x, 0);
	xb_u32(&x, 3);
	xb_u32(&x, 1);
	xb_opaque(&x, "abc", 3);
	CHECK(run(p, 3, 6, true, &x), "read reply inline");
	CHECK_EQ_U64(rec.res_count, 3);
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u64(&x, 1); xb_u64(&x, 2); xb_u64(&x, 3);
	xb_u32(&x, 0);
	xb_u32(&x, 4096); xb_u32(&x, 2); xb_u64(&x, 9);
	CHECK(run(p, 3, 7, true, &x), "write reply");
	CHECK_EQ_U64(rec.res_count, 4096);
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_u32(&x, 70);
	xb_u32(&x, 0);
	CHECK(run(p, 3, 6, true, &x), "read error reply");
	CHECK_EQ_U64(rec.status, 70);

	/* truncated fh */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_u32(&x, 32);
	CHECK(!run(p, 3, 1, false, &x), "truncated fails");
	/* fh too long is invalid */
	x.n = 0;
	xb_u32(&x, 65);
	CHECK(!run(p, 3, 1, false, &x), "fh > 64 fails");
}

/* MOUNT, NLM, NSM and NFSACL: the fields a record keeps. */
static void test_small_programs(void)
{
	struct xb x;

	/* MOUNT MNT */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, "/export");
	CHECK(run(&prog_mount, 3, 1, false, &x), "mnt args");
	CHECK_EQ_STR(rec.name, "/export");
	x.n = 0;
	xb_u32(&x, 0);
	xb_fh(&x, 5);
	rec.status = 99;   /* so that the decode must set it */
	CHECK(run(&prog_mount, 3, 1, true, &x), "mnt reply decoded to its end");
	CHECK_EQ_U64(rec.status, 0);
	{
		uint8_t fh[32];
		for (int i = 0; i < 32; i++)
			fh[i] = (uint8_t)(5 + i);
		CHECK_EQ_U64(rec.fh_hash, xdr_fh_hash(fh, 32));
	}
	/* NLM LOCK v4 */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_opaque(&x, "ck", 2); xb_u32(&x, 1); xb_u32(&x, 1);
	xb_str(&x, "client"); xb_fh(&x, 9); xb_opaque(&x, "owner", 5); xb_u32(&x, 42);
	xb_u64(&x, 100); xb_u64(&x, 200);
	xb_u32(&x, 0); xb_u32(&x, 3);
	struct pdec d = { .c = cur_make(x.b, x.n), .rec = &rec, .vers = 4, .proc = 2 };
	prog_nlm.decode_call(&d);
	CHECK(cur_ok(&d.c), "nlm lock");
	CHECK_EQ_U64(rec.offset, 100);
	CHECK_EQ_U64(rec.count, 200);
	/* NSM MON name; NFSACL GETACL */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, "peer");
	CHECK(run(&prog_nsm, 1, 2, false, &x), "nsm mon decoded to its end");
	CHECK_EQ_STR(rec.name, "peer");
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 3);
	xb_u32(&x, 0xf);
	CHECK(run(&prog_nfsacl, 3, 1, false, &x), "nfsacl getacl");
	CHECK(!prog_nfsacl.ddp_eligible(3, 1, true), "nfsacl not DDP-eligible");
	CHECK(prog_nfs3.ddp_eligible(3, 6, true), "READ reply eligible");
	CHECK(!prog_nfs3.ddp_eligible(3, 6, false), "READ call not eligible");
	CHECK(prog_nfs3.ddp_eligible(3, 10, false), "SYMLINK call eligible");
}

int main(void)
{
	static const char *const names[22] = {
		"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE",
		"CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK",
		"READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT" };
	for (uint32_t i = 0; i < 22; i++)
		CHECK_EQ_STR(prog_proc_name(100003, 3, i), names[i]);
	CHECK(prog_proc_name(100003, 3, 22) == NULL, "no proc 22");
	CHECK_EQ_STR(prog_proc_name(100003, 2, 17), "STATFS");
	CHECK_EQ_STR(prog_proc_name(100005, 3, 1), "MNT");
	CHECK_EQ_STR(prog_proc_name(100021, 4, 2), "LOCK");
	CHECK_EQ_STR(prog_proc_name(100024, 1, 2), "MON");
	CHECK_EQ_STR(prog_proc_name(100227, 3, 1), "GETACL");
	CHECK_EQ_STR(prog_proc_name(100003, 4, 1), "COMPOUND");
	CHECK_EQ_STR(nfs_stat_name(70), "STALE");
	CHECK_EQ_STR(nfs_stat_name(10008), "DELAY");
	CHECK_EQ_STR(nfs_stat_name(12345), "ERR_?");

	const struct prog_info *p = prog_lookup(100003, 3);
	CHECK(p == &prog_nfs3, "nfs3 entry");
	CHECK(prog_lookup(100003, 5) == NULL, "no v5");
	struct xb x;

	/* LOOKUP: dir fh + name */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 1);
	xb_str(&x, "hello.txt");
	CHECK(run(p, 3, 3, false, &x), "lookup args");
	CHECK_EQ_STR(rec.name, "hello.txt");
	CHECK(rec.fh_hash != 0, "fh");

	/* RENAME: the first name is kept */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 1);
	xb_str(&x, "old");
	xb_fh(&x, 2);
	xb_str(&x, "new");
	CHECK(run(p, 3, 14, false, &x), "rename args");
	CHECK_EQ_STR(rec.name, "old");

	/* SETATTR with mode, size and server time */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 1);
	xb_u32(&x, 1); xb_u32(&x, 0644);
	xb_u32(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u64(&x, 100);
	xb_u32(&x, 1);
	xb_u32(&x, 2); xb_u64(&x, 5);
	xb_u32(&x, 0);
	CHECK(run(p, 3, 2, false, &x), "setattr args");

	/* WRITE inline (no Read chunk) */
	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	x.n = 0;
	xb_fh(&x, 1);
	xb_u64(&x, 1 << 20);
	xb_u32(&x, 5);
	xb_u32(&x, 0);
	xb_opaque(&x, "hello", 5);
	CHECK(run(p, 3, 7, false, &x), "write inline");
	CHECK_EQ_U64(rec.offset, 1 << 20);
	CHECK_EQ_U64(rec.count, 5);

	/* READDIRPLUS args; COMMIT args; MKNOD chr */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 1); xb_u64(&x, 7); xb_u64(&x, 0); xb_u32(&x, 512); xb_u32(&x, 4096);
	CHECK(run(p, 3, 17, false, &x), "readdirplus args");
	CHECK_EQ_U64(rec.count, 4096);
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_fh(&x, 1); xb_str(&x, "dev"); xb_u32(&x, 3);
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 2);
	CHECK(run(p, 3, 11, false, &x), "mknod args");
	test_replies();
	test_small_programs();
	test_mknod_types();
	test_nfs2_ddp();
	return check_summary("test_nfs3");
}
