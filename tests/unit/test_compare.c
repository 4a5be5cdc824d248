/* --compare's transport facts (src/out/compare.c, compare_xprt.c) on
 * records built here: the chunk mix, message types, inline sizes,
 * credits, Reply chunk use, the largest inline message per direction and
 * the versions of each side are worked out by hand from what the records
 * hold, and compared with the counts, the text rows and the JSON. */
#include <stdlib.h>

#include "check.h"
#include "src/out/compare.h"

enum { NFS = 100003, READ = 6, WRITE = 7, READDIR = 16 };

static struct nfsrdma_record rec(uint32_t proc, uint32_t flags)
{
	struct nfsrdma_record r;

	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_WIRE;
	r.rdma_vers = 1;
	r.prog = NFS;
	r.vers = 3;
	r.proc = proc;
	r.flags = flags;
	r.transport = REC_TR_RDMA;
	r.call_rdma_proc = 0xff;
	r.reply_rdma_proc = 0xff;
	return r;
}

static void call(struct nfsrdma_record *r, uint8_t proc, uint32_t inl, uint16_t credits)
{
	r->flags |= RECF_CALL;
	r->call_rdma_proc = proc;
	r->call_inline = inl;
	r->call_hdr = 28;
	r->credits_asked = credits;
}

static void reply(struct nfsrdma_record *r, uint8_t proc, uint32_t inl, uint16_t credits)
{
	r->flags |= RECF_REPLY;
	r->reply_rdma_proc = proc;
	r->reply_inline = inl;
	r->reply_hdr = 28;
	r->credits_granted = credits;
}

static const struct cmp_side *side_of(const struct compare *c, const char *key, int s)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->op[i]->key, key))
			return &c->op[i]->side[s];
	return NULL;
}

/* Side A, as a knfsd might answer: Write chunks for READ, a Read chunk for
 * WRITE, a Reply chunk for READDIR, one call-only position-zero WRITE,
 * one backchannel call, and a READ over TCP that must not count. */
static void fill_a(struct compare *c)
{
	struct nfsrdma_record r;

	r = rec(READ, 0);
	call(&r, 0, 140, 128);
	reply(&r, 0, 120, 64);
	r.n_write_chunks = 1;
	r.write_bytes = 4096;
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(READ, 0);
	call(&r, 0, 144, 32);
	reply(&r, 0, 124, 128);
	r.n_write_chunks = 1;
	r.write_bytes = 8192;
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(WRITE, 0);
	call(&r, 0, 160, 128);
	reply(&r, 0, 100, 64);
	r.n_read_chunks = 1;
	r.read_bytes = 8192;
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(WRITE, RECF_ARGS_DDP);   /* the whole call in a position-zero chunk, no reply */
	call(&r, 1, 60, 128);
	r.n_read_chunks = 1;
	r.read_bytes = 9000;
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(READDIR, RECF_RES_DDP);
	call(&r, 0, 150, 128);
	reply(&r, 1, 28, 64);
	r.n_reply_segs = 2;
	r.reply_bytes = 2000;
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(0, RECF_BACKCHANNEL);    /* server to client: its call is the larger to the client */
	call(&r, 0, 300, 1);
	reply(&r, 0, 40, 1);
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
	r = rec(READ, 0);
	r.transport = REC_TR_TCP;
	call(&r, 0xff, 5000, 0);
	reply(&r, 0xff, 9000, 0);
	CHECK(compare_add(c, CMP_A, &r) == 0, "add");
}

/* Side B, as another implementation might: READ's reply in a Reply
 * chunk (that one RPC over version 2), an RDMA_ERROR, READDIR inline. */
static void fill_b(struct compare *c)
{
	struct nfsrdma_record r;

	r = rec(READ, RECF_RES_DDP);
	r.rdma_vers = 2;
	call(&r, 0, 200, 64);
	reply(&r, 1, 28, 32);
	r.n_reply_segs = 1;
	r.reply_bytes = 4200;
	CHECK(compare_add(c, CMP_B, &r) == 0, "add");
	r = rec(READ, RECF_RDMA_ERROR);
	call(&r, 0, 210, 64);
	reply(&r, 4, 36, 16);
	r.n_write_chunks = 1;
	CHECK(compare_add(c, CMP_B, &r) == 0, "add");
	r = rec(READDIR, 0);
	call(&r, 0, 150, 64);
	reply(&r, 0, 3000, 32);
	CHECK(compare_add(c, CMP_B, &r) == 0, "add");
}

static void check_counts(const struct compare *c)
{
	const struct cmp_side *ra = side_of(c, "NFSv3 READ", CMP_A), *rb = side_of(c, "NFSv3 READ", CMP_B);
	const struct cmp_side *wa = side_of(c, "NFSv3 WRITE", CMP_A), *wb = side_of(c, "NFSv3 WRITE", CMP_B);

	CHECK(ra && rb && wa && wb, "the rows are there");
	if (!ra || !rb || !wa || !wb)
		return;
	/* READ on A: two over RDMA with a Write chunk each, one over TCP */
	CHECK_EQ_U64(ra->rpcs, 3);
	CHECK_EQ_U64(ra->x.rdma, 2);
	CHECK_EQ_U64(ra->x.mix[CMP_MIX_WRITE], 2);
	CHECK_EQ_U64(ra->x.mix[CMP_MIX_INLINE], 0);
	CHECK_EQ_U64(ra->x.call_inline.sum, 284);
	CHECK_EQ_U64(ra->x.call_inline.max, 144);
	CHECK_EQ_U64(ra->x.reply_inline.max, 124);
	CHECK_EQ_U64(ra->x.credits_asked.min, 32);
	CHECK_EQ_U64(ra->x.credits_asked.max, 128);
	CHECK_EQ_U64(ra->x.credits_granted.min, 64);
	CHECK_EQ_U64(ra->x.credits_granted.max, 128);
	CHECK_EQ_U64(ra->x.reply_chunk_used, 0);
	/* WRITE on A: one Read chunk, one position-zero call without a reply */
	CHECK_EQ_U64(wa->x.mix[CMP_MIX_READ], 1);
	CHECK_EQ_U64(wa->x.mix[CMP_MIX_P0], 1);
	CHECK_EQ_U64(wa->x.call_proc[0], 1);
	CHECK_EQ_U64(wa->x.call_proc[1], 1);
	CHECK_EQ_U64(wa->x.reply_inline.n, 1);
	CHECK_EQ_U64(wa->x.credits_granted.n, 1);
	CHECK_EQ_U64(wb->rpcs, 0);
	/* READ on B: a Reply chunk, and an RDMA_ERROR with a Write chunk */
	CHECK_EQ_U64(rb->x.mix[CMP_MIX_REPLY], 1);
	CHECK_EQ_U64(rb->x.mix[CMP_MIX_WRITE], 1);
	CHECK_EQ_U64(rb->x.reply_proc[1], 1);
	CHECK_EQ_U64(rb->x.reply_proc[4], 1);
	CHECK_EQ_U64(rb->x.reply_chunk_used, 1);
	CHECK_EQ_U64(rb->x.reply_chunk_bytes, 4200);
	/* the captures: to the server, A's largest is the 160-byte WRITE
	 * call (the TCP READ's 5000 does not count), to the client the
	 * backchannel call's 300; B's 210 and 3000 */
	const struct cmp_xprt *a = &c->all[CMP_A], *b = &c->all[CMP_B];
	CHECK_EQ_U64(a->rdma, 6);
	CHECK_EQ_U64(a->max_to_server, 160);
	CHECK_EQ_U64(a->max_to_client, 300);
	CHECK_EQ_U64(b->max_to_server, 210);
	CHECK_EQ_U64(b->max_to_client, 3000);
	CHECK_EQ_U64(a->mix[CMP_MIX_INLINE], 1);   /* the backchannel NULL */
	CHECK_EQ_U64(a->mix[CMP_MIX_REPLY], 1);
	CHECK_EQ_U64(a->vers[1], 6);
	CHECK_EQ_U64(b->vers[1], 2);
	CHECK_EQ_U64(b->vers[2], 1);
	CHECK_EQ_U64(a->credits_asked.min, 1);
	CHECK_EQ_U64(a->credits_granted.max, 128);
	CHECK_EQ_U64(a->reply_chunk_bytes, 2000);
}

static char *printed(const struct compare *c, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json)
		compare_print_json(c, f);
	else
		compare_print(c, f);
	fclose(f);
	return buf;
}

/* a line of text holding these words in this order, spaces between */
static bool has_row(const char *text, const char *const *w, size_t n)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l, *end = strchr(l, '\n');
		size_t k = 0;
		while (k < n) {
			while (*p == ' ')
				p++;
			size_t wl = strlen(w[k]);
			if ((end && p + wl > end) || strncmp(p, w[k], wl) || (p[wl] != ' ' && p[wl] != '\n' && p[wl]))
				break;
			p += wl;
			k++;
		}
		if (k == n)
			return true;
	}
	return false;
}

#define ROW(text, ...) has_row(text, (const char *const[]){ __VA_ARGS__ }, \
			       sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void check_text(const struct compare *c)
{
	char *t = printed(c, false);

	CHECK(t != NULL, "printed");
	if (!t)
		return;
	/* counts: both sides, no ratio; sizes: B/A */
	CHECK(ROW(t, "rdma_rpcs", "2", "2", "-"), "READ rdma_rpcs:\n%s", t);
	CHECK(ROW(t, "chunk_write", "2", "1", "-"), "READ chunk_write");
	CHECK(ROW(t, "chunk_reply", "0", "1", "-"), "READ chunk_reply");
	CHECK(ROW(t, "reply_rdma_error", "0", "1", "-"), "READ reply_rdma_error");
	CHECK(ROW(t, "call_inline_mean", "142.0", "205.0", "1.44"), "READ call_inline_mean");
	CHECK(ROW(t, "credits_asked", "32..128", "64", "-"), "READ credits_asked");
	CHECK(ROW(t, "credits_granted", "64..128", "16..32", "-"), "READ credits_granted");
	CHECK(ROW(t, "reply_chunk_bytes", "0", "4200", "-"), "READ reply_chunk_bytes (A's 0: no ratio)");
	/* WRITE is A's only: B's cells empty */
	CHECK(ROW(t, "chunk_p0", "1", "-", "-"), "WRITE chunk_p0");
	/* the capture's rows */
	CHECK(ROW(t, "inline_max_to_srv", "160", "210", "1.31"), "capture inline_max_to_srv");
	CHECK(ROW(t, "inline_max_to_cli", "300", "3000", "10.00"), "capture inline_max_to_cli");
	CHECK(ROW(t, "rdma_versions", "1", "1,2", "-"), "capture rdma_versions");
	CHECK(ROW(t, "rdma_rpcs", "6", "3", "-"), "capture rdma_rpcs");
	CHECK(ROW(t, "call_rdma_nomsg", "1", "0", "-"), "capture call_rdma_nomsg shown with a 0");
	free(t);
}

static void check_json(const struct compare *c)
{
	char *j = printed(c, true);

	CHECK(j != NULL, "printed");
	if (!j)
		return;
	CHECK(strstr(j, "\"xprt\":{\"rdma_rpcs\":2,\"chunks\":{\"inline\":0,\"read\":0,\"write\":2,\"reply\":0,\"p0\":0}"),
	      "A's READ chunks:\n%s", j);
	CHECK(strstr(j, "\"credits_asked\":{\"min\":32,\"max\":128},\"credits_granted\":{\"min\":64,\"max\":128}"),
	      "A's READ credits");
	CHECK(strstr(j, "\"reply\":{\"msg\":0,\"nomsg\":1,\"msgp\":0,\"done\":0,\"error\":1,\"other\":0}"),
	      "B's READ reply types");
	CHECK(strstr(j, "\"reply_chunk\":{\"rpcs\":1,\"bytes\":4200}"), "B's READ reply chunk");
	CHECK(strstr(j, "\"call_inline\":{\"n\":2,\"sum\":284,\"mean\":142.0,\"max\":144}"), "A's READ call inline");
	CHECK(strstr(j, "\"inline_max\":{\"to_server\":160,\"to_client\":300},\"rdma_versions\":{\"1\":6}"),
	      "A's capture threshold and version");
	CHECK(strstr(j, "\"rdma_versions\":{\"1\":2,\"2\":1}"), "B's version");
	CHECK(strstr(j, "\"b\":null,\"ratio\":{") != NULL, "WRITE: B null");
	CHECK(strstr(j, "\"inline_max_to_client\":10.0000}}\n"), "capture ratio");
	free(j);
}

/* An operation whose one side ran over TCP only has xprt null there, and
 * the transport rows are left out when neither side used RDMA. */
static void check_tcp_only(void)
{
	struct compare *c = compare_new("a", "b");
	struct nfsrdma_record r = rec(READ, 0);

	CHECK(c != NULL, "new");
	if (!c)
		return;
	r.transport = REC_TR_TCP;
	call(&r, 0xff, 120, 0);
	reply(&r, 0xff, 4200, 0);
	CHECK(compare_add(c, CMP_A, &r) == 0 && compare_add(c, CMP_B, &r) == 0, "add");
	compare_sort(c);
	char *j = printed(c, true), *t = printed(c, false);
	CHECK(j && strstr(j, "\"lat_sum_ns\"") && strstr(j, "\"xprt\":null}"), "TCP only: xprt null:\n%s",
	      j ? j : "");
	CHECK(j && strstr(j, "\"call_inline_mean\":null"), "TCP only: no inline ratio");
	CHECK(t && !strstr(t, "rdma_rpcs") && !strstr(t, "chunk_"), "TCP only: no transport rows:\n%s", t);
	free(j);
	free(t);
	compare_free(c);
}

int main(void)
{
	struct compare *c = compare_new("a.pcap", "b.pcap");

	CHECK(c != NULL, "new");
	if (!c)
		return check_summary("compare-xprt");
	fill_a(c);
	fill_b(c);
	compare_sort(c);
	check_counts(c);
	check_text(c);
	check_json(c);
	compare_free(c);
	check_tcp_only();
	return check_summary("compare-xprt");
}
