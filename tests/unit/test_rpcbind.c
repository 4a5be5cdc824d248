/* rpcbind / portmapper (RFC 1833): procedure names of v2, v3 and v4, the
 * mapping asked and the port or address answered, listings, and
 * truncated and invalid bodies.  The messages are built by hand from the
 * RFC's XDR, except the GETPORT exchange the lab's mount made (frames 21
 * and 23 of tests/captures/nfs3-metadata.pcap, as tshark decodes them:
 * MOUNT v3 TCP -> port 41953). */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/programs.h"
#include "dissect/record_names.h"
#include "dissect/rpc.h"
#include "dissect/rpcbind.h"

static struct nfsrdma_record rec;

/* Decodes x as proc's arguments or results; true when the whole body
 * decoded and nothing was left over. */
static bool run(uint32_t vers, uint32_t proc, bool reply, const struct xb *x)
{
	struct pdec d = { .c = cur_make(x->b, x->n), .rec = &rec, .reply = reply, .vers = vers,
			  .proc = proc, .layer = prog_portmap.layer };
	if (reply)
		prog_portmap.decode_reply(&d);
	else
		prog_portmap.decode_call(&d);
	return cur_ok(&d.c) && d.c.off == x->n;
}

static void fresh(struct xb *x)
{
	memset(&rec, 0, sizeof(rec));
	rec.status = REC_STATUS_NONE;
	x->n = 0;
}

/* Every strict prefix of a well-formed body is truncated, never decoded. */
static void prefixes_fail(uint32_t vers, uint32_t proc, bool reply, const struct xb *whole, const char *what)
{
	struct xb cut;
	unsigned ok = 0;

	for (size_t n = 0; n < whole->n; n += 4) {
		fresh(&cut);
		memcpy(cut.b, whole->b, n);
		cut.n = n;
		ok += run(vers, proc, reply, &cut);
	}
	CHECK(ok == 0, "%s: %u of %zu prefixes decoded", what, ok, whole->n / 4);
}

static void rpcb(struct xb *x, uint32_t prog, uint32_t vers, const char *netid, const char *addr,
		 const char *owner)
{
	xb_u32(x, prog);
	xb_u32(x, vers);
	xb_str(x, netid);
	xb_str(x, addr);
	xb_str(x, owner);
}

static void names(void)
{
	static const char *const v2[] = { "NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT" };
	static const char *const v4[] = { "NULL", "SET", "UNSET", "GETADDR", "DUMP", "BCAST",
					  "GETTIME", "UADDR2TADDR", "TADDR2UADDR", "GETVERSADDR",
					  "INDIRECT", "GETADDRLIST", "GETSTAT" };
	for (uint32_t p = 0; p < 6; p++)
		CHECK_EQ_STR(prog_proc_name(100000, 2, p), v2[p]);
	CHECK(prog_proc_name(100000, 2, 6) == NULL, "v2 has 6 procedures");
	for (uint32_t p = 0; p < 13; p++)
		CHECK_EQ_STR(prog_proc_name(100000, 4, p), v4[p]);
	CHECK(prog_proc_name(100000, 4, 13) == NULL, "v4 has 13 procedures");
	/* v3 is v4's first nine, with CALLIT where v4 has BCAST */
	for (uint32_t p = 0; p < 9; p++)
		CHECK_EQ_STR(prog_proc_name(100000, 3, p), p == 5 ? "CALLIT" : v4[p]);
	CHECK(prog_proc_name(100000, 3, 9) == NULL, "v3 has 9 procedures");
	CHECK(prog_proc_name(100000, 5, 0) == NULL, "no v5");
	CHECK(prog_lookup(100000, 2) == &prog_portmap, "v2 decoded");
	CHECK(prog_lookup(100000, 3) == &prog_portmap, "v3 decoded");
	CHECK(prog_lookup(100000, 4) == &prog_portmap, "v4 decoded");
	CHECK(prog_lookup(100000, 5) == NULL, "v5 not decoded");
	CHECK(prog_name_known("GETADDRLIST"), "--op GETADDRLIST");
	CHECK(prog_name_known("getport"), "--op getport");
	struct nfsrdma_record r = { .flags = RECF_CALL, .prog = 100000, .vers = 4, .proc = 11 };
	char b[96];
	CHECK_EQ_STR(rec_name_str(&r, b, sizeof(b)), "PORTMAPv4 GETADDRLIST");
	CHECK_EQ_STR(rpcb_status_name(RPCB_ST_UNREGISTERED), "UNREGISTERED");
	CHECK(rpcb_status_name(3) == NULL, "no status 3");
}

static void uaddrs(void)
{
	static const struct { const char *s; bool ok; uint32_t port; } t[] = {
		{ "10.9.0.1.8.1", true, 2049 },  { "fe80::1.8.1", true, 2049 },
		{ "0.0.0.0.0.111", true, 111 },  { "1.2.3.4.255.255", true, 65535 },
		{ "::.0.0", true, 0 },           { "1.2.3.4.256.1", false, 0 },
		{ "1.2.3.4.1.256", false, 0 },   { "1.2.3.4.1000.1", false, 0 },
		{ "8.1", false, 0 },             { ".8.1", false, 0 },
		{ "1.2.3.4..1", false, 0 },      { "1.2.3.4.8.", false, 0 },
		{ "1.2.3.4.8.x", false, 0 },     { "", false, 0 },
		{ "/var/run/rpcbind.sock", false, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t port = 12345;
		bool ok = rpcb_uaddr_port(t[i].s, &port);
		CHECK(ok == t[i].ok, "uaddr \"%s\": %d", t[i].s, ok);
		if (t[i].ok)
			CHECK(port == t[i].port, "uaddr \"%s\": port %u", t[i].s, port);
	}
}

/* The lab's GETPORT: the call's body as the capture has it, and the
 * whole reply message (RPC header included) the client seed keeps. */
static void lab_getport(void)
{
	struct xb x;
	static const uint8_t call[] = { 0x00, 0x01, 0x86, 0xa5, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 0 };

	fresh(&x);
	xb_bytes(&x, call, sizeof(call));
	CHECK(run(2, 3, false, &x), "lab GETPORT call");
	CHECK_EQ_STR(rec.name, "MOUNTv3 tcp");

	/* the seed's first two bytes pick the client harness's decoder */
	char path[512];
	FILE *f = fopen(check_path("tests/fuzz/seeds/nfs3_clnt/nfs3-metadata-getport-41953", path,
				   sizeof(path)), "rb");
	CHECK(f != NULL, "the lab's GETPORT reply is readable");
	if (!f)
		return;
	uint8_t msg[256];
	size_t n = fread(msg, 1, sizeof(msg), f);
	fclose(f);
	CHECK(n == 30, "seed of %zu bytes", n);
	if (n != 30)
		return;
	struct cursor c = cur_make(msg + 2, n - 2);
	struct rpc_msg m;
	CHECK(rpc_decode(&m, &c, NULL) == 0 && m.mtype == RPC_REPLY, "lab reply header");
	fresh(&x);
	xb_bytes(&x, msg + 2 + c.off, n - 2 - c.off);
	CHECK(run(2, 3, true, &x), "lab GETPORT reply");
	CHECK_EQ_U64(rec.res_count, 41953);
	CHECK_EQ_U64(rec.status, RPCB_ST_OK);
}

static void v2(void)
{
	struct xb x, whole;

	/* SET: the port set is part of the name; TRUE / FALSE / not a bool */
	fresh(&x);
	xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 17); xb_u32(&x, 2049);
	CHECK(run(2, 1, false, &x), "SET call");
	CHECK_EQ_STR(rec.name, "NFSv3 udp 2049");
	whole = x;
	prefixes_fail(2, 1, false, &whole, "SET call");
	fresh(&x);
	xb_u32(&x, 1);
	CHECK(run(2, 1, true, &x) && rec.status == RPCB_ST_OK, "SET TRUE");
	fresh(&x);
	xb_u32(&x, 0);
	CHECK(run(2, 2, true, &x) && rec.status == RPCB_ST_FALSE, "UNSET FALSE");
	fresh(&x);
	xb_u32(&x, 2);
	CHECK(!run(2, 1, true, &x) && rec.status == REC_STATUS_NONE, "SET result 2 is invalid");

	/* GETPORT of an unknown protocol, answered 0: nothing registered */
	fresh(&x);
	xb_u32(&x, 395); xb_u32(&x, 1); xb_u32(&x, 99); xb_u32(&x, 0);
	CHECK(run(2, 3, false, &x), "GETPORT prot 99");
	CHECK_EQ_STR(rec.name, "prog395.v1 prot 99");
	fresh(&x);
	xb_u32(&x, 0);
	CHECK(run(2, 3, true, &x), "GETPORT 0");
	CHECK_EQ_U64(rec.status, RPCB_ST_UNREGISTERED);
	CHECK_EQ_U64(rec.res_count, 0);
	fresh(&x);
	CHECK(!run(2, 3, true, &x) && rec.status == REC_STATUS_NONE, "GETPORT reply truncated");

	/* DUMP: three mappings */
	fresh(&x);
	for (uint32_t i = 0; i < 3; i++) {
		xb_u32(&x, 1);
		xb_u32(&x, 100003 + i); xb_u32(&x, 3); xb_u32(&x, 6); xb_u32(&x, 2049 + i);
	}
	xb_u32(&x, 0);
	CHECK(run(2, 4, true, &x), "DUMP reply");
	CHECK_EQ_U64(rec.res_count, 3);
	whole = x;
	prefixes_fail(2, 4, true, &whole, "DUMP reply");
	fresh(&x);
	xb_u32(&x, 0);
	CHECK(run(2, 4, true, &x) && rec.res_count == 0 && rec.status == RPCB_ST_OK, "empty DUMP");
	fresh(&x);
	xb_u32(&x, 1); xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 6); xb_u32(&x, 2049);
	xb_u32(&x, 7);
	CHECK(!run(2, 4, true, &x) && rec.res_count == 0, "DUMP 'more' of 7 is invalid");

	/* CALLIT: the call it carries, and the port that served it */
	fresh(&x);
	xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 0); xb_opaque(&x, "", 0);
	CHECK(run(2, 5, false, &x), "CALLIT call");
	CHECK_EQ_STR(rec.name, "NFSv3 NULL");
	fresh(&x);
	xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 77); xb_u32(&x, 70000);
	CHECK(!run(2, 5, false, &x), "CALLIT arguments over 64 KiB are invalid");
	fresh(&x);
	xb_u32(&x, 2049); xb_opaque(&x, "abc", 3);
	CHECK(run(2, 5, true, &x) && rec.res_count == 2049, "CALLIT reply");
	/* NULL has no body */
	fresh(&x);
	CHECK(run(2, 0, false, &x) && run(2, 0, true, &x), "NULL");
}

static void v34(void)
{
	struct xb x, whole;

	/* GETADDR v3: answered with the server's universal address */
	fresh(&x);
	rpcb(&x, 100003, 3, "tcp", "", "superuser");
	CHECK(run(3, 3, false, &x), "GETADDR call");
	CHECK_EQ_STR(rec.name, "NFSv3 tcp");
	whole = x;
	prefixes_fail(3, 3, false, &whole, "GETADDR call");
	fresh(&x);
	xb_str(&x, "10.9.0.1.8.1");
	CHECK(run(3, 3, true, &x) && rec.res_count == 2049 && rec.status == RPCB_ST_OK, "GETADDR reply");
	fresh(&x);
	xb_str(&x, "");
	CHECK(run(3, 3, true, &x) && rec.status == RPCB_ST_UNREGISTERED, "GETADDR unregistered");
	/* a netid longer than any is refused, not read */
	fresh(&x);
	xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 5000);
	CHECK(!run(4, 3, false, &x) && !rec.name[0], "netid of 5000 bytes is invalid");

	/* SET v4 with an IPv6 address */
	fresh(&x);
	rpcb(&x, 100005, 3, "tcp6", "::.78.80", "0");
	CHECK(run(4, 1, false, &x), "SET v4 call");
	CHECK_EQ_STR(rec.name, "MOUNTv3 tcp6 ::.78.80");

	/* DUMP v4: two entries */
	fresh(&x);
	xb_u32(&x, 1); rpcb(&x, 100000, 4, "tcp", "0.0.0.0.0.111", "superuser");
	xb_u32(&x, 1); rpcb(&x, 100003, 4, "rdma", "10.9.0.1.78.80", "superuser");
	xb_u32(&x, 0);
	CHECK(run(4, 4, true, &x) && rec.res_count == 2, "DUMP v4 reply");
	whole = x;
	prefixes_fail(4, 4, true, &whole, "DUMP v4 reply");

	/* GETVERSADDR, GETADDRLIST */
	fresh(&x);
	rpcb(&x, 100021, 4, "udp", "", "");
	CHECK(run(4, 9, false, &x), "GETVERSADDR call");
	CHECK_EQ_STR(rec.name, "NLMv4 udp");
	fresh(&x);
	xb_str(&x, "10.9.0.1.156.64");
	CHECK(run(4, 9, true, &x) && rec.res_count == 40000, "GETVERSADDR reply");
	fresh(&x);
	for (int i = 0; i < 2; i++) {
		xb_u32(&x, 1);
		xb_str(&x, "10.9.0.1.8.1"); xb_str(&x, i ? "udp" : "tcp"); xb_u32(&x, i ? 1 : 3);
		xb_str(&x, "inet"); xb_str(&x, i ? "udp" : "tcp");
	}
	xb_u32(&x, 0);
	CHECK(run(4, 11, true, &x) && rec.res_count == 2, "GETADDRLIST reply");
	whole = x;
	prefixes_fail(4, 11, true, &whole, "GETADDRLIST reply");
	fresh(&x);
	xb_u32(&x, 0);
	CHECK(run(4, 11, true, &x) && rec.status == RPCB_ST_UNREGISTERED, "empty GETADDRLIST");

	/* INDIRECT and BCAST (v4), CALLIT (v3) */
	fresh(&x);
	xb_u32(&x, 100024); xb_u32(&x, 1); xb_u32(&x, 99); xb_opaque(&x, "args", 4);
	CHECK(run(4, 10, false, &x), "INDIRECT call");
	CHECK_EQ_STR(rec.name, "NSMv1 proc99");
	fresh(&x);
	xb_str(&x, "10.9.0.1.3.32"); xb_opaque(&x, "res", 3);
	CHECK(run(4, 10, true, &x) && rec.res_count == 800, "INDIRECT reply");
	CHECK(run(4, 5, true, &x) && rec.res_count == 800, "BCAST reply");
	CHECK(run(3, 5, true, &x) && rec.res_count == 800, "CALLIT v3 reply");

	/* GETTIME, UADDR2TADDR, TADDR2UADDR */
	fresh(&x);
	xb_u32(&x, 1795302771);
	CHECK(run(3, 6, true, &x) && rec.status == RPCB_ST_OK, "GETTIME reply");
	fresh(&x);
	xb_str(&x, "10.9.0.1.8.1");
	CHECK(run(3, 7, false, &x), "UADDR2TADDR call");
	CHECK_EQ_STR(rec.name, "10.9.0.1.8.1");
	fresh(&x);
	xb_u32(&x, 16); xb_opaque(&x, "\0\2\10\1\12\11\0\1", 8);
	CHECK(run(3, 7, true, &x), "UADDR2TADDR reply");
	CHECK(run(4, 8, false, &x), "TADDR2UADDR call");
	fresh(&x);
	xb_str(&x, "10.9.0.1.8.1");
	CHECK(run(4, 8, true, &x), "TADDR2UADDR reply");

	/* GETSTAT: rpcb_stat for v2, v3 and v4, one lookup and one
	 * remote call listed under v4 */
	fresh(&x);
	for (int v = 0; v < 3; v++) {
		for (int i = 0; i < 13; i++)
			xb_u32(&x, (uint32_t)i);
		xb_u32(&x, 1); xb_u32(&x, 0);
		if (v == 2) {
			xb_u32(&x, 1);
			xb_u32(&x, 100003); xb_u32(&x, 3); xb_u32(&x, 5); xb_u32(&x, 0); xb_str(&x, "tcp");
			xb_u32(&x, 0);
			xb_u32(&x, 1);
			xb_u32(&x, 100024); xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 1); xb_u32(&x, 0);
			xb_u32(&x, 1); xb_str(&x, "udp");
			xb_u32(&x, 0);
		} else {
			xb_u32(&x, 0);
			xb_u32(&x, 0);
		}
	}
	CHECK(run(4, 12, true, &x) && rec.status == RPCB_ST_OK, "GETSTAT reply");
	whole = x;
	prefixes_fail(4, 12, true, &whole, "GETSTAT reply");
	/* v4-only procedures under v3 read nothing */
	fresh(&x);
	CHECK(run(3, 12, true, &x), "v3 has no GETSTAT");
}

int main(void)
{
	names();
	uaddrs();
	lab_getport();
	v2();
	v34();
	return check_summary("test_rpcbind");
}
