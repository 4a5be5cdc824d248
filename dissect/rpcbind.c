/* rpcbind / portmapper v2-v4 (RFC 1833): procedure names, the mapping
 * asked or set, the port or address answered, and how many entries a
 * listing held (what the record keeps: rpcbind.h). */
#include "dissect/rpcbind.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/programs.h"

#define RPCB_STR_MAX   1024u    /* netid, universal address, owner */
#define RPCB_ARGS_MAX  65536u   /* CALLIT's opaque arguments and results */
#define RPCB_TREE_ROWS 32u      /* listing entries shown under -V */
#define RPCB_STAT_PROCS 13u     /* rpcbs_proc: RPCBSTAT_HIGHPROC */
#define RPCB_STAT_VERS  3u      /* rpcb_stat_byvers: RPCBVERS_STAT */

const char *rpcb_status_name(uint32_t st)
{
	static const char *const n[] = { "OK", "FALSE", "UNREGISTERED" };
	return st < sizeof(n) / sizeof(n[0]) ? n[st] : NULL;
}

bool rpcb_uaddr_port(const char *uaddr, uint32_t *port)
{
	uint32_t part[2] = { 0, 0 };
	int k = 1;
	size_t digits = 0, n = 0;

	while (uaddr[n])
		n++;
	/* from the end: low byte, '.', high byte, '.' and something before */
	for (size_t i = n; i-- > 0;) {
		char ch = uaddr[i];
		if (ch >= '0' && ch <= '9') {
			if (++digits > 3)
				return false;
			uint32_t mul = digits == 1 ? 1 : digits == 2 ? 10 : 100;
			part[k] += (uint32_t)(ch - '0') * mul;
			continue;
		}
		if (ch != '.' || !digits || part[k] > 255)
			return false;
		if (k == 0) {
			*port = part[0] << 8 | part[1];
			return i > 0;
		}
		k--;
		digits = 0;
	}
	return false;
}

/* "tcp", "udp" for a v2 protocol number; NULL otherwise. */
static const char *rpcb_prot_name(uint32_t prot)
{
	return prot == RPCB_IPPROTO_TCP ? "tcp" : prot == RPCB_IPPROTO_UDP ? "udp" : NULL;
}

static const char *rpcb_name(uint32_t vers, uint32_t proc)
{
	return rpcb_proc_name(vers, proc);
}

/* "MOUNTv3 tcp" / "MOUNTv3 prot 99" */
static void map_str(uint32_t prog, uint32_t vers, uint32_t prot, char *buf, size_t len)
{
	char p[48];
	const char *pn = rpcb_prot_name(prot);

	prog_short_name(prog, vers, p, sizeof(p));
	if (pn)
		snprintf(buf, len, "%s %s", p, pn);
	else
		snprintf(buf, len, "%s prot %" PRIu32, p, prot);
}

/* portmap v2 mapping: prog, vers, prot, port */
static bool mapping(struct pdec *d, char *buf, size_t len, uint32_t *port)
{
	uint32_t prog = xdr_u32(d, "pmap prog");
	uint32_t vers = xdr_u32(d, "pmap vers");
	uint32_t prot = xdr_u32(d, "pmap prot");
	*port = xdr_u32(d, "pmap port");
	if (!xdr_ok(d))
		return false;
	map_str(prog, vers, prot, buf, len);
	return true;
}

/* rpcbind v3/v4 rpcb: r_prog, r_vers, r_netid, r_addr, r_owner */
struct rpcb {
	uint32_t prog, vers;
	char netid[32], addr[64], owner[32];
};

static bool rpcb(struct pdec *d, struct rpcb *b, char *buf, size_t len)
{
	char p[48];

	b->prog = xdr_u32(d, "rpcb r_prog");
	b->vers = xdr_u32(d, "rpcb r_vers");
	xdr_string(d, RPCB_STR_MAX, b->netid, sizeof(b->netid), "rpcb r_netid");
	xdr_string(d, RPCB_STR_MAX, b->addr, sizeof(b->addr), "rpcb r_addr");
	xdr_string(d, RPCB_STR_MAX, b->owner, sizeof(b->owner), "rpcb r_owner");
	if (!xdr_ok(d))
		return false;
	prog_short_name(b->prog, b->vers, p, sizeof(p));
	snprintf(buf, len, "%s%s%s", p, b->netid[0] ? " " : "", b->netid);
	return true;
}

/* CALLIT / INDIRECT / BCAST arguments: prog, vers, proc, opaque args */
static void rmtcall_args(struct pdec *d)
{
	char p[48], name[128];

	uint32_t prog = xdr_u32(d, "rpcb rmtcall prog");
	uint32_t vers = xdr_u32(d, "rpcb rmtcall vers");
	uint32_t proc = xdr_u32(d, "rpcb rmtcall proc");
	xdr_skip_opaque(d, RPCB_ARGS_MAX, "rpcb rmtcall args");
	if (!xdr_ok(d))
		return;
	const char *pn = prog_proc_name(prog, vers, proc);
	prog_short_name(prog, vers, p, sizeof(p));
	if (pn)
		snprintf(name, sizeof(name), "%s %s", p, pn);
	else
		snprintf(name, sizeof(name), "%s proc%" PRIu32, p, proc);
	xdr_rec_name(d->rec, name, false);
	DT(d->tree, "call: %s", name);
}

static void rpcb_call(struct pdec *d)
{
	char name[160];
	uint32_t port;
	struct rpcb b;

	if (d->vers == 2) {
		switch (d->proc) {
		case PMAPPROC_SET: case PMAPPROC_UNSET: case PMAPPROC_GETPORT:
			if (!mapping(d, name, sizeof(name), &port))
				return;
			DT(d->tree, "mapping: %s port %" PRIu32, name, port);
			if (d->proc == PMAPPROC_SET) {
				size_t n = strnlen(name, sizeof(name));
				snprintf(name + n, sizeof(name) - n, " %" PRIu32, port);
			}
			xdr_rec_name(d->rec, name, false);
			return;
		case PMAPPROC_CALLIT:
			rmtcall_args(d);
			return;
		default:
			return;
		}
	}
	switch (d->proc) {
	case RPCBPROC_SET: case RPCBPROC_UNSET: case RPCBPROC_GETADDR:
	case RPCBPROC_GETVERSADDR: case RPCBPROC_GETADDRLIST:
		if (!rpcb(d, &b, name, sizeof(name)))
			return;
		DT(d->tree, "rpcb: %s addr \"%s\" owner \"%s\"", name, b.addr, b.owner);
		if (d->proc == RPCBPROC_SET && b.addr[0]) {
			size_t n = strnlen(name, sizeof(name));
			snprintf(name + n, sizeof(name) - n, " %s", b.addr);
		}
		xdr_rec_name(d->rec, name, false);
		return;
	case RPCBPROC_CALLIT: case RPCBPROC_INDIRECT:
		rmtcall_args(d);
		return;
	case RPCBPROC_UADDR2TADDR: {
		bool cut;
		if (xdr_name(d, RPCB_STR_MAX, name, sizeof(name), &cut, "rpcb uaddr")) {
			xdr_rec_name(d->rec, name, cut);
			DT(d->tree, "uaddr: \"%s\"", name);
		}
		return;
	}
	case RPCBPROC_TADDR2UADDR: {
		uint32_t maxlen = xdr_u32(d, "rpcb netbuf maxlen");
		uint32_t n = 0;
		cur_xdr_opaque(&d->c, RPCB_STR_MAX, &n, "rpcb netbuf buf");
		DT(d->tree, "netbuf: maxlen %" PRIu32 " len %" PRIu32, maxlen, n);
		return;
	}
	default:
		return;
	}
}

/* A listing: bool-prefixed entries (XDR optional-data, RFC 4506 4.19). */
static uint32_t dump_v2(struct pdec *d)
{
	char name[128];
	uint32_t n = 0, port;

	while (xdr_bool(d, "pmaplist more") && xdr_ok(d)) {
		if (!mapping(d, name, sizeof(name), &port))
			break;
		if (n++ < RPCB_TREE_ROWS)
			DT(d->tree, "map: %s port %" PRIu32, name, port);
	}
	return n;
}

static uint32_t dump_v34(struct pdec *d)
{
	char name[128];
	uint32_t n = 0;
	struct rpcb b;

	while (xdr_bool(d, "rpcblist more") && xdr_ok(d)) {
		if (!rpcb(d, &b, name, sizeof(name)))
			break;
		if (n++ < RPCB_TREE_ROWS)
			DT(d->tree, "map: %s addr \"%s\" owner \"%s\"", name, b.addr, b.owner);
	}
	return n;
}

static uint32_t addrlist(struct pdec *d)
{
	char maddr[64], netid[32], fmly[32], proto[32];
	uint32_t n = 0;

	while (xdr_bool(d, "rpcb_entry_list more") && xdr_ok(d)) {
		xdr_string(d, RPCB_STR_MAX, maddr, sizeof(maddr), "rpcb_entry r_maddr");
		xdr_string(d, RPCB_STR_MAX, netid, sizeof(netid), "rpcb_entry r_nc_netid");
		uint32_t sem = xdr_u32(d, "rpcb_entry r_nc_semantics");
		xdr_string(d, RPCB_STR_MAX, fmly, sizeof(fmly), "rpcb_entry r_nc_protofmly");
		xdr_string(d, RPCB_STR_MAX, proto, sizeof(proto), "rpcb_entry r_nc_proto");
		if (!xdr_ok(d))
			break;
		if (n++ < RPCB_TREE_ROWS)
			DT(d->tree, "entry: \"%s\" netid %s semantics %" PRIu32 " %s/%s", maddr, netid,
			   sem, fmly, proto);
	}
	return n;
}

/* rpcb_stat_byvers: per version (2, 3, 4), the calls per procedure, SETs, UNSETs,
 * and the lookup and remote-call lists; the tree shows the totals. */
static void getstat(struct pdec *d)
{
	char netid[32];

	for (uint32_t v = 0; v < RPCB_STAT_VERS && xdr_ok(d); v++) {
		uint64_t calls = 0, lookups = 0, rmtcalls = 0;
		for (uint32_t i = 0; i < RPCB_STAT_PROCS; i++)
			calls += xdr_u32(d, "rpcb_stat info");
		uint32_t set = xdr_u32(d, "rpcb_stat setinfo");
		uint32_t unset = xdr_u32(d, "rpcb_stat unsetinfo");
		while (xdr_bool(d, "rpcbs_addrlist more") && xdr_ok(d)) {
			xdr_skip(d, 16, "rpcbs_addrlist prog/vers/success/failure");
			xdr_string(d, RPCB_STR_MAX, netid, sizeof(netid), "rpcbs_addrlist netid");
			lookups++;
		}
		while (xdr_bool(d, "rpcbs_rmtcalllist more") && xdr_ok(d)) {
			xdr_skip(d, 24, "rpcbs_rmtcalllist prog/vers/proc/success/failure/indirect");
			xdr_string(d, RPCB_STR_MAX, netid, sizeof(netid), "rpcbs_rmtcalllist netid");
			rmtcalls++;
		}
		if (xdr_ok(d))
			DT(d->tree, "v%" PRIu32 ": calls %" PRIu64 " set %" PRIu32 " unset %" PRIu32
			   " lookups %" PRIu64 " rmtcalls %" PRIu64, 2 + v, calls, set, unset, lookups,
			   rmtcalls);
	}
}

/* An answered address: its port, or UNREGISTERED when empty. */
static void answer_addr(struct pdec *d, const char *what)
{
	char addr[128];
	uint32_t port;

	if (!xdr_string(d, RPCB_STR_MAX, addr, sizeof(addr), what))
		return;
	d->rec->status = addr[0] ? RPCB_ST_OK : RPCB_ST_UNREGISTERED;
	if (rpcb_uaddr_port(addr, &port))
		d->rec->res_count = port;
	DT(d->tree, "addr: \"%s\"", addr);
}

static void answer_port(struct pdec *d, const char *what)
{
	uint32_t port = xdr_u32(d, what);

	if (!xdr_ok(d))
		return;
	d->rec->status = port ? RPCB_ST_OK : RPCB_ST_UNREGISTERED;
	d->rec->res_count = port;
	DT(d->tree, "port: %" PRIu32, port);
}

static void rpcb_reply(struct pdec *d)
{
	uint32_t proc = d->proc;

	/* v2 and v3/v4 agree on 0-4; CALLIT's result differs */
	switch (proc) {
	case RPCBPROC_SET: case RPCBPROC_UNSET: {
		bool ok = xdr_bool(d, "rpcb set/unset result");
		if (xdr_ok(d)) {
			d->rec->status = ok ? RPCB_ST_OK : RPCB_ST_FALSE;
			DT(d->tree, "result: %s", ok ? "TRUE" : "FALSE");
		}
		return;
	}
	case RPCBPROC_GETADDR:
		if (d->vers == 2)
			answer_port(d, "pmap port");
		else
			answer_addr(d, "rpcb uaddr");
		return;
	case RPCBPROC_DUMP: {
		uint32_t n = d->vers == 2 ? dump_v2(d) : dump_v34(d);
		if (xdr_ok(d)) {
			d->rec->status = RPCB_ST_OK;
			d->rec->res_count = n;
			DT(d->tree, "entries: %" PRIu32, n);
		}
		return;
	}
	case RPCBPROC_CALLIT:
		if (d->vers == 2)
			answer_port(d, "pmap callit port");
		else
			answer_addr(d, "rpcb rmtcallres addr");
		xdr_skip_opaque(d, RPCB_ARGS_MAX, "rpcb rmtcall results");
		return;
	default:
		break;
	}
	if (d->vers == 2) {
		d->rec->status = RPCB_ST_OK;
		return;
	}
	switch (proc) {
	case RPCBPROC_GETTIME: {
		uint32_t t = xdr_u32(d, "rpcb time");
		if (xdr_ok(d))
			DT(d->tree, "time: %" PRIu32, t);
		break;
	}
	case RPCBPROC_UADDR2TADDR: {
		uint32_t maxlen = xdr_u32(d, "rpcb netbuf maxlen"), n = 0;
		if (cur_xdr_opaque(&d->c, RPCB_STR_MAX, &n, "rpcb netbuf buf"))
			DT(d->tree, "netbuf: maxlen %" PRIu32 " len %" PRIu32, maxlen, n);
		break;
	}
	case RPCBPROC_TADDR2UADDR: {
		char addr[128];
		if (xdr_string(d, RPCB_STR_MAX, addr, sizeof(addr), "rpcb uaddr"))
			DT(d->tree, "uaddr: \"%s\"", addr);
		break;
	}
	case RPCBPROC_GETVERSADDR:
		if (d->vers == 4)
			answer_addr(d, "rpcb uaddr");
		return;
	case RPCBPROC_INDIRECT:
		if (d->vers == 4) {
			answer_addr(d, "rpcb rmtcallres addr");
			xdr_skip_opaque(d, RPCB_ARGS_MAX, "rpcb rmtcall results");
		}
		return;
	case RPCBPROC_GETADDRLIST:
		if (d->vers == 4) {
			uint32_t n = addrlist(d);
			if (xdr_ok(d)) {
				d->rec->status = n ? RPCB_ST_OK : RPCB_ST_UNREGISTERED;
				d->rec->res_count = n;
				DT(d->tree, "entries: %" PRIu32, n);
			}
		}
		return;
	case RPCBPROC_GETSTAT:
		if (d->vers == 4)
			getstat(d);
		break;
	default:
		break;
	}
	if (xdr_ok(d))
		d->rec->status = RPCB_ST_OK;
}

static bool no_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_portmap = {
	.prog = PROG_PORTMAP, .vmin = 2, .vmax = 4, .name = "PORTMAP", .layer = "portmap",
	.proc_name = rpcb_name, .decode_call = rpcb_call, .decode_reply = rpcb_reply,
	.ddp_eligible = no_ddp,
};
