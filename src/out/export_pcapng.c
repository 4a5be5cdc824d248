/* Annotated pcapng export (see export_pcapng.h).
 *
 * Frames are tied to RPCs by the dissector itself: the capture source turns
 * on its frame notes (dissect_cbs.frame_note), which name for every frame
 * the RPC (connection, XID) it was part of and its role there: a packet of
 * the call or the reply, an RDMA READ request or response, an RDMA WRITE
 * packet, an ACK.  The notes of an RPC come when its record completes, so
 * packets wait in a bounded queue and each gets its comment when its note
 * arrives; a packet that has to leave the queue first is written with what
 * is known then (nothing). */
#include "src/out/export_pcapng.h"
#include "src/base/clock.h"
#include "src/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "pcap/pcapng_writer.h"
#include "src/out/recfmt.h"
#include "pcap/source_pcap.h"
#include "src/base/version.h"

/* RPCs remembered after their notes, for ACKs noted later (the ACK of a
 * reply follows the reply: its note has the XID but no record). */
#define INFO_SLOTS 4096
#define KEEP_MAX   4096

struct qpkt {
	uint64_t frame, ts;
	uint32_t caplen, wirelen;
	uint8_t *data;               /* NULL: could not be queued (counted as a write error) */
	char *comment;               /* from the frame's note, or NULL */
};

struct info {
	uint32_t conn, xid;
	char op[40];
	char mix[24];
	char status[24];
	char lat[32];
};

struct pcapng_export {
	struct pcapng_export_opts o;
	struct source *src;
	char *path, *dir, *prefix;
	struct pcapng_writer *w;
	int linktype;
	char ifname[128];
	uint64_t file_open_ns, file_seq;
	char **kept;                 /* rotated file names, oldest first */
	unsigned nkept;
	struct qpkt *q;
	size_t qcap, qhead, qlen, qbytes;
	struct info *info;
	struct pcapng_export_stats st;
	int first_err;
	bool warned;                 /* the first write error was logged */
};

static struct info *info_slot(struct pcapng_export *x, uint32_t conn, uint32_t xid)
{
	/* murmur3 finaliser: Linux XIDs differ in their high bytes */
	uint32_t h = xid ^ (conn * 0x9e3779b9u);
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return &x->info[h % INFO_SLOTS];
}

/* Spaces become '_' so that each value is one token: status=... (the
 * operation is quoted instead: its name is the one every output prints). */
static void one_token(char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			*s = '_';
}

static const struct info *info_put(struct pcapng_export *x, const struct nfsrdma_record *r)
{
	struct info *i = info_slot(x, r->conn_id, r->xid);

	i->conn = r->conn_id;
	i->xid = r->xid;
	rec_name_str(r, i->op, sizeof(i->op));
	for (char *q = i->op; *q; q++)   /* the quotes delimit it */
		if (*q == '"')
			*q = '\'';
	rec_chunk_mix(r, i->mix, sizeof(i->mix));
	rec_status_str(r, i->status, sizeof(i->status));
	one_token(i->status);
	fmt_dur(r->d_total, i->lat, sizeof(i->lat));
	return i;
}

static const struct info *info_find(struct pcapng_export *x, uint32_t conn, uint32_t xid)
{
	const struct info *i = info_slot(x, conn, xid);

	return i->op[0] && i->conn == conn && i->xid == xid ? i : NULL;
}

static int open_file(struct pcapng_export *x, char *err, size_t errlen)
{
	char path[4096], desc[256];
	const char *name = x->path;

	if (!name) {
		time_t now = time(NULL);
		struct tm tm;
		char stamp[32];
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(path, sizeof(path), "%s/%s-%s-%llu.pcapng", x->dir, x->prefix, stamp,
			 (unsigned long long)x->file_seq++);
		name = path;
	}
	int rc = pcapng_writer_open(&x->w, name, "nfsrdma " NFSRDMA_VERSION, err, errlen);
	if (rc < 0)
		return rc;
	snprintf(desc, sizeof(desc), "nfsrdma export of %s; comments: xid op role chunks status latency",
		 x->ifname);
	if ((rc = pcapng_writer_add_if(x->w, x->linktype, 262144, x->ifname, desc)) < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(-rc));
		pcapng_writer_close(x->w);
		x->w = NULL;
		return rc;
	}
	x->st.files++;
	x->file_open_ns = clock_mono_ns();
	if (!x->path && x->o.keep) {
		if (x->nkept == x->o.keep) {
			unlink(x->kept[0]);
			free(x->kept[0]);
			memmove(x->kept, x->kept + 1, (x->nkept - 1) * sizeof(*x->kept));
			x->nkept--;
		}
		x->kept[x->nkept++] = strdup(name);
	}
	return 0;
}

static void close_file(struct pcapng_export *x)
{
	if (!x->w)
		return;
	x->st.bytes += pcapng_writer_bytes(x->w);
	int rc = pcapng_writer_close(x->w);
	if (rc < 0 && !x->first_err)
		x->first_err = rc;
	x->w = NULL;
}

static void write_oldest(struct pcapng_export *x)
{
	struct qpkt *p = &x->q[x->qhead];

	if (!x->w || (!x->path && ((x->o.rotate_ns && clock_mono_ns() - x->file_open_ns >= x->o.rotate_ns) ||
				   (x->o.rotate_bytes && pcapng_writer_bytes(x->w) >= x->o.rotate_bytes)))) {
		char err[512];
		close_file(x);
		if (open_file(x, err, sizeof(err)) < 0) {
			x->st.write_errors++;
			if (!x->first_err)
				x->first_err = -EIO;
			/* once: a daemon that cannot write its exports must say
			 * so (e.g. an export dir the dropped user cannot write) */
			if (!x->warned)
				log_warn("export: %s (further export errors are only counted)", err);
			x->warned = true;
		}
	}
	if (x->w && p->data) {
		if (pcapng_writer_packet(x->w, 0, p->ts, p->data, p->caplen, p->wirelen, p->comment) < 0)
			x->st.write_errors++;
		else {
			x->st.packets++;
			if (p->comment)
				x->st.comments++;
		}
	}
	if (p->data)
		x->qbytes -= p->caplen;
	free(p->data);
	free(p->comment);
	p->data = NULL;
	p->comment = NULL;
	x->qhead = (x->qhead + 1) % x->qcap;
	x->qlen--;
}

static void tap_packet(void *ctx, uint64_t frame, uint64_t ts, const uint8_t *data, size_t caplen,
		       size_t wirelen)
{
	struct pcapng_export *x = ctx;

	while (x->qlen && (x->qlen == x->qcap || x->qbytes + caplen > x->o.queue_bytes))
		write_oldest(x);
	/* The slot is taken even when the copy fails: queued() finds frames by
	 * their distance from the oldest one. */
	struct qpkt *p = &x->q[(x->qhead + x->qlen) % x->qcap];
	memset(p, 0, sizeof(*p));
	p->frame = frame;
	p->ts = ts;
	p->caplen = (uint32_t)caplen;
	p->wirelen = (uint32_t)wirelen;
	x->qlen++;
	if (!(p->data = malloc(caplen ? caplen : 1))) {
		x->st.write_errors++;
		return;
	}
	memcpy(p->data, data, caplen);
	x->qbytes += caplen;
}

static struct qpkt *queued(struct pcapng_export *x, uint64_t frame)
{
	if (!x->qlen)
		return NULL;
	uint64_t first = x->q[x->qhead].frame;
	if (frame < first || frame >= first + x->qlen)
		return NULL;
	return &x->q[(x->qhead + (frame - first)) % x->qcap];
}

static const char *role_name(uint8_t role)
{
	switch (role) {
	case DFR_CALL:      return "call";
	case DFR_REPLY:     return "reply";
	case DFR_READ_REQ:  return "rdma-read-request";
	case DFR_READ_RESP: return "rdma-read-response";
	case DFR_WRITE:     return "rdma-write";
	case DFR_ACK:       return "ack";
	case DFR_CM:        return "cm";
	default:            return NULL;   /* DFR_OTHER: part of no RPC, no comment */
	}
}

static void tap_note(void *ctx, const struct dissect_frame_note *n)
{
	struct pcapng_export *x = ctx;
	const char *role = role_name(n->role);
	struct qpkt *p = queued(x, n->frame);
	char c[256];

	if (!p || !role)
		return;          /* already written (queue full), or nothing to say */
	const struct info *i = n->rec ? info_put(x, n->rec) : n->xid ? info_find(x, n->conn_id, n->xid) : NULL;
	if (i)
		snprintf(c, sizeof(c), "nfsrdma: xid=0x%08x conn=%u op=\"%s\" role=%s chunks=%s status=%s latency=%s",
			 n->xid, n->conn_id, i->op, role, i->mix, i->status, i->lat);
	else if (n->xid)
		snprintf(c, sizeof(c), "nfsrdma: xid=0x%08x conn=%u role=%s", n->xid, n->conn_id, role);
	else
		snprintf(c, sizeof(c), "nfsrdma: conn=%u role=%s", n->conn_id, role);
	free(p->comment);
	p->comment = strdup(c);
}

int pcapng_export_new(struct pcapng_export **out, struct source *src, const struct pcapng_export_opts *o,
		      char *err, size_t errlen)
{
	struct pcapng_export *x;
	int rc;

	*out = NULL;
	if (!source_is_pcap(src)) {
		snprintf(err, errlen, "only capture sources (pcap:, live:) carry packets to export");
		return -EINVAL;
	}
	if (!o->path && !o->dir) {
		snprintf(err, errlen, "no export file or directory");
		return -EINVAL;
	}
	if (!(x = calloc(1, sizeof(*x))))
		goto nomem;
	x->o = *o;
	if (!x->o.queue_pkts)
		x->o.queue_pkts = 65536;
	if (!x->o.queue_bytes)
		x->o.queue_bytes = 64u << 20;
	if (x->o.keep > KEEP_MAX)
		x->o.keep = KEEP_MAX;
	x->qcap = x->o.queue_pkts;
	x->q = calloc(x->qcap, sizeof(*x->q));
	x->info = calloc(INFO_SLOTS, sizeof(*x->info));
	x->kept = calloc(x->o.keep ? x->o.keep : 1, sizeof(*x->kept));
	x->path = o->path ? strdup(o->path) : NULL;
	x->dir = o->dir ? strdup(o->dir) : NULL;
	x->prefix = strdup(o->prefix ? o->prefix : "nfsrdma");
	if (!x->q || !x->info || !x->kept || (o->path && !x->path) || (o->dir && !x->dir) || !x->prefix)
		goto nomem;
	x->src = src;
	x->linktype = source_pcap_linktype(src);
	snprintf(x->ifname, sizeof(x->ifname), "%s", source_pcap_name(src));
	if (x->path) {
		/* One file: create it now so a bad path fails before any work. */
		if ((rc = open_file(x, err, errlen)) < 0) {
			x->src = NULL;
			pcapng_export_close(x);
			return rc;
		}
	}
	/* Before the first packet: the source turns on frame tracking. */
	if ((rc = source_pcap_set_frame_note(src, tap_note, x)) < 0) {
		snprintf(err, errlen, "%s: %s", source_pcap_name(src),
			 rc == -EBUSY ? "the export must be attached before the first packet" : strerror(-rc));
		x->src = NULL;
		pcapng_export_close(x);
		return rc;
	}
	struct pcap_tap tap = { .packet = tap_packet, .ctx = x };
	source_pcap_set_tap(src, &tap);
	*out = x;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	pcapng_export_close(x);
	return -ENOMEM;
}

int pcapng_export_close(struct pcapng_export *x)
{
	if (!x)
		return 0;
	if (x->src) {
		source_pcap_set_tap(x->src, NULL);
		source_pcap_set_frame_note(x->src, NULL, NULL);
	}
	while (x->qlen)
		write_oldest(x);
	close_file(x);
	int rc = x->first_err;
	for (unsigned i = 0; i < x->nkept; i++)
		free(x->kept[i]);
	free(x->kept);
	free(x->q);
	free(x->info);
	free(x->path);
	free(x->dir);
	free(x->prefix);
	free(x);
	return rc;
}

/* Records reach the export through the frame notes that carry them. */
static void file_record(const struct nfsrdma_record *r, void *ctx)
{
	(void)r;
	(void)ctx;
}

int pcapng_export_file(const char *in, const char *read_from, const char *out, char *err,
		       size_t errlen)
{
	struct source_opts so = { .speed = 0 };
	struct pcapng_export *x = NULL;
	struct source *s;
	int rc;

	if ((rc = source_pcap_open_as(&s, read_from ? read_from : in, in, &so, file_record, &x, err,
				      errlen)) < 0)
		return rc;
	/* the file rule (outfile.h) is the writer's */
	struct pcapng_export_opts o = { .path = out };
	if ((rc = pcapng_export_new(&x, s, &o, err, errlen)) < 0) {
		source_close(s);
		return rc;
	}
	while ((rc = source_poll(s, 0)) >= 0)
		;
	rc = rc == -ENODATA ? 0 : rc;
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", in, strerror(-rc));
	int wrc = pcapng_export_close(x);
	source_close(s);
	if (!rc && wrc < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(-wrc));
		rc = wrc;
	}
	return rc;
}
