/* /proc/self/mountstats, the client's per-mount NFS counters
 * (fs/nfs/super.c nfs_show_stats, net/sunrpc/stats.c rpc_clnt_show_stats
 * and each transport's print_stats), parsed line by line with bounded
 * fields: a line not understood is counted and skipped, the mount kept. */
#include <string.h>

#include "src/daemon/kstat.h"

/* The transport line's fields after its protocol name, by layout: the
 * protocol and the count of fields say which (the kernel adds fields at
 * the end, so a count not listed is a layout not seen: skipped). */
enum { L_UDP, L_TCP10, L_TCP, L_RDMA, L_N };

static const char *const udp_f[] = { "port", "bind", "sends", "receives", "bad_xids", "req_u", "backlog_u",
				     "max_slots", "sending_u", "pending_u", NULL };
static const char *const tcp10_f[] = { "port", "bind", "connect", "connect_time", "idle_time", "sends",
				       "receives", "bad_xids", "req_u", "backlog_u", NULL };
static const char *const tcp_f[] = { "port", "bind", "connect", "connect_time", "idle_time", "sends",
				     "receives", "bad_xids", "req_u", "backlog_u", "max_slots", "sending_u",
				     "pending_u", NULL };
/* net/sunrpc/xprtrdma/transport.c xprt_rdma_print_stats: the generic ten,
 * then rpcrdma_stats in the order printed (4.20 on, 6.1 and 6.12 alike) */
static const char *const rdma_f[] = { "port", "bind", "connect", "connect_time", "idle_time", "sends",
				      "receives", "bad_xids", "req_u", "backlog_u", "read_chunks",
				      "write_chunks", "reply_chunks", "request_bytes", "reply_bytes",
				      "pullup_copies", "fixup_copies", "hardway_registers", "failed_marshals",
				      "bad_replies", "nomsg_calls", "mrs_recovered", "mrs_orphaned",
				      "mrs_allocated", "local_invalidates_needed", "empty_sendctx_queue",
				      "reply_waits_for_send", NULL };

static const struct {
	const char *proto;
	unsigned n;
	const char *const *f;
} layouts[L_N] = {
	[L_UDP] = { "udp", 10, udp_f },
	[L_TCP10] = { "tcp", 10, tcp10_f },
	[L_TCP] = { "tcp", 13, tcp_f },
	[L_RDMA] = { "rdma", 27, rdma_f },
};

const char *const *ks_xprt_fields(int layout)
{
	return layout >= 0 && layout < L_N ? layouts[layout].f : NULL;
}

const char *ks_xprt_proto(int layout)
{
	return layout >= 0 && layout < L_N ? layouts[layout].proto : NULL;
}

/* ---- a bounded cursor over one line ---- */

struct lc {
	const char *p, *end;
};

static void skip_ws(struct lc *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* the next whitespace-delimited word; false at the line's end */
static bool word(struct lc *c, const char **w, size_t *n)
{
	skip_ws(c);
	if (c->p >= c->end)
		return false;
	*w = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	*n = (size_t)(c->p - *w);
	return true;
}

/* a decimal count (no sign, at most 20 digits, no overflow) */
static bool number(const char *w, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9')
			return false;
		unsigned d = (unsigned)(w[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* up to max counts: how many, or -1 when a word is not one */
static int numbers(struct lc *c, uint64_t *v, unsigned max, unsigned *extra)
{
	const char *w;
	size_t n;
	unsigned k = 0;

	*extra = 0;
	while (word(c, &w, &n)) {
		uint64_t x;
		if (!number(w, n, &x))
			return -1;
		if (k < max)
			v[k++] = x;
		else
			(*extra)++;
	}
	return (int)k;
}

static void copy_word(char *dst, size_t cap, const char *w, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, w, n);
	dst[n] = 0;
}

static bool starts(const struct lc *c, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(c->end - c->p) >= n && !memcmp(c->p, s, n);
}

/* "device D mounted on M with fstype T [statvers=V]": a new mount when T
 * is NFS's */
static struct ks_mount *device_line(struct lc *c, struct ks_mountstats *out, struct ks_skips *sk)
{
	const char *w[8];
	size_t n[8];
	unsigned k = 0;

	/* device D mounted on M with fstype T: the words 0-7 */
	while (k < 8 && word(c, &w[k], &n[k]))
		k++;
	if (k < 8 || n[2] != 7 || memcmp(w[2], "mounted", 7) || n[6] != 6 || memcmp(w[6], "fstype", 6)) {
		sk->n[KS_F_MOUNTSTATS][k < 8 ? KS_WHY_SHORT : KS_WHY_UNKNOWN]++;
		return NULL;
	}
	if (!(n[7] == 3 && !memcmp(w[7], "nfs", 3)) && !(n[7] == 4 && !memcmp(w[7], "nfs4", 4)))
		return NULL;    /* not NFS: not ours to count */
	if (out->nmount >= KS_MAX_MOUNTS) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_FULL]++;
		return NULL;
	}
	struct ks_mount *m = &out->m[out->nmount++];
	memset(m, 0, sizeof(*m));
	m->xprt_layout = -1;
	copy_word(m->device, sizeof(m->device), w[1], n[1]);
	copy_word(m->mountpoint, sizeof(m->mountpoint), w[4], n[4]);
	copy_word(m->fstype, sizeof(m->fstype), w[7], n[7]);
	return m;
}

/* opts: the server's address and the protocol, for the labels */
static void opts_line(struct lc *c, struct ks_mount *m)
{
	const char *w;
	size_t n;

	if (!word(c, &w, &n))
		return;
	const char *p = w, *end = w + n;
	while (p < end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		if (!q)
			q = end;
		size_t len = (size_t)(q - p);
		if (len > 5 && !memcmp(p, "addr=", 5))
			copy_word(m->addr, sizeof(m->addr), p + 5, len - 5);
		else if (len > 10 && !memcmp(p, "mountaddr=", 10) && !m->addr[0])
			copy_word(m->addr, sizeof(m->addr), p + 10, len - 10);
		else if (len > 6 && !memcmp(p, "proto=", 6))
			copy_word(m->proto, sizeof(m->proto), p + 6, len - 6);
		p = q + 1;
	}
	/* NFSv4 mounts name no addr=: the server of "SERVER:/path" */
	const char *sep = strstr(m->device, ":/");
	if (!m->addr[0] && sep)
		copy_word(m->addr, sizeof(m->addr), m->device, (size_t)(sep - m->device));
}

static void xprt_line(struct lc *c, struct ks_mount *m, struct ks_skips *sk)
{
	const char *w;
	size_t n;
	uint64_t v[KS_XPRT_FIELDS];
	unsigned extra;

	if (!word(c, &w, &n)) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_SHORT]++;
		return;
	}
	int k = numbers(c, v, KS_XPRT_FIELDS, &extra);
	if (k < 0) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_NUMBER]++;
		return;
	}
	int layout = -1;
	for (int l = 0; l < L_N; l++)
		if (strlen(layouts[l].proto) == n && !memcmp(layouts[l].proto, w, n) && layouts[l].n == (unsigned)k &&
		    !extra)
			layout = l;
	if (layout < 0 || (m->nxprt && m->xprt_layout != layout)) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_XPRT_LAYOUT]++;
		return;
	}
	/* nconnect: one line a connection, summed (the gauges among them,
	 * max_slots and idle_time, are taken at their largest) */
	const char *const *f = layouts[layout].f;
	for (int i = 0; i < k; i++) {
		bool gauge = !strcmp(f[i], "max_slots") || !strcmp(f[i], "idle_time") || !strcmp(f[i], "port");
		if (!m->nxprt || !gauge)
			m->xprt[i] = m->nxprt ? m->xprt[i] + v[i] : v[i];
		else if (v[i] > m->xprt[i])
			m->xprt[i] = v[i];
	}
	m->xprt_layout = layout;
	m->nxprt++;
}

/* "NAME: n n n ..." under "per-op statistics" */
static void op_line(struct lc *c, struct ks_mount *m, struct ks_skips *sk)
{
	const char *colon = memchr(c->p, ':', (size_t)(c->end - c->p));
	uint64_t v[KS_OP_FIELDS];
	unsigned extra;

	skip_ws(c);
	if (!colon || colon <= c->p) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_UNKNOWN]++;
		return;
	}
	const char *name = c->p;
	size_t nlen = (size_t)(colon - name);
	c->p = colon + 1;
	int k = numbers(c, v, KS_OP_FIELDS, &extra);
	if (k < 0) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_NUMBER]++;
		return;
	}
	if (k < 8) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_SHORT]++;
		return;
	}
	if (m->nop >= KS_MAX_OPS) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_FULL]++;
		return;
	}
	struct ks_op *o = &m->op[m->nop++];
	memset(o, 0, sizeof(*o));
	copy_word(o->name, sizeof(o->name), name, nlen);
	o->n = (unsigned)k;
	memcpy(o->v, v, sizeof(uint64_t) * (unsigned)k);
}

static void fixed_line(struct lc *c, uint64_t *dst, unsigned want, bool *has, struct ks_skips *sk)
{
	uint64_t v[KS_EVENTS];
	unsigned extra;
	int k = numbers(c, v, KS_EVENTS, &extra);

	if (k < 0) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_NUMBER]++;
		return;
	}
	if ((unsigned)k < want) {
		sk->n[KS_F_MOUNTSTATS][KS_WHY_SHORT]++;
		return;
	}
	/* more than want: a newer kernel's fields at the end, the known kept */
	memcpy(dst, v, sizeof(uint64_t) * want);
	*has = true;
}

void ks_mountstats_parse(const char *text, size_t len, struct ks_mountstats *out, struct ks_skips *sk)
{
	const char *p = text, *end = text + len;
	struct ks_mount *m = NULL;
	bool in_ops = false;

	out->nmount = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct lc c = { p, nl ? nl : end };
		p = nl ? nl + 1 : end;
		if (!nl && c.p == c.end)
			break;
		if (starts(&c, "device ")) {
			m = device_line(&c, out, sk);
			in_ops = false;
			continue;
		}
		if (!m)
			continue;   /* a mount not NFS's, or not kept */
		skip_ws(&c);
		if (c.p == c.end)
			continue;
		if (in_ops) {
			op_line(&c, m, sk);
			continue;
		}
		if (starts(&c, "opts:")) {
			c.p += 5;
			opts_line(&c, m);
		} else if (starts(&c, "age:")) {
			c.p += 4;
			bool has = false;
			uint64_t v[1];
			fixed_line(&c, v, 1, &has, sk);
			if (has)
				m->age = v[0], m->has_age = true;
		} else if (starts(&c, "events:")) {
			c.p += 7;
			fixed_line(&c, m->events, KS_EVENTS, &m->has_events, sk);
		} else if (starts(&c, "bytes:")) {
			c.p += 6;
			fixed_line(&c, m->bytes, KS_BYTES, &m->has_bytes, sk);
		} else if (starts(&c, "xprt:")) {
			c.p += 5;
			xprt_line(&c, m, sk);
		} else if (starts(&c, "per-op statistics")) {
			in_ops = true;
		} else if (starts(&c, "caps:") || starts(&c, "sec:") || starts(&c, "RPC iostats") ||
			   starts(&c, "nfsv4:") || starts(&c, "impl_id:") || starts(&c, "fsc:") || starts(&c, "lease_time:") ||
			   starts(&c, "lease_expired:")) {
			/* known, nothing exported from them */
		} else {
			sk->n[KS_F_MOUNTSTATS][KS_WHY_UNKNOWN]++;
		}
	}
}

const char *ks_why_name(enum ks_why w)
{
	static const char *const n[KS_WHY_N] = {
		[KS_WHY_SHORT] = "short", [KS_WHY_NUMBER] = "not_a_number", [KS_WHY_XPRT_LAYOUT] = "xprt_layout",
		[KS_WHY_UNKNOWN] = "unknown_line", [KS_WHY_FULL] = "full", [KS_WHY_TOO_LARGE] = "too_large",
		[KS_WHY_READ] = "read_error",
	};
	return (unsigned)w < KS_WHY_N ? n[w] : "?";
}
