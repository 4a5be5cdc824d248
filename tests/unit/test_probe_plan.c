/* The probes' plan (src/probe/probe_plan.c) on the format files of each
 * kernel in tests/probe/formats (6.1: real lab copies and derived; 6.12,
 * 5.15: derived, see its README): which events are unavailable, which
 * fields the programs get at which offsets, and the one line per missing
 * event or field that names what the records lose.  The offsets expected
 * are the ones written in those files. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "src/base/log.h"
#include "src/probe/probe_load.h"
#include "src/probe/probe_plan.h"

static char srcdir[PATH_MAX];

/* A tracefs root whose events/ is the kernel's tree, or with only the
 * systems named in only ("sunrpc"). */
static int make_root(const char *kernel, const char *only, char *root, size_t len)
{
	char from[PATH_MAX + 64], ev[PATH_MAX + 16];

	snprintf(root, len, "/tmp/test_probe_plan.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(from, sizeof(from), "%s/tests/probe/formats/%s", srcdir, kernel);
	snprintf(ev, sizeof(ev), "%s/events", root);
	if (!only)
		return symlink(from, ev);
	char link[2 * PATH_MAX + 96], to[PATH_MAX + 96];
	if (mkdir(ev, 0700) < 0)
		return -1;
	snprintf(to, sizeof(to), "%s/%s", from, only);
	snprintf(link, sizeof(link), "%s/%s", ev, only);
	return symlink(to, link);
}

static void drop_root(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

static void plan(struct probe_plan *pl, const char *kernel, const char *only, unsigned want, const char *skip)
{
	char root[PATH_MAX];

	memset(pl, 0, sizeof(*pl));
	if (make_root(kernel, only, root, sizeof(root)) < 0) {
		CHECK(0, "tracefs tree of %s", kernel);
		return;
	}
	probe_plan_build(pl, root, want, skip);
	drop_root(root);
}

static bool unavailable(const struct probe_plan *pl, const char *event)
{
	return !probe_plan_has(pl, event);
}

#define HAS_NOTE(pl, text) CHECK(strstr((pl)->notes, text) != NULL, "no line \"%s\" in:\n%s", text, (pl)->notes)
#define NO_NOTE(pl, text) CHECK(strstr((pl)->notes, text) == NULL, "unexpected \"%s\" in:\n%s", text, (pl)->notes)

static void kernel_6_1(void)
{
	struct probe_plan pl;

	plan(&pl, "6.1", NULL, PROBE_WANT_BOTH, NULL);
	CHECK_EQ_STR(pl.unavail, "rpcrdma:svcrdma_read_finished,rpcrdma:svcrdma_wc_reply");
	/* the receive completion, where a request's server time starts */
	CHECK_EQ_U64(pl.sfld[PFLD_RC_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_RC_CID].off, 12);
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_read_finished missing (kernel < 6.12): 5.15 to 6.11 finish a "
		      "request's RDMA READs on the thread that posted them: nothing lost (5.4 and 5.10 do not, and "
		      "have no event for it)\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_reply missing (kernel < 6.12): Reply chunks complete as "
		      "svcrdma_wc_write there: nothing lost\n");
	HAS_NOTE(&pl, "kernel probe: sunrpc:rpc_stats_latency field xprt_id missing (kernel < 6.12): client records "
		      "do not name their transport");
	/* the caller is a sockaddr: the text field is not needed, and not a loss */
	NO_NOTE(&pl, "field client");
	NO_NOTE(&pl, "addr' text");
	CHECK_EQ_U64(pl.cfld[PFLD_SL_XPRT_ID].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.cfld[PFLD_SL_EXECUTE].off, 48);
	CHECK_EQ_U64(pl.cfld[PFLD_SL_EXECUTE].size, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_CLIENT].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_CLIENT].size, 4 | PROBE_FLD_DATALOC);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_ADDR].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.sfld[PFLD_WR_BYTES].off, 24);
	CHECK_EQ_U64(pl.sfld[PFLD_WP_CQ].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.sfld[PFLD_RF_CQ].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.sfld[PFLD_DR_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_DR_CID].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_WW_CID].off, 12);

	/* skipping an event this kernel does not have says what the kernel lacks */
	plan(&pl, "6.1", NULL, PROBE_WANT_SERVER, "svcrdma_wc_reply,rpcrdma:svcrdma_post_send");
	HAS_NOTE(&pl, "rpcrdma:svcrdma_wc_reply missing (kernel < 6.12)");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_post_send unavailable (skipped by configuration): records are "
		      "sent at svc_stats_latency, without reply times\n");
	CHECK(unavailable(&pl, "svcrdma_post_send") && !unavailable(&pl, "svcrdma_wc_send"), "%s", pl.unavail);
	/* the client side was not asked for: no word about it */
	NO_NOTE(&pl, "rpc_stats_latency");
}

static void kernel_6_12(void)
{
	struct probe_plan pl;

	plan(&pl, "6.12", NULL, PROBE_WANT_BOTH, NULL);
	CHECK_EQ_STR(pl.unavail, "");
	NO_NOTE(&pl, "missing");
	NO_NOTE(&pl, "unavailable");
	CHECK_EQ_U64(pl.cfld[PFLD_SL_XPRT_ID].off, 56);
	CHECK_EQ_U64(pl.cfld[PFLD_SL_XPRT_ID].size, 4);
	CHECK_EQ_U64(pl.sfld[PFLD_WP_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_WP_CID].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_RF_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_RF_CID].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_DR_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_RC_CQ].off, 8);
	CHECK_EQ_U64(pl.sfld[PFLD_RC_CID].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_CLIENT].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_WR_LATENCY].off, 16);
	CHECK_EQ_U64(pl.sfld[PFLD_WR_BYTES].off, 24);

	/* the events exist but are not used: what the records lose */
	plan(&pl, "6.12", NULL, PROBE_WANT_SERVER, "rpcrdma:svcrdma_wc_reply,svcrdma_read_finished");
	CHECK_EQ_STR(pl.unavail, "rpcrdma:svcrdma_read_finished,rpcrdma:svcrdma_wc_reply");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_read_finished unavailable (skipped by configuration): a request "
		      "with Read chunks resumes on another nfsd thread unseen: its record loses the receive, READ and "
		      "reply times and goes out at svc_stats_latency\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_reply unavailable (skipped by configuration): a Reply "
		      "chunk's push ends at the reply Send's completion instead\n");

	/* rpcrdma not loaded: every rpcrdma event says so, sunrpc ones work */
	plan(&pl, "6.12", "sunrpc", PROBE_WANT_BOTH, NULL);
	HAS_NOTE(&pl, "kernel probe: rpcrdma:xprtrdma_marshal unavailable (no such tracepoint; is the rpcrdma "
		      "module loaded?): no marshal time or header sizes\n");
	HAS_NOTE(&pl, "rpcrdma:svcrdma_wc_reply unavailable (no such tracepoint; is the rpcrdma module loaded?)");
	CHECK(!unavailable(&pl, "rpc_stats_latency") && !unavailable(&pl, "svc_stats_latency") &&
	      unavailable(&pl, "svcrdma_wc_send"), "%s", pl.unavail);
}

static void kernel_5_15(void)
{
	struct probe_plan pl;

	plan(&pl, "5.15", NULL, PROBE_WANT_BOTH, NULL);
	CHECK_EQ_STR(pl.unavail, "rpcrdma:xprtrdma_chunk_wp,rpcrdma:svcrdma_wc_recv,rpcrdma:svcrdma_read_finished,"
		     "rpcrdma:svcrdma_wc_reply,rpcrdma:svcrdma_wc_send_flush,rpcrdma:svcrdma_wc_send_err");
	/* 5.15's svcrdma_wc_send reports every Send completion, failed ones too */
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_send_flush missing (kernel < 6.1): svcrdma_wc_send reports "
		      "flushed Sends too: nothing lost\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_recv missing (kernel < 6.1): a request is timed as received "
		      "when an nfsd thread decodes it: the wait for a thread counts as network, not as the server's "
		      "queue\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:xprtrdma_chunk_wp missing (kernel < 6.1): those kernels add no "
		      "padding segment to a Write chunk: nothing lost\n");
	HAS_NOTE(&pl, "kernel probe: sunrpc:svc_stats_latency field client missing (kernel < 6.1): the caller "
		      "address is read from the 'addr' text instead (IPv4 only)\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_read field totalbytes missing (kernel < 6.1): no RDMA READ "
		      "byte counts\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_read field read_latency missing (kernel < 6.1): an RDMA READ "
		      "starts at its post");
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_CLIENT].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_ADDR].off, 28);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_ADDR].size, 4 | PROBE_FLD_DATALOC);
	CHECK_EQ_U64(pl.sfld[PFLD_SS2_EXECUTE].off, 16);
	CHECK_EQ_U64(pl.sfld[PFLD_WR_CID].off, 12);
	CHECK_EQ_U64(pl.sfld[PFLD_WR_BYTES].off, PROBE_FLD_NONE);
	CHECK_EQ_U64(pl.cfld[PFLD_CN_ADDR].off, 12);
}

/* Shapes no kernel has: a required field renamed or resized. */
static void misshapen(void)
{
	char root[PATH_MAX], cmd[8 * PATH_MAX];
	struct probe_plan pl;

	snprintf(root, sizeof(root), "/tmp/test_probe_plan.XXXXXX");
	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/events' && cp -r '%s/tests/probe/formats/6.1/sunrpc' '%s/tests/probe/formats/6.1/rpcrdma' "
		 "'%s/events/' && sed -i 's/ xid;/ xid_renamed;/' '%s/events/rpcrdma/xprtrdma_marshal/format' && "
		 "sed -i 's/offset:8;\tsize:4;/offset:8;\tsize:3;/' '%s/events/rpcrdma/svcrdma_wc_send/format'",
		 root, srcdir, srcdir, root, root, root);
	CHECK(system(cmd) == 0, "%s", cmd);
	probe_plan_build(&pl, root, PROBE_WANT_BOTH, NULL);
	drop_root(root);
	HAS_NOTE(&pl, "kernel probe: rpcrdma:xprtrdma_marshal unavailable (field xid absent): no marshal time or "
		      "header sizes\n");
	HAS_NOTE(&pl, "kernel probe: rpcrdma:svcrdma_wc_send unavailable (field cq_id has another type or size): "
		      "records are sent when the reply is posted");
	CHECK(unavailable(&pl, "xprtrdma_marshal") && unavailable(&pl, "svcrdma_wc_send") &&
	      !unavailable(&pl, "xprtrdma_reply"), "%s", pl.unavail);
}

int main(void)
{
	const char *top = getenv("NFSRDMA_SRCDIR");

	log_init("test_probe_plan", LOG_ERROR);  /* the notes are checked, not printed */
	if (!realpath(top ? top : ".", srcdir)) {
		CHECK(0, "source directory");
		return check_summary("probe_plan");
	}
	kernel_6_1();
	kernel_6_12();
	kernel_5_15();
	misshapen();
	/* every event's line names the version or what it costs */
	for (size_t i = 0; i < probe_ntps; i++)
		CHECK(probe_tps[i].without && *probe_tps[i].without, "%s: no text for its loss", probe_tps[i].event);
	return check_summary("probe_plan");
}
