/* A row's latency split keeps which phases its RPCs had (absent is not
 * zero): from the records through the aggregation (operation rows, and
 * the client rows added up from their series), over the control
 * protocol's R and RP lines, into nfsrdma-top's batch text ('-') and
 * JSON (null).  The phases a row had still add up to its total. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dissect/record.h"
#include "src/stats/agg.h"
#include "src/stats/ctl_proto.h"
#include "src/top/top_view.h"

#define MS 1000000ull

/* An NFSv3 procedure from 10.0.0.2 to 10.0.0.1 at t0 with the times its
 * transport has (0: not seen; reply_ms 0: no reply). */
static void rec(struct nfsrdma_record *r, uint32_t xid, uint32_t proc, unsigned tr, uint64_t t0, uint64_t write_ms,
		uint64_t reply_ms)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_WIRE;
	r->transport = (uint8_t)tr;
	r->flags = RECF_CALL | (reply_ms ? RECF_REPLY : 0);
	r->xid = xid;
	r->prog = 100003;
	r->vers = 3;
	r->proc = proc;
	r->caller.family = r->callee.family = 4;
	r->caller.addr[0] = r->callee.addr[0] = 10;
	r->caller.addr[3] = 2;
	r->callee.addr[3] = 1;
	r->t_call_first = t0;
	r->t_call_last = t0 + MS / 2;
	if (write_ms)
		r->t_write_first = r->t_write_last = t0 + write_ms * MS;
	if (reply_ms) {
		r->t_reply_first = t0 + reply_ms * MS;
		r->t_reply_last = r->t_reply_first + MS / 4;
	}
	rec_derive(r);
}

static const struct agg_row *row(const struct agg_snap *s, enum agg_dim d, const char *key)
{
	for (size_t i = 0; i < s->nrows[d]; i++)
		if (!strcmp(s->rows[d][i].key, key))
			return &s->rows[d][i];
	return NULL;
}

/* The phases a row had add up to its summed total; an absent one is 0. */
static int partitions(const struct agg_row *r)
{
	uint64_t sum = 0;
	for (int p = 0; p < PH_N; p++) {
		if (!(r->phase_mask & 1u << p) && r->tot.phase_sum[p])
			return 0;
		sum += r->tot.phase_sum[p];
	}
	return sum == r->tot.lat_sum;
}

/* The split% field ("a/b/.../h") of key's line in top's batch text. */
static int split_field(const char *text, const char *key, char *out, size_t len)
{
	const char *l = text;
	size_t kl = strlen(key);
	for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) || l[kl] != ' ')
			continue;
		const char *end = strchr(l, '\n');
		for (const char *t = l + kl; t < end;) {
			while (t < end && *t == ' ')
				t++;
			const char *te = t;
			int slashes = 0;
			while (te < end && *te != ' ')
				slashes += *te++ == '/';
			if (slashes == PH_N - 1 && (size_t)(te - t) < len) {
				memcpy(out, t, (size_t)(te - t));
				out[te - t] = 0;
				return 1;
			}
			t = te;
		}
	}
	return 0;
}

/* The split_ns object of key's row in top's batch JSON. */
static int split_json(const char *json, const char *key, char *out, size_t len)
{
	char k[96];
	snprintf(k, sizeof(k), "{\"key\":\"%s\"", key);
	const char *p = strstr(json, k), *b, *e;
	if (!p || !(b = strstr(p, "\"split_ns\":{")) || !(e = strchr(b, '}')) || (size_t)(e - b) >= len)
		return 0;
	memcpy(out, b, (size_t)(e - b + 1));
	out[e - b + 1] = 0;
	return 1;
}

/* The split field of one row, phase by phase: '-' where mask has no bit. */
static int split_matches(const char *field, uint32_t mask)
{
	const char *p = field;
	for (int ph = 0; ph < PH_N; ph++) {
		size_t n = strcspn(p, "/");
		int dash = n == 1 && *p == '-';
		if (dash == !!(mask & 1u << ph))
			return 0;
		p += n + (p[n] == '/');
	}
	return 1;
}

static int json_matches(const char *obj, uint32_t mask)
{
	for (int ph = 0; ph < PH_N; ph++) {
		char k[48];
		snprintf(k, sizeof(k), "\"%s\":", rec_phase_name(ph));
		const char *v = strstr(obj, k);
		if (!v)
			return 0;
		v += strlen(k);
		if (!strncmp(v, "null", 4) == !!(mask & 1u << ph))
			return 0;
	}
	return 1;
}

static int read_all(char *buf, struct agg_snap *out, char *err, size_t errlen)
{
	struct ctl_reader rd = { { 0 } };
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (char *line = strtok(buf, "\n"); line && (rc = ctl_read_line(&rd, out, line, err, errlen)) == 0;)
		line = strtok(NULL, "\n");
	return rc;
}

int main(void)
{
	struct agg *a = agg_new(&(struct agg_config){ 0 });
	struct nfsrdma_record r;
	const uint64_t t0 = 1700000000000000000ull;
	const uint32_t tcp_mask = 1u << REC_PH_CALL | 1u << REC_PH_QUEUE_SERVER | 1u << REC_PH_REPLY;
	const uint32_t push_mask = tcp_mask | 1u << REC_PH_PUSH | 1u << REC_PH_WAIT;

	CHECK(a != NULL, "agg_new");
	/* GETATTR over TCP: call, queue+server, reply */
	rec(&r, 0x100, 1, REC_TR_TCP, t0, 0, 7);
	agg_add(a, &r, 0);
	/* READ over RDMA, one pushed (Write chunk) and one inline */
	rec(&r, 0x200, 6, REC_TR_RDMA, t0 + MS, 3, 9);
	agg_add(a, &r, 0);
	rec(&r, 0x201, 6, REC_TR_RDMA, t0 + 2 * MS, 0, 4);
	agg_add(a, &r, 0);
	/* NULL over RDMA that was never answered: no phase at all */
	rec(&r, 0x300, 0, REC_TR_RDMA, t0 + 3 * MS, 0, 0);
	agg_add(a, &r, 0);

	struct agg_snap s = { 0 };
	CHECK(agg_snapshot(a, 0, &s) == 0, "snapshot");
	const struct agg_row *getattr = row(&s, AGG_OP, "NFSv3 GETATTR tcp"), *read = row(&s, AGG_OP, "NFSv3 READ"),
			     *null = row(&s, AGG_OP, "NFSv3 NULL");
	CHECK(getattr && getattr->phase_mask == tcp_mask, "GETATTR tcp: call, queue+server, reply (0x%x)",
	      getattr ? getattr->phase_mask : 0);
	CHECK(read && read->phase_mask == push_mask, "READ: the pushed one's push and wait too (0x%x)",
	      read ? read->phase_mask : 0);
	CHECK(null && null->phase_mask == 0, "NULL unanswered: no phase (0x%x)", null ? null->phase_mask : 0);
	CHECK(getattr && partitions(getattr), "GETATTR: its phases add up to its total");
	CHECK(read && partitions(read), "READ: its phases add up to its total");
	CHECK(read && read->tot.lat_n == 2 && read->tot.phase_sum[REC_PH_WAIT] == 6 * MS,
	      "READ: wait over the one pushed RPC only (last WRITE 3 ms .. reply 9 ms)");
	/* client rows are their series added up (agg_snap.c, folds) */
	const struct agg_row *ctcp = row(&s, AGG_CLIENT, "10.0.0.2 tcp"), *crdma = row(&s, AGG_CLIENT, "10.0.0.2");
	CHECK(ctcp && ctcp->phase_mask == tcp_mask, "client tcp row: its series' phases (0x%x)",
	      ctcp ? ctcp->phase_mask : 0);
	CHECK(crdma && crdma->phase_mask == push_mask, "client rdma row: its series' phases (0x%x)",
	      crdma ? crdma->phase_mask : 0);
	const struct agg_row *srdma = row(&s, AGG_SERVER, "10.0.0.1");
	CHECK(srdma && srdma->phase_mask == push_mask && partitions(srdma), "server rdma row: phases, partition");

	/* batch text: '-' for a phase the row never had, a number for the rest */
	struct top_view v = { .dim = AGG_OP, .sort = SORT_KEY, .transport = -1 };
	struct fsplit_snap fs = { 0 };   /* no fused split: wire records only */
	char *txt = NULL, *js = NULL, field[128], obj[512];
	size_t tl = 0, jl = 0;
	FILE *mf = open_memstream(&txt, &tl);
	top_batch_text(mf, &s, &fs, &v, "test");
	fclose(mf);
	CHECK(split_field(txt, "NFSv3 GETATTR tcp", field, sizeof(field)) && split_matches(field, tcp_mask),
	      "text: GETATTR tcp's split has '-' for queue, pull, server, push, wait (%s)", field);
	CHECK(split_field(txt, "NFSv3 READ", field, sizeof(field)) && split_matches(field, push_mask),
	      "text: READ's split has '-' for queue, pull, server (%s)", field);
	CHECK(split_field(txt, "NFSv3 NULL", field, sizeof(field)) && !strcmp(field, "-/-/-/-/-/-/-/-"),
	      "text: unanswered NULL's split is all '-' (%s)", field);
	free(txt);

	/* batch JSON: null for those phases, as nfsrdma-dissect --json */
	mf = open_memstream(&js, &jl);
	top_batch_json(mf, &s, &fs, &v, "test");
	fclose(mf);
	CHECK(split_json(js, "NFSv3 GETATTR tcp", obj, sizeof(obj)) && json_matches(obj, tcp_mask),
	      "json: GETATTR tcp's split_ns null where absent (%s)", obj);
	CHECK(split_json(js, "NFSv3 READ", obj, sizeof(obj)) && json_matches(obj, push_mask),
	      "json: READ's split_ns null where absent (%s)", obj);
	CHECK(split_json(js, "NFSv3 NULL", obj, sizeof(obj)) && json_matches(obj, 0),
	      "json: unanswered NULL's split_ns all null (%s)", obj);
	free(js);

	/* the wire: every R line has its RP line, and the masks come back */
	char *buf = NULL;
	size_t len = 0;
	mf = open_memstream(&buf, &len);
	ctl_write_snap(mf, &s);
	fclose(mf);
	CHECK(strstr(buf, "\nRP\top\tNFSv3 GETATTR tcp\t" ) != NULL, "RP line of GETATTR tcp");
	char err[128] = "";
	struct agg_snap b;
	int rc = read_all(buf, &b, err, sizeof(err));
	CHECK(rc == 1, "round trip ends at END (%d %s)", rc, rc < 0 ? err : "");
	int same = 1;
	for (int d = 0; d < AGG_NDIM; d++) {
		same &= b.nrows[d] == s.nrows[d];
		for (size_t i = 0; same && i < s.nrows[d]; i++)
			same &= b.rows[d][i].phase_mask == s.rows[d][i].phase_mask;
	}
	CHECK(same, "round trip keeps every row's mask");
	agg_snap_free(&b);
	free(buf);

	/* a daemon before 2.3: R lines alone, every phase taken as seen */
	char old[512];
	snprintf(old, sizeof(old), "R\top\tNFSv3 NULL%s\t0.0\t0.0\t0.0\t0\t0\t0\t0\t0\t0\t0%s\t0\nEND\n",
		 "\t1\t1\t1\t0\t0\t0\t0\t0\t1\t0\t0\t0\t0\t5\t0\t0\t0\t0\t0\t0\t0\t5\t1",
		 "\t5\t0\t0\t0\t0\t0\t0\t0");
	rc = read_all(old, &b, err, sizeof(err));
	CHECK(rc == 1 && b.nrows[AGG_OP] == 1 && b.rows[AGG_OP][0].phase_mask == AGG_SLOW_ALL_PHASES,
	      "2.2 R line alone: all phases (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);

	/* RP lines that do not fit are refused, one error each */
	char rline[512];
	snprintf(rline, sizeof(rline), "R\top\tk%s\t0.0\t0.0\t0.0\t0\t0\t0\t0\t0\t0\t0%s\t0\n",
		 "\t1\t1\t1\t0\t0\t0\t0\t0\t1\t0\t0\t0\t0\t5\t0\t0\t0\t0\t0\t0\t0\t5\t1", "\t5\t0\t0\t0\t0\t0\t0\t0");
	const char *const badrp[] = {
		"RP\top\tk\t1\n",     /* no R before it */
		"RP\top\tj\t1\n",     /* another key */
		"RP\tclient\tk\t1\n", /* another dimension */
		"RP\tnope\tk\t1\n",   /* no such dimension */
		"RP\top\tk\t256\n",   /* a ninth phase */
		"RP\top\tk\n",        /* no mask */
		"RP\top\tk\tx\n",     /* not a number */
	};
	for (size_t i = 0; i < sizeof(badrp) / sizeof(badrp[0]); i++) {
		char in[1024];
		snprintf(in, sizeof(in), "%s%s", i ? rline : "", badrp[i]);
		err[0] = 0;
		rc = read_all(in, &b, err, sizeof(err));
		CHECK(rc == -EPROTO && strstr(err, "row phases"), "bad RP %zu refused (%d %s)", i, rc, err);
		agg_snap_free(&b);
	}

	agg_snap_free(&s);
	agg_free(a);
	return check_summary("top-phase-mask");
}
