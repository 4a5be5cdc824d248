/* Reading captures for replay (src/replay/replay_trace.c) on the lab catalogue:
 * the calls, their arguments, the MOUNT that gave the root handle, the
 * Read chunk data pulled by the server and the Reply chunk contents
 * (READDIRPLUS entries).  Expected values come from what each lab scenario
 * did (tests/lab/scenarios/NAME), not from the code under test. */
#include "check.h"

#include <errno.h>

#include "src/clnt/nfs3.h"
#include "src/replay/trace.h"

static int load(struct trace *t, const char *name)
{
	char rel[256], path[512], err[256];
	snprintf(rel, sizeof(rel), "tests/captures/%s.pcap", name);
	int ret = trace_load(t, check_path(rel, path, sizeof(path)), err, sizeof(err));
	CHECK(ret == 0, "%s: %s", name, err);
	return ret;
}

static unsigned count(const struct trace *t, uint32_t prog, uint32_t proc)
{
	unsigned n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->calls[i].prog == prog && t->calls[i].proc == proc;
	return n;
}

static unsigned names;
static void entry(void *ctx, const char *name, const struct nfs_fh *fh)
{
	int i;
	if (sscanf(name, "file-%d-with-a-rather-long-name-to-make-readdirplus-replies-big", &i) == 1 &&
	    i >= 1 && i <= 200 && fh->len > 0)
		names++;
}

int main(void)
{
	struct trace t;

	/* nfs3-read-write: mount, 512 KB O_DIRECT write in 4 x 128 KB, read back,
	 * + 1 KB inline write/read (tests/lab/scenarios/nfs3-read-write) */
	if (load(&t, "nfs3-read-write") == 0) {
		CHECK(t.have_root, "root handle from the MOUNT reply over TCP");
		CHECK_EQ_STR(t.export_path, "/export");
		CHECK(t.root.len > 0 && t.root.len <= 64, "root handle length %u", t.root.len);
		CHECK_EQ_U64(count(&t, PROG_NFS, NFS3P_WRITE), 5);
		CHECK_EQ_U64(count(&t, PROG_NFS, NFS3P_READ), 5);
		CHECK_EQ_U64(count(&t, PROG_NFS, NFS3P_CREATE), 2);
		unsigned chunked = 0, pulled = 0, wchunk = 0;
		for (size_t i = 0; i < t.n; i++) {
			const struct tcall *c = &t.calls[i];
			CHECK(c->replied && c->rpc_status == 0, "xid 0x%08x answered", c->xid);
			if (c->proc == NFS3P_WRITE && c->has_read_chunk) {
				chunked++;
				CHECK_EQ_U64(c->ddp_len, 131072);
				/* the server pulled every byte by RDMA READ */
				pulled += c->ddp && c->ddp_got == c->ddp_len;
			}
			if (c->proc == NFS3P_READ && c->has_write_chunk)
				wchunk++;
		}
		CHECK_EQ_U64(chunked, 4);
		CHECK_EQ_U64(pulled, 4);
		CHECK_EQ_U64(wchunk, 4);
		trace_free(&t);
	}
	/* nfs3-readdirplus: 200 files made on the server; READDIRPLUS reply in
	 * the Reply chunk, reassembled from the server's RDMA WRITEs */
	if (load(&t, "nfs3-readdirplus") == 0) {
		unsigned rdp = 0;
		for (size_t i = 0; i < t.n; i++) {
			const struct tcall *c = &t.calls[i];
			if (c->prog != PROG_NFS || c->proc != NFS3P_READDIRPLUS)
				continue;
			rdp++;
			CHECK(c->has_reply_chunk && c->res, "READDIRPLUS results kept");
			struct rpc_res res = { 0 };
			names = 0;
			CHECK(nfs3_decode_body(c->proc, c->res, c->res_len, false, &res, entry, NULL) == 0,
			      "READDIRPLUS reply decodes");
			CHECK_EQ_U64(res.status, 0);
		}
		CHECK_EQ_U64(rdp, 1);
		CHECK_EQ_U64(names, 200);
		CHECK_EQ_U64(count(&t, PROG_NFSACL, 1), 201);
		trace_free(&t);
	}
	/* nfs41: NFSv4.1 COMPOUNDs are read (replay of v4 is not implemented) */
	if (load(&t, "nfs41") == 0) {
		CHECK(t.n > 10, "v4.1 calls read: %zu", t.n);
		CHECK(t.calls[0].vers == 4, "NFSv4");
		trace_free(&t);
	}
	/* perftest: RDMA traffic but no RPC at all */
	if (load(&t, "perftest") == 0) {
		CHECK_EQ_U64(t.n, 0);
		trace_free(&t);
	}
	/* hostile: not a capture */
	char path[512], err[256];
	int ret = trace_load(&t, check_path("tests/unit/check.h", path, sizeof(path)), err, sizeof(err));
	CHECK(ret < 0, "a non-pcap file is refused (%d)", ret);
	trace_free(&t);
	return check_summary("test_replay_trace");
}
