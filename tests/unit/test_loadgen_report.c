/* The load generator's report (src/replay/loadgen_report.c): the --json
 * object (the target and names escaped, a result per run with a size, the
 * rates worked out here from the counts set, the server's and the
 * transport's members), the text table (a header, a row per run) and the
 * --svg plot (a point per run, on a new file, refused on a directory).
 * Closing line: "test_loadgen_report: N passed, N failed". */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/replay/loadgen_report.h"

static const struct xprt_ops rdma_ops = { .name = "rdma" };

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

int main(void)
{
	static struct lg_result res[3];
	struct xprt x = { .ops = &rdma_ops };
	x.st.inline_send = 4096;
	x.st.credits_granted = 128;
	x.st.lost = 2;
	const struct lg_label l = { .vers = "4.1", .op = "read", .xprt = "rdma", .qd = 8 };

	/* 4 KB: 1000 READs in 2 s, 4 MB; 1 ms CPU; 64 KB: 10 in 0.5 s; the
	 * third never ran (size 0: not reported) */
	res[0] = (struct lg_result){ .size = 4096, .ops = 1000, .bytes = 4000000, .secs = 2.0, .cpu_secs = 0.001,
				     .read_chunks = 0, .inline_calls = 1000, .doorbells = 990 };
	for (int i = 0; i < 1000; i++)
		lhist_add(&res[0].h, 100000);
	res[1] = (struct lg_result){ .size = 65536, .ops = 10, .bytes = 655360, .secs = 0.5, .read_chunks = 10,
				     .lost = 1 };
	lhist_add(&res[1].h, 2000000);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL, "memory stream");
	if (!f)
		return check_summary("test_loadgen_report");
	lg_print_json(f, "srv\"1", &l, res, 3, 1048576, 524288, &x);
	fclose(f);
	CHECK(len > 2 && buf[len - 1] == '\n' && !memchr(buf, '\n', len - 1), "one line: %s", buf);
	CHECK(check_json_balanced(buf), "balanced: %s", buf);
	static const char head[] = "{\"target\":\"srv\\\"1\",\"vers\":\"4.1\",\"results\":[{\"op\":\"read\","
				   "\"transport\":\"rdma\",\"size\":4096,\"qd\":8,\"ops\":1000,\"bytes\":4000000,"
				   "\"errors\":0,\"lost\":0,\"seconds\":2.000,\"iops\":500.0,\"mb_per_s\":2.000,"
				   "\"latency\":{\"min_ns\":100000,";
	CHECK(!strncmp(buf, head, sizeof(head) - 1), "first result's head: %s", buf);
	/* 1 ms of CPU over 4 MB: 0.250 ms/MB; 1 us per op */
	CHECK(strstr(buf, "\"cpu_ms_per_mb\":0.250,\"cpu_us_per_op\":1.00,\"chunks\":{\"read\":0,\"write\":0,"
			  "\"reply\":0,\"inline_calls\":1000},\"xprt\":{\"doorbells\":990,") != NULL,
	      "cpu and chunks: %s", buf);
	CHECK(strstr(buf, "},{\"op\":\"read\",\"transport\":\"rdma\",\"size\":65536,\"qd\":8,\"ops\":10,"
			  "\"bytes\":655360,\"errors\":0,\"lost\":1,\"seconds\":0.500,\"iops\":20.0,"
			  "\"mb_per_s\":1.311,") != NULL, "second result: %s", buf);
	CHECK(count(buf, "{\"op\":") == 2, "two results (the size-0 run left out)");
	CHECK(strstr(buf, "\"latency\":{\"min_ns\":100000,\"p50_ns\":") && strstr(buf, "\"p999_ns\":") &&
		      strstr(buf, ",\"mean_ns\":100000}"), "latency members");
	CHECK(strstr(buf, "],\"server\":{\"rtmax\":1048576,\"wtmax\":524288},\"transport\":{\"name\":\"rdma\","
			  "\"inline_send\":4096,\"inline_recv\":0,\"credits_asked\":0,\"credits_granted\":128,"
			  "\"reconnects\":0,\"rdma_errors\":0,\"lost\":2}}\n") != NULL, "server and transport: %s", buf);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		lg_print_row(&l, &res[0], f, true);
		lg_print_row(&l, &res[1], f, false);
		fclose(f);
		CHECK(count(buf, "\n") == 3 && !strncmp(buf, "op ", 3), "header and two rows: %s", buf);
		CHECK(strstr(buf, "\nread        rdma     4096   8      1000       500      2.00") != NULL,
		      "the 4 KB row: %s", buf);
		free(buf);
	}

	char dir[] = "/tmp/lgrep.XXXXXX", path[64];
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/plot.svg", dir);
	CHECK(lg_write_svg(path, &l, res, 2) == 0, "svg written");
	FILE *s = fopen(path, "r");
	char svg[8192] = "";
	if (s) {
		size_t n = fread(svg, 1, sizeof(svg) - 1, s);
		svg[n] = 0;
		fclose(s);
	}
	CHECK(strstr(svg, "NFSv4.1 read over rdma, QD 8: throughput vs transfer size") != NULL, "svg title");
	CHECK(count(svg, "<circle ") == 2 && strstr(svg, ">4096</text>") && strstr(svg, ">65536</text>"),
	      "a point per run, labelled by size");
	CHECK(lg_write_svg(dir, &l, res, 2) < 0, "a directory is refused as the plot's path");
	unlink(path);
	rmdir(dir);
	return check_summary("test_loadgen_report");
}
