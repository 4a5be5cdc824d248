/* The replay's whole --json report (src/replay/replay_report_json.c) from
 * an engine this test fills: one line, braces balanced, strings escaped,
 * and the members docs/replay.md lists with the values set here; an NFSv4.0
 * run's "nfs4" object and a trace with no calls too.  With an argument,
 * every report is also written to that file, a line each
 * (tests/unit/replay_report_whole.sh gives them to python's json module).  Closing line:
 * "test_replay_report_whole: N passed, N failed". */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/replay/replay.h"
#include "src/replay/replay_engine.h"

static const struct xprt_ops tcp_ops = { .name = "tcp" };

static FILE *keep;   /* argv[1]: every report, a line each */

static char *render(struct engine *e, double secs, int rc)
{
	char *buf = NULL;
	size_t len = 0;
	e->out = open_memstream(&buf, &len);
	if (!e->out)
		return NULL;
	if (rc == INT32_MIN)
		replay_report_no_calls(e);
	else
		replay_report(e, secs, rc);
	fclose(e->out);
	if (keep && buf)
		fputs(buf, keep);
	return buf;
}

static void has(const char *buf, const char *want)
{
	CHECK(strstr(buf, want) != NULL, "report has %s", want);
}

int main(int argc, char **argv)
{
	static struct engine eng;
	static struct rclient cl[2];
	static struct tclient tcl[2];
	static struct xprt x;
	struct engine *e = &eng;
	struct replay_opts o = { .trace = "dir/a \"quoted\".pcap", .target = "srv", .json = true, .speed = 1 };

	x.ops = &tcp_ops;
	x.st.calls = 40;
	x.st.replies = 39;
	x.st.reconnects = 1;
	struct xprt *xs[1] = { &x };
	e->o = &o;
	e->xs = xs;
	e->nxs = 1;
	e->drops = 1;
	snprintf(e->t.export_path, sizeof(e->t.export_path), "/export");
	e->t.clients = tcl;
	e->t.nclients = 2;
	snprintf(tcl[0].label, sizeof(tcl[0].label), "10.9.0.2 NFSv4.1");
	tcl[0].vers = 4;
	tcl[0].minor = 1;
	snprintf(tcl[1].label, sizeof(tcl[1].label), "10.9.0.3 NFSv3");
	tcl[1].vers = 3;
	e->cl = cl;
	cl[0].v4 = true;
	cl[0].trace = 30;
	cl[0].replayed = 29;
	cl[0].ok = 28;
	cl[0].mismatch = 1;
	cl[0].nx = 1;
	cl[0].s.minor = 1;
	cl[0].s.back_channel = true;
	cl[0].cb.calls = 2;
	cl[0].cb.recalls = 1;
	lhist_add(&cl[0].lat, 1000);
	lhist_add(&cl[0].issue, 5000);
	cl[1].trace = 10;
	cl[1].replayed = 10;
	cl[1].ok = 10;
	cl[1].nx = 1;
	e->v4 = true;
	e->v4s = &cl[0].s;
	e->conn_bound = 1;
	e->bind_dir = NFS4_CDFS4_BOTH;
	e->nrows = 2;
	snprintf(e->rowname[0], sizeof(e->rowname[0]), "NFSv4.1 READ");
	snprintf(e->rowname[1], sizeof(e->rowname[1]), "NFSv3 GETATTR");
	e->op[0].trace = 30;
	e->op[0].replayed = 29;
	e->op[0].bytes = 65536;
	e->op[1].trace = 10;
	e->op[1].ok = 10;
	e->op[REPLAY_OTHER].trace = 1;
	lhist_add(&e->op[0].lat, 2000);
	lhist_add(&e->op[0].lat, 4000);
	e->nmm = 1;
	e->mm[0] = (struct mismatch){ .xid = 0xabc, .frame = 77, .trpc = 0, .tstat = 0, .rpc = 0, .stat = 2 };
	snprintf(e->mm[0].name, sizeof(e->mm[0].name), "NFSv4.1 READ");
	e->bytes_read = 65536;
	e->sent = 40;

	if (argc > 1)
		keep = fopen(argv[1], "w");
	char *buf = render(e, 2.0, 0);
	CHECK(buf != NULL, "rendered");
	if (!buf)
		return check_summary("test_replay_report_whole");
	size_t n = strlen(buf);
	CHECK(n > 2 && buf[n - 1] == '\n' && !memchr(buf, '\n', n - 1), "one line, newline-ended");
	CHECK(check_json_balanced(buf), "braces and brackets balanced: %s", buf);
	has(buf, "{\"trace\":\"dir/a \\\"quoted\\\".pcap\",\"target\":\"srv\",\"transport\":\"tcp\","
		 "\"export\":\"/export\",\"exit\":0,\"seconds\":2.000,\"calls_per_s\":20.0,\"mb_per_s\":0.033,"
		 "\"bytes_read\":65536,\"bytes_written\":0,\"idle_cut\":null,");
	has(buf, "\"totals\":{\"trace\":41,\"replayed\":29,\"same_status\":10,");
	has(buf, "\"clients\":[{\"client\":1,\"label\":\"10.9.0.2 NFSv4.1\",\"vers\":4,\"minor\":1,"
		 "\"trace\":30,\"replayed\":29,\"same_status\":28,\"mismatches\":1,");
	has(buf, "\"callbacks\":{\"served\":true,\"calls\":2,\"recalls\":1}");
	has(buf, "{\"client\":2,\"label\":\"10.9.0.3 NFSv3\",\"vers\":3,\"minor\":0,");
	has(buf, "\"transport_stats\":{\"calls\":40,\"replies\":39,\"lost\":0,\"reconnects\":1,"
		 "\"dropped_on_request\":1,");
	has(buf, "\"nfs4\":{\"minor\":1,");
	has(buf, "\"back_channel\":true,\"callbacks\":2,\"delegations_recalled\":1,");
	has(buf, "\"connections_bound\":1,\"connection_binds_failed\":0,\"bound_dir\":\"both\"}");
	/* rows sorted by name, "other" last */
	const char *g = strstr(buf, "{\"op\":\"NFSv3 GETATTR\""), *r = strstr(buf, "{\"op\":\"NFSv4.1 READ\""),
		   *oth = strstr(buf, "{\"op\":\"other\"");
	CHECK(g && r && oth && g < r && r < oth, "ops by name, other last");
	has(buf, "{\"op\":\"NFSv4.1 READ\",\"trace\":30,\"replayed\":29,");
	has(buf, "\"bytes\":65536,\"chunks\":{\"read\":0,\"write\":0,\"reply\":0},\"latency\":{\"p50_ns\":");
	has(buf, "\"mismatches\":[{\"xid\":\"0x00000abc\",\"frame\":77,\"op\":\"NFSv4.1 READ\",\"trace_rpc\":0,"
		 "\"trace_status\":0,\"replay_rpc\":0,\"replay_status\":2,\"error\":0}]}\n");
	has(buf, "\"cross_client\":{\"deps\":0,\"held\":0},\"issue\":{\"calls\":1,\"early\":0,");
	has(buf, "\"holds\":{\"dep\":{\"calls\":0,");
	has(buf, "\"issue_with_holds\":null,\"issue_parts\":{\"due_to_taken\":{");
	has(buf, "\"cpu_wait_ns\":0},\"blocking\":{\"setup\":{\"n\":0,");
	free(buf);

	/* NFSv4.0: its own "nfs4" object */
	cl[0].s.minor = 0;
	cl[0].s.back_channel = false;
	e->v4s->lease_s = 90;
	e->v40_renews = 3;
	o.max_idle_ns = 500000000;   /* --max-idle 0.5 */
	e->idle = (struct trace_idle_cut){ .stretches = 2, .removed_ns = 4997000000ull };
	buf = render(e, 0, 2);
	CHECK(buf && check_json_balanced(buf), "4.0 report balanced");
	if (buf) {
		/* a run that lost calls (2) exits REPLAY_EXIT_LOST */
		char want[128];
		snprintf(want, sizeof(want), "\"exit\":%d,\"seconds\":0.000,\"calls_per_s\":0.0,"
			 "\"mb_per_s\":0.000,", REPLAY_EXIT_LOST);
		has(buf, want);
		has(buf, "\"nfs4\":{\"minor\":0,\"own_clients\":0,\"owners\":0,\"seqid_errors\":0,"
			 "\"confirms_added\":0,\"confirms_dropped\":0,\"renews\":3,\"lease_s\":90,");
		has(buf, "\"callback_server\":false,");
		has(buf, "\"bytes_written\":0,\"idle_cut\":{\"max_idle_ns\":500000000,\"stretches\":2,"
			 "\"removed_ns\":4997000000},\"totals\":");
		has(buf, "\"callback_connections_refused\":0},\"ops\":[");
		free(buf);
	}

	/* no call in the trace: what the capture held */
	e->t.frames = 12;
	e->t.net_msgs = 3;
	e->t.rpcrdma_v2 = 1;
	char *nb = render(e, 0, INT32_MIN);
	if (nb) {
		CHECK(!strcmp(nb, "{\"type\":\"no_calls\",\"trace\":\"dir/a \\\"quoted\\\".pcap\",\"packets\":12,"
				       "\"rpcrdma_v1\":0,\"rpc_tcp_udp\":3,\"other_program_calls\":0,\"long_calls\":0,"
				       "\"undecodable\":0,\"not_rpcrdma\":0,\"rpcrdma_v2\":1}\n"),
		      "no-calls object: %s", nb ? nb : "(none)");
		free(nb);
	}
	if (keep)
		fclose(keep);
	return check_summary("test_replay_report_whole");
}
