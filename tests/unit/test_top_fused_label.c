/* Each row of nfsrdma-top's fused split reads a label of its own: one key
 * has a row per shape (vantages, and which phases a missing vantage
 * merged), so two client+wire rows of NFSv3 WRITE, one with the server's
 * phases merged into one span (no RDMA READ seen), one with only execute
 * and reply_build merged (the wire saw the pull), used to read the same
 * "NFSv3 WRITE client+wire" in -b --fused.  The rows are hand-built;
 * the expected labels are written out. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "src/base/json.h"
#include "src/top/top_fused.h"

#define B(p) (1u << (p))

static void row(struct fsplit_row *r, unsigned vt, uint32_t merged, uint64_t n)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->key, sizeof(r->key), "NFSv3 WRITE");
	r->dim = AGG_OP;
	r->transport = REC_TR_RDMA;
	r->vantages = (uint8_t)vt;
	r->merged = merged;
	r->mask = (1u << REC_FP_N) - 1;
	r->n = n;
	r->sum = n * 1000000;
	r->p50 = r->p99 = r->max = 1000000;
	r->tail_n = 1;
	r->tail_sum = 1000000;
	r->phase[REC_FP_NET_OUT] = r->sum;
	r->tail[REC_FP_NET_OUT] = r->tail_sum;
}

/* The label of each row line of the text: what comes before the RPC
 * count, its runs of blanks made one. */
static unsigned labels(const char *text, char out[][128], unsigned max)
{
	const char *hdr = strstr(text, "\nOPERATION ");
	unsigned k = 0;

	if (!hdr)
		return 0;
	size_t col = (size_t)(strstr(hdr, "rpcs") - hdr - 1) - 4;   /* the count is right-aligned under "rpcs" (8 wide) */
	for (const char *l = strchr(hdr + 1, '\n'); l && l[1] && l[1] != '\n' && k < max; l = strchr(l + 1, '\n')) {
		size_t o = 0;
		for (size_t i = 1; i <= col && l[i] && l[i] != '\n' && o + 1 < sizeof(out[0]); i++)
			if (l[i] != ' ' || (o && out[k][o - 1] != ' '))
				out[k][o++] = l[i];
		while (o && out[k][o - 1] == ' ')
			o--;
		out[k++][o] = 0;
	}
	return k;
}

int main(void)
{
	struct fsplit_row rows[3];
	row(&rows[0], REC_VT_CLIENT | REC_VT_WIRE | REC_VT_SERVER, 0, 48);
	row(&rows[1], REC_VT_CLIENT | REC_VT_WIRE, B(REC_FP_SERVER_QUEUE) | B(REC_FP_PULL) | B(REC_FP_EXECUTE), 5);
	row(&rows[2], REC_VT_CLIENT | REC_VT_WIRE, B(REC_FP_EXECUTE), 4);
	struct fsplit_snap fs = { .have = true, .rpcs = 57, .n = 3, .rows = rows };
	struct top_view v = { .dim = AGG_OP, .transport = -1 };

	char text[8192] = "";
	FILE *f = fmemopen(text, sizeof(text) - 1, "w");
	CHECK(f != NULL, "fmemopen");
	if (!f)
		return check_summary("top_fused_label");
	top_fused_text(f, &fs, &v);
	fclose(f);
	char lab[8][128];
	unsigned k = labels(text, lab, 8);
	CHECK(k == 3, "%u row lines in:\n%s", k, text);
	if (k == 3) {
		CHECK_EQ_STR(lab[0], "NFSv3 WRITE client+wire+server");
		CHECK_EQ_STR(lab[1], "NFSv3 WRITE client+wire [sq+pul+exe+rb]");
		CHECK_EQ_STR(lab[2], "NFSv3 WRITE client+wire [exe+rb]");
		CHECK(strcmp(lab[1], lab[2]) != 0, "two rows read \"%s\"", lab[1]);
	}

	/* --json: the merged spans by name, so the rows differ there too */
	char json[8192] = "";
	f = fmemopen(json, sizeof(json) - 1, "w");
	if (f) {
		struct jw w;
		jw_init(&w, f);
		top_fused_json(&w, &fs, &v);
		jw_flush(&w);
		fclose(f);
	}
	CHECK(strstr(json, "\"vantages\":[\"client\",\"wire\"],\"merged\":[\"server_queue+pull+execute+reply_build\"]") != NULL,
	      "JSON, server's phases merged: %.300s", json);
	CHECK(strstr(json, "\"vantages\":[\"client\",\"wire\"],\"merged\":[\"execute+reply_build\"]") != NULL,
	      "JSON, execute merged: %.300s", json);
	CHECK(strstr(json, "\"vantages\":[\"client\",\"wire\",\"server\"],\"merged\":[]") != NULL,
	      "JSON, nothing merged: %.300s", json);
	return check_summary("top_fused_label");
}
