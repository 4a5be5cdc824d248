/* Records back from JSON Lines: the version 3 lines the build before
 * version 4 wrote (tests/join/fixtures, kept from that build) read back
 * and written again byte for byte; version 4 vantage fields survive a
 * round trip; hostile lines are refused with the byte they broke at. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/join/rec_json.h"
#include "src/out/out.h"

static void fixture_round_trip(void)
{
	const char *path = "tests/join/fixtures/v3-wire-nfs3-read-write.jsonl";
	FILE *f = fopen(path, "r");
	char *line = NULL, err[200];
	size_t cap = 0;
	ssize_t n;
	unsigned lines = 0, same = 0;
	struct nfsrdma_record r;

	CHECK(f != NULL, "%s readable", path);
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		lines++;
		int rc = rec_json_parse(line, (size_t)n, &r, err, sizeof(err));
		if (rc != 0) {
			CHECK(rc == 0, "line %u: %s", lines, err);
			continue;
		}
		char *out = NULL;
		size_t olen = 0;
		FILE *m = open_memstream(&out, &olen);
		out_json(m, &r);
		fclose(m);
		if (olen == (size_t)n && !memcmp(out, line, olen))
			same++;
		else
			fprintf(stderr, "line %u differs:\n%s%.*s", lines, line, (int)olen, out);
		free(out);
	}
	free(line);
	fclose(f);
	CHECK(lines >= 30, "fixture has %u lines", lines);
	CHECK_EQ_U64(same, lines);
}

static void v4_round_trip(void)
{
	struct nfsrdma_record a, b;
	char err[200];

	memset(&a, 0, sizeof(a));
	a.rec_version = NFSRDMA_RECORD_VERSION;
	a.source = REC_SRC_SERVER_PROBE;
	a.vantages = REC_VT_SERVER;
	a.xid = 0xdeadbeef;
	a.status = REC_STATUS_NONE;
	a.call_rdma_proc = a.reply_rdma_proc = 0xff;
	for (unsigned i = 0; i < RST_N; i++)
		a.vt_server[i] = 1000000000ull + i * 1000;
	a.k_exec_us = 7;
	a.caller.family = 6;
	a.caller.addr[15] = 1;
	char *out = NULL;
	size_t olen = 0;
	FILE *m = open_memstream(&out, &olen);
	out_json(m, &a);
	fclose(m);
	CHECK(rec_json_parse(out, olen, &b, err, sizeof(err)) == 0, "v4 server record back: %s", err);
	CHECK_EQ_U64(b.vantages, REC_VT_SERVER);
	CHECK_EQ_U64(b.xid, 0xdeadbeef);
	CHECK_EQ_U64(b.k_exec_us, 7);
	CHECK_EQ_U64(b.caller.family, 6);
	CHECK(!memcmp(a.vt_server, b.vt_server, sizeof(a.vt_server)), "every server time back");
	free(out);
}

static void hostile(void)
{
	struct nfsrdma_record r;
	char err[200];
	static const struct { const char *line; const char *why; } bad[] = {
		{ "", "not a JSON object" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"v\":3,\"source\":\"wire\",\"xid\":\"0x1\"", "the line ends inside" },
		{ "{\"v\":99,\"source\":\"wire\"}", "record version" },
		{ "{\"v\":3,\"source\":\"moon\"}", "unknown source" },
		{ "{\"v\":3,\"source\":\"wire\",\"xid\":\"0xzz\"}", "bad xid" },
		{ "{\"v\":3,\"source\":\"wire\",\"caller\":{\"addr\":\"10.9.0.300\"}}", "bad address" },
		{ "{\"v\":3,\"source\":\"wire\",\"ts\":{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{}}}}}}}", "nested too deep" },
		{ "{\"v\":3,\"source\":\"wire\"} x", "trailing" },
		{ "{\"source\":\"wire\"}", "not a record" },
		{ "{\"v\":3,\"source\":\"wire\",\"flags\":\"3\"}", "a number expected" },
		/* a line cut inside a string, its newline still on: the missing
		 * quote named, not the newline as a control character */
		{ "{\"v\":3,\"source\":\"wi\n", "an unterminated string" },
		{ "{\"v\":3,\"source\":\"wi\tre\"}", "a control character in a string" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		int rc = rec_json_parse(bad[i].line, strlen(bad[i].line), &r, err, sizeof(err));
		CHECK(rc == -EINVAL && strstr(err, bad[i].why) && !strncmp(err, "byte ", 5),
		      "\"%s\": rc %d, \"%s\" (want \"%s\")", bad[i].line, rc, err, bad[i].why);
	}
	/* lines that are JSON but not records: skipped, not errors */
	const char *sum = "{\"type\":\"summary\",\"by\":\"proc\"}";
	CHECK(rec_json_parse(sum, strlen(sum), &r, err, sizeof(err)) == 1,
	      "a summary line is not a record");
}

int main(void)
{
	fixture_round_trip();
	v4_round_trip();
	hostile();
	return check_summary("rec-json");
}
