/* Hostile replies and trace COMPOUNDs for the replay client's decoders:
 * the cases tests/fuzz/fuzz_nfs4_reply.c and fuzz_nfs4_rewrite.c found
 * (counts and lengths a truncated message claimed but did not carry),
 * each next to its well-formed twin, and the MOUNT / portmapper reply
 * decoders factored out of src/clnt/mount_clnt.c on replies of a lab capture
 * (port from tshark, root handle from the trace reader's own MOUNT scan). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/xprt/xprt.h"
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/replay/trace.h"


static uint8_t buf[4096];

/* COMPOUND4res head: status OK, empty tag, the count claimed */
static void res_head(struct xenc *e, uint32_t nres)
{
	xenc_init(e, buf, sizeof(buf));
	xenc_u32(e, 0);
	xenc_u32(e, 0);
	xenc_u32(e, nres);
}

static void test_nres_claimed(void)
{
	struct xenc e;
	struct nfs4_res r;

	/* 255 results claimed, one present */
	res_head(&e, 255);
	xenc_u32(&e, NFS4_OP_PUTROOTFH);
	xenc_u32(&e, 0);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == -EBADMSG, "truncated COMPOUND is -EBADMSG");
	CHECK_EQ_U64(r.nres, 1);
	CHECK_EQ_U64(r.op[0], NFS4_OP_PUTROOTFH);
	CHECK(!r.complete, "truncated COMPOUND not complete");

	/* ILLEGAL ends the results whatever the count said */
	res_head(&e, 200);
	xenc_u32(&e, NFS4_OP_PUTROOTFH);
	xenc_u32(&e, 0);
	xenc_u32(&e, NFS4_OP_ILLEGAL);
	xenc_u32(&e, NFS4ERR_OP_ILLEGAL);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == 0, "COMPOUND ending in ILLEGAL decodes");
	CHECK_EQ_U64(r.nres, 2);

	/* well-formed: the count as sent */
	res_head(&e, 2);
	xenc_u32(&e, NFS4_OP_PUTROOTFH);
	xenc_u32(&e, 0);
	xenc_u32(&e, NFS4_OP_GETFH);
	xenc_u32(&e, 0);
	xenc_u32(&e, 8);
	xenc_fixed(&e, "handle!!", 8);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == 0 && r.complete, "two results decode");
	CHECK_EQ_U64(r.nres, 2);
	CHECK_EQ_U64(r.nfh, 1);
	CHECK_EQ_U64(r.fh[0].len, 8);
}

static void test_read_count_claimed(void)
{
	struct xenc e;
	struct nfs4_res r;

	/* READ: 16 MB claimed, 8 bytes present */
	res_head(&e, 1);
	xenc_u32(&e, NFS4_OP_READ);
	xenc_u32(&e, 0);
	xenc_u32(&e, 0);            /* eof */
	xenc_u32(&e, 1u << 24);     /* data length */
	xenc_fixed(&e, "12345678", 8);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == -EBADMSG, "truncated READ is -EBADMSG");
	CHECK_EQ_U64(r.read_count, 0);

	/* the same length with the data moved by DDP (Write chunk) counts */
	memset(&r, 0, sizeof(r));
	size_t head = e.len - 8;
	CHECK(nfs4_decode_body(1, buf, head, true, &r) == 0, "READ with moved data decodes");
	CHECK_EQ_U64(r.read_count, 1u << 24);

	/* well-formed inline READ */
	res_head(&e, 1);
	xenc_u32(&e, NFS4_OP_READ);
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);
	xenc_opaque(&e, "12345678", 8);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == 0, "READ decodes");
	CHECK_EQ_U64(r.read_count, 8);
	CHECK(r.eof, "eof");

	/* READ_PLUS data segment: 1000 bytes claimed, 4 present */
	res_head(&e, 1);
	xenc_u32(&e, NFS4_OP_READ_PLUS);
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);            /* eof */
	xenc_u32(&e, 1);            /* one content */
	xenc_u32(&e, 0);            /* NFS4_CONTENT_DATA */
	xenc_u64(&e, 0);            /* offset */
	xenc_u32(&e, 1000);
	xenc_fixed(&e, "abcd", 4);
	memset(&r, 0, sizeof(r));
	CHECK(nfs4_decode_body(1, buf, e.len, false, &r) == -EBADMSG, "truncated READ_PLUS is -EBADMSG");
	CHECK_EQ_U64(r.read_count, 0);

	/* through the whole-message decoder (the load generator's path) */
	uint8_t msg[4096];
	struct xenc m;
	xenc_init(&m, msg, sizeof(msg));
	xenc_u32(&m, 0x1234);       /* xid */
	xenc_u32(&m, 1);            /* REPLY */
	xenc_u32(&m, 0);            /* MSG_ACCEPTED */
	xenc_u32(&m, 0);            /* verifier AUTH_NONE */
	xenc_u32(&m, 0);
	xenc_u32(&m, 0);            /* SUCCESS */
	xenc_fixed(&m, buf, e.len);
	CHECK(nfs4_decode_reply(1, msg, m.len, false, &r) == 0 && r.ok, "RPC header decodes");
	CHECK_EQ_U64(r.read_count, 0);
}

/* COMPOUND4args: empty tag, minor 1, one WRITE carrying data_len bytes of
 * its claimed length */
static size_t write_args(uint32_t claimed, uint32_t present)
{
	struct xenc e;
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);
	xenc_u32(&e, 1);
	xenc_u32(&e, NFS4_OP_WRITE);
	xenc_fixed(&e, "\0\0\0\1stateid-othr", 16);
	xenc_u64(&e, 0);
	xenc_u32(&e, 2);            /* FILE_SYNC4 */
	xenc_u32(&e, claimed);
	uint8_t *p = xenc_reserve(&e, present);
	if (p)
		memset(p, 'd', present);
	return e.len;
}

static void test_ddp_claimed(void)
{
	struct nfs4_call_info in;

	size_t len = write_args(256, 8);
	CHECK(nfs4_call_parse(buf, len, 0, &in) == -EBADMSG, "truncated WRITE is -EBADMSG");
	CHECK(!in.has_ddp, "no DDP claimed for data not in the args");
	CHECK(!in.known, "truncated WRITE not known");

	len = write_args(8, 8);
	CHECK(nfs4_call_parse(buf, len, 0, &in) == 0 && in.known, "WRITE parses");
	CHECK(in.has_ddp && in.ddp_inline, "inline DDP data");
	CHECK_EQ_U64(in.ddp_len, 8);
	CHECK_EQ_U64(in.ddp_at, 4 + 4 + 4 + 4 + 16 + 8 + 4 + 4);

	/* the same WRITE with its data in the trace's Read chunk */
	len = write_args(4096, 0);
	CHECK(nfs4_call_parse(buf, len, 48, &in) == 0 && in.has_ddp && !in.ddp_inline,
	      "WRITE with Read chunk data parses");
	CHECK_EQ_U64(in.ddp_len, 4096);
}

static void test_nfs3_read_count(void)
{
	struct xenc e;
	struct rpc_res r;

	/* READ3resok: count 1 GB claimed, 4 bytes of data */
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0);            /* NFS3_OK */
	xenc_u32(&e, 0);            /* no post_op_attr */
	xenc_u32(&e, 1u << 30);     /* count */
	xenc_u32(&e, 1);            /* eof */
	xenc_opaque(&e, "abcd", 4);
	memset(&r, 0, sizeof(r));
	CHECK(nfs3_decode_body(NFS3P_READ, buf, e.len, false, &r, NULL, NULL) == 0, "READ decodes");
	CHECK_EQ_U64(r.count, 4);
	CHECK(r.eof, "eof");

	/* honest, with the data moved to a Write chunk: the length word stays */
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0);
	xenc_u32(&e, 0);
	xenc_u32(&e, 65536);
	xenc_u32(&e, 0);
	xenc_u32(&e, 65536);
	memset(&r, 0, sizeof(r));
	CHECK(nfs3_decode_body(NFS3P_READ, buf, e.len, true, &r, NULL, NULL) == 0, "moved READ decodes");
	CHECK_EQ_U64(r.count, 65536);
	CHECK(!r.eof, "no eof");
}

static size_t read_seed(const char *rel, uint8_t *out, size_t cap)
{
	char path[512];
	FILE *f = fopen(check_path(rel, path, sizeof(path)), "rb");
	if (!f)
		return 0;
	size_t n = fread(out, 1, cap, f);
	fclose(f);
	return n;
}

static void test_mount_replies(void)
{
	uint8_t msg[2048];
	char err[256], path[512];

	/* GETPORT reply of nfs3-metadata.pcap frame 23 (tshark: Port:41953) */
	size_t n = read_seed("tests/fuzz/seeds/nfs3_clnt/nfs3-metadata-getport-41953", msg, sizeof(msg));
	CHECK(n > 2, "GETPORT seed present");
	if (n > 2) {
		CHECK_EQ_U64(pmap_decode_getport(msg + 2, n - 2), 41953);
		CHECK(pmap_decode_getport(msg + 2, n - 3) == -ENOENT, "truncated GETPORT");
		CHECK(pmap_decode_getport(msg + 2, 8) == -EPROTO, "no RPC header");
	}

	/* MNT reply: the root handle the trace reader found in the capture */
	struct trace t;
	CHECK(trace_load(&t, check_path("tests/captures/nfs3-metadata.pcap", path, sizeof(path)), err,
			 sizeof(err)) == 0 && t.have_root, "trace root from nfs3-metadata.pcap");
	n = read_seed("tests/fuzz/seeds/nfs3_clnt/nfs3-metadata-mnt-0", msg, sizeof(msg));
	CHECK(n > 2, "MNT seed present");
	if (n > 2 && t.have_root) {
		struct nfs_fh fh;
		CHECK(mount3_decode_mnt(msg + 2, n - 2, "h", "/export", &fh, err, sizeof(err)) == 0,
		      "MNT decodes");
		CHECK(fh.len == t.root.len && !memcmp(fh.data, t.root.data, fh.len),
		      "MNT handle = trace root (%u / %u bytes)", fh.len, t.root.len);
		err[0] = 0;
		/* cut inside the handle: RPC reply header (24 bytes with an
		 * AUTH_NONE verifier), mountstat3, length, half the handle */
		size_t cut = 24 + 4 + 4 + fh.len / 2;
		CHECK(mount3_decode_mnt(msg + 2, cut, "h", "/export", &fh, err, sizeof(err)) == -EBADMSG,
		      "truncated handle");
		CHECK_EQ_STR(err, "MOUNT h:/export: bad file handle");
	}
	trace_free(&t);
}

/* READ data moved by RDMA: the bytes counted are at most what the Write
 * chunk says the server wrote, whatever count the reply claims. */
static void test_moved_read_bytes(void)
{
	struct xprt_reply moved = { .bulk_moved = true, .bulk_len = 4096 };
	struct xprt_reply inl = { .bulk_moved = false, .bulk_len = 0 };

	CHECK_EQ_U64(xprt_reply_read_bytes(&moved, 1u << 30), 4096);
	CHECK_EQ_U64(xprt_reply_read_bytes(&moved, 4096), 4096);
	CHECK_EQ_U64(xprt_reply_read_bytes(&moved, 100), 100);
	CHECK_EQ_U64(xprt_reply_read_bytes(&inl, 1u << 20), 1u << 20);
}

int main(void)
{
	test_nres_claimed();
	test_read_count_claimed();
	test_ddp_claimed();
	test_nfs3_read_count();
	test_mount_replies();
	test_moved_read_bytes();
	return check_summary("test_clnt_hostile");
}
