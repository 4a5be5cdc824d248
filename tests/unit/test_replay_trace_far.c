/* Reading a capture for replay (src/replay/replay_trace.c) where calls and
 * their replies are far apart, on a capture this test writes: NFS over TCP
 * (Ethernet, IPv4, one RPC message per segment), so every fact below is
 * what the test put on the wire.
 *   - a reply after 4096 other calls (each answered at once): replay's
 *     lookback for the pending call (find_pending) spans 4096 calls, so
 *     its reply is the call's, with the status the test gave it;
 *   - a reply after 4097 other calls: past the lookback, the call stays
 *     without a reply (the window's other side);
 *   - an NFSv4.1 COMPOUND that is never answered, followed by those 8000
 *     calls: the dissector's record of it comes at the capture's end,
 *     older than the 4096 calls tr_record looks back over, so replay names
 *     it from its own decoding (name_unrecorded): the name still carries
 *     the minor version the call gave (1).
 * Closing line: "test_replay_trace_far: N passed, N failed". */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dissect/rpc.h"
#include "src/replay/trace.h"

#define XID_V41   0x41000001u   /* the unanswered NFSv4.1 COMPOUND */
#define XID_NEAR  0x0a000001u   /* answered after WINDOW other calls */
#define XID_FAR   0x0b000001u   /* answered after WINDOW + 1 other calls */
#define XID_FILL  0x10000000u   /* the calls in between, answered at once */
#define WINDOW    4096u
#define ST_NEAR   70u           /* NFS3ERR_STALE: the near reply's status */
#define ST_FAR    13u           /* NFS3ERR_ACCES: the far reply's status */
#define ST_FILL   5u            /* NFS3ERR_IO: a GETATTR failure is the status alone */

struct cap {
	FILE *f;
	uint64_t ts_us;
	uint32_t cseq, sseq;        /* next data byte's sequence number, each way */
	uint16_t ipid;
};

static void be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be32(uint8_t *p, uint32_t v) { be16(p, (uint16_t)(v >> 16)); be16(p + 2, (uint16_t)v); }
static void le32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }

/* One TCP segment, client (10.0.0.1:800) to server (10.0.0.2:2049) or
 * back, carrying n bytes of the stream; 1 ms after the one before. */
static void seg(struct cap *c, bool from_client, uint8_t flags, const uint8_t *p, size_t n)
{
	static const uint8_t cmac[6] = { 2, 0, 0, 0, 0, 1 }, smac[6] = { 2, 0, 0, 0, 0, 2 };
	uint8_t fr[14 + 20 + 20 + 512];
	if (n > 512)
		return;
	memcpy(fr, from_client ? smac : cmac, 6);
	memcpy(fr + 6, from_client ? cmac : smac, 6);
	be16(fr + 12, 0x0800);
	uint8_t *ip = fr + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	be16(ip + 2, (uint16_t)(40 + n));
	be16(ip + 4, c->ipid++);
	be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	be32(ip + 12, from_client ? 0x0a000001 : 0x0a000002);
	be32(ip + 16, from_client ? 0x0a000002 : 0x0a000001);
	uint8_t *tcp = ip + 20;
	memset(tcp, 0, 20);
	be16(tcp, from_client ? 800 : 2049);
	be16(tcp + 2, from_client ? 2049 : 800);
	uint32_t *seq = from_client ? &c->cseq : &c->sseq;
	be32(tcp + 4, *seq);
	be32(tcp + 8, from_client ? c->sseq : c->cseq);
	tcp[12] = 0x50;
	tcp[13] = flags;
	be16(tcp + 14, 65535);
	if (n)
		memcpy(tcp + 20, p, n);
	*seq += (uint32_t)n + ((flags & 0x02) ? 1 : 0);
	size_t len = 54 + n;
	uint8_t ph[16];
	c->ts_us += 1000;
	le32(ph, (uint32_t)(1700000000 + c->ts_us / 1000000));
	le32(ph + 4, (uint32_t)(c->ts_us % 1000000));
	le32(ph + 8, (uint32_t)len);
	le32(ph + 12, (uint32_t)len);
	fwrite(ph, 1, 16, c->f);
	fwrite(fr, 1, len, c->f);
}

/* An RPC message in one record (record mark, last fragment). */
struct msg {
	uint8_t b[256];
	size_t n;
};

static void put(struct msg *m, uint32_t v)
{
	be32(m->b + m->n, v);
	m->n += 4;
}

static void send_msg(struct cap *c, bool from_client, struct msg *m)
{
	be32(m->b, 0x80000000u | (uint32_t)(m->n - 4));
	seg(c, from_client, 0x18, m->b, m->n);
}

static void rpc_call_hdr(struct msg *m, uint32_t xid, uint32_t vers, uint32_t proc)
{
	m->n = 4;
	put(m, xid);
	put(m, 0);        /* CALL */
	put(m, 2);
	put(m, 100003);   /* NFS */
	put(m, vers);
	put(m, proc);
	put(m, 1);        /* AUTH_SYS: stamp, machine "", uid 0, gid 0, no gids */
	put(m, 20);
	put(m, 0); put(m, 0); put(m, 0); put(m, 0); put(m, 0);
	put(m, 0);        /* verifier AUTH_NONE */
	put(m, 0);
}

/* NFSv3 GETATTR of an 8-byte handle */
static void v3_call(struct cap *c, uint32_t xid)
{
	struct msg m;
	rpc_call_hdr(&m, xid, 3, 1);
	put(&m, 8);
	put(&m, 0x11111111);
	put(&m, xid);
	send_msg(c, true, &m);
}

/* its reply: accepted, SUCCESS, then a failure's NFS status (GETATTR3res
 * holds nothing else then) */
static void v3_reply(struct cap *c, uint32_t xid, uint32_t status)
{
	struct msg m;
	m.n = 4;
	put(&m, xid);
	put(&m, 1);       /* REPLY */
	put(&m, 0);       /* MSG_ACCEPTED */
	put(&m, 0);       /* verifier AUTH_NONE */
	put(&m, 0);
	put(&m, 0);       /* SUCCESS */
	put(&m, status);
	send_msg(c, false, &m);
}

/* COMPOUND, tag "", minorversion 1, one op: PUTROOTFH */
static void v41_call(struct cap *c, uint32_t xid)
{
	struct msg m;
	rpc_call_hdr(&m, xid, 4, 1);
	put(&m, 0);
	put(&m, 1);
	put(&m, 1);
	put(&m, 24);
	send_msg(c, true, &m);
}

static void fill(struct cap *c, uint32_t *next, unsigned n)
{
	for (unsigned k = 0; k < n; k++, (*next)++) {
		v3_call(c, XID_FILL + *next);
		v3_reply(c, XID_FILL + *next, ST_FILL);
	}
}

static int write_capture(const char *path)
{
	struct cap c = { .cseq = 1000, .sseq = 5000 };
	uint8_t gh[24];
	if (!(c.f = fopen(path, "wb")))
		return -errno;
	le32(gh, 0xa1b2c3d4);
	gh[4] = 2; gh[5] = 0; gh[6] = 4; gh[7] = 0;
	le32(gh + 8, 0);
	le32(gh + 12, 0);
	le32(gh + 16, 65535);
	le32(gh + 20, 1);   /* LINKTYPE_ETHERNET */
	fwrite(gh, 1, 24, c.f);
	seg(&c, true, 0x02, NULL, 0);    /* SYN */
	seg(&c, false, 0x12, NULL, 0);   /* SYN-ACK */
	uint32_t next = 0;
	v41_call(&c, XID_V41);
	v3_call(&c, XID_NEAR);
	fill(&c, &next, WINDOW);
	v3_reply(&c, XID_NEAR, ST_NEAR);
	v3_call(&c, XID_FAR);
	fill(&c, &next, WINDOW + 1);
	v3_reply(&c, XID_FAR, ST_FAR);
	return fclose(c.f) == 0 ? 0 : -EIO;
}

static const struct tcall *find(const struct trace *t, uint32_t xid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->calls[i].xid == xid)
			return &t->calls[i];
	return NULL;
}

int main(void)
{
	char path[] = "/tmp/test_replay_trace_far.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "temporary file");
	if (fd < 0)
		return check_summary("test_replay_trace_far");
	close(fd);
	CHECK(write_capture(path) == 0, "capture written to %s", path);

	struct trace t;
	char err[256] = "";
	int ret = trace_load(&t, path, err, sizeof(err));
	CHECK(ret == 0, "trace_load: %d %s", ret, err);
	/* every call the test sent: the v4.1 one, near, far, the fill */
	CHECK_EQ_U64(t.n, 3 + WINDOW + WINDOW + 1);

	const struct tcall *near = find(&t, XID_NEAR);
	CHECK(near != NULL, "the near call is in the trace");
	if (near) {
		CHECK(near->replied, "a reply after %u other calls is its call's", WINDOW);
		CHECK(near->rpc_status == 0 && near->has_status, "accepted, with an NFS status");
		CHECK_EQ_U64(near->status, ST_NEAR);
		CHECK_EQ_STR(near->name, "NFSv3 GETATTR");
	}
	const struct tcall *far = find(&t, XID_FAR);
	CHECK(far != NULL, "the far call is in the trace");
	if (far) {
		CHECK(!far->replied, "a reply after %u other calls is past the lookback", WINDOW + 1);
		CHECK_EQ_STR(far->name, "NFSv3 GETATTR");
	}
	unsigned fills = 0, answered = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *c = &t.calls[i];
		if (c->xid < XID_FILL || c->xid >= XID_FILL + 2 * WINDOW + 1)
			continue;
		fills++;
		answered += c->replied && c->has_status && c->status == ST_FILL &&
			    !strcmp(c->name, "NFSv3 GETATTR");
	}
	CHECK_EQ_U64(fills, 2 * WINDOW + 1);
	CHECK_EQ_U64(answered, 2 * WINDOW + 1);

	const struct tcall *v41 = find(&t, XID_V41);
	CHECK(v41 != NULL, "the NFSv4.1 call is in the trace");
	if (v41) {
		CHECK(!v41->replied, "never answered");
		CHECK(v41->vers == 4 && v41->proc == 1, "a COMPOUND");
		CHECK(!strncmp(v41->name, "NFSv4.1 ", 8), "named with the minor version it gave: '%s'",
		      v41->name);
	}
	trace_free(&t);
	unlink(path);
	return check_summary("test_replay_trace_far");
}
