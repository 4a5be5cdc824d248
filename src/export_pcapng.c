/* Annotated pcapng export (see export_pcapng.h).
 *
 * Frames are tied to RPCs without changing the dissector: the source's tap
 * shows each reassembled RDMA message (its first and last frame); a SEND
 * carries the RPC-over-RDMA XID in its first word, and the Linux client
 * puts the XID in the upper 32 bits of each chunk segment's offset, which
 * names the RPC of an RDMA READ or WRITE.  Records (completed RPCs) are
 * kept in a small table by (connection, XID) and the comment is built when
 * the frame leaves the queue.  When the dissector grows a per-frame note
 * callback (dissect_cbs.frame_note) this guesswork can be replaced by it. */
#include "src/export_pcapng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcap/pcapng_writer.h"
#include "src/recfmt.h"
#include "src/source_pcap.h"
#include "src/version.h"

#define INFO_SLOTS 65536        /* completed RPCs remembered for annotation */
#define KEEP_MAX   4096

enum role { R_NONE = 0, R_SEND, R_READ, R_WRITE };

struct qpkt {
	uint64_t frame, ts;
	uint32_t caplen, wirelen;
	uint8_t *data;
	uint32_t conn, xid;
	uint8_t role, dir;
	bool last;                   /* the last frame of a multi-frame message */
};

struct info {
	uint32_t conn, xid;
	uint32_t flags;
	uint64_t d_total, frame_call, frame_reply;
	char name[40];
	char mix[24];
	char status[24];
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
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t info_slot(uint32_t conn, uint32_t xid)
{
	/* murmur3 finaliser: Linux XIDs differ in their high bytes */
	uint32_t h = xid ^ (conn * 0x9e3779b9u);
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h % INFO_SLOTS;
}

static const struct info *info_find(const struct pcapng_export *x, uint32_t conn, uint32_t xid)
{
	const struct info *i = &x->info[info_slot(conn, xid)];

	return i->name[0] && i->conn == conn && i->xid == xid ? i : NULL;
}

void pcapng_export_record(struct pcapng_export *x, const struct nfsrdma_record *r)
{
	if (!x)
		return;
	struct info *i = &x->info[info_slot(r->conn_id, r->xid)];
	i->conn = r->conn_id;
	i->xid = r->xid;
	i->flags = r->flags;
	i->d_total = r->d_total;
	i->frame_call = r->frame_call;
	i->frame_reply = r->frame_reply;
	rec_name_str(r, i->name, sizeof(i->name));
	for (char *p = i->name; *p; p++)
		if (*p == ' ')
			*p = '_';         /* one token: op=NFSv3_READ */
	rec_chunk_mix(r, i->mix, sizeof(i->mix));
	rec_status_str(r, i->status, sizeof(i->status));
	for (char *p = i->status; *p; p++)
		if (*p == ' ')
			*p = '_';
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
	x->file_open_ns = mono_ns();
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

static void comment_for(const struct pcapng_export *x, const struct qpkt *p, char *buf, size_t len)
{
	static const char *const rn[] = { "", "send", "rdma-read", "rdma-write" };
	const struct info *i = info_find(x, p->conn, p->xid);
	char lat[32];

	buf[0] = 0;
	if (!i) {
		/* READ/WRITE xids are only a hint: without a matching RPC say nothing about them */
		if (p->role == R_SEND)
			snprintf(buf, len, "nfsrdma: xid=0x%08x conn=%u role=send", p->xid, p->conn);
		else
			snprintf(buf, len, "nfsrdma: conn=%u role=%s", p->conn, rn[p->role]);
		return;
	}
	const char *role = rn[p->role];
	if (p->role == R_SEND) {
		bool call = (p->dir == 0) != !!(i->flags & RECF_BACKCHANNEL);
		role = call ? "call" : "reply";
	}
	snprintf(buf, len, "nfsrdma: xid=0x%08x conn=%u op=%s role=%s%s chunks=%s status=%s latency=%s",
		 i->xid, i->conn, i->name, role, p->last ? "-last" : "", i->mix, i->status,
		 fmt_dur(i->d_total, lat, sizeof(lat)));
}

static void write_oldest(struct pcapng_export *x)
{
	struct qpkt *p = &x->q[x->qhead];
	char comment[256];

	if (!x->w || (!x->path && ((x->o.rotate_ns && mono_ns() - x->file_open_ns >= x->o.rotate_ns) ||
				   (x->o.rotate_bytes && pcapng_writer_bytes(x->w) >= x->o.rotate_bytes)))) {
		char err[512];
		close_file(x);
		if (open_file(x, err, sizeof(err)) < 0) {
			x->st.write_errors++;
			if (!x->first_err)
				x->first_err = -EIO;
		}
	}
	if (x->w) {
		if (p->role)
			comment_for(x, p, comment, sizeof(comment));
		if (pcapng_writer_packet(x->w, 0, p->ts, p->data, p->caplen, p->wirelen,
					 p->role ? comment : NULL) < 0)
			x->st.write_errors++;
		else {
			x->st.packets++;
			if (p->role)
				x->st.comments++;
		}
	}
	x->qbytes -= p->caplen;
	free(p->data);
	p->data = NULL;
	x->qhead = (x->qhead + 1) % x->qcap;
	x->qlen--;
}

static void tap_packet(void *ctx, uint64_t frame, uint64_t ts, const uint8_t *data, size_t caplen,
		       size_t wirelen)
{
	struct pcapng_export *x = ctx;

	while (x->qlen && (x->qlen == x->qcap || x->qbytes + caplen > x->o.queue_bytes))
		write_oldest(x);
	struct qpkt *p = &x->q[(x->qhead + x->qlen) % x->qcap];
	memset(p, 0, sizeof(*p));
	p->frame = frame;
	p->ts = ts;
	p->caplen = (uint32_t)caplen;
	p->wirelen = (uint32_t)wirelen;
	p->data = malloc(caplen ? caplen : 1);
	if (!p->data) {
		x->st.write_errors++;
		return;
	}
	memcpy(p->data, data, caplen);
	x->qbytes += caplen;
	x->qlen++;
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

static void tap_event(void *ctx, const struct rdma_event *ev)
{
	struct pcapng_export *x = ctx;
	uint8_t role;
	uint32_t xid;

	switch (ev->type) {
	case RDMA_EV_SEND:
		if (ev->data_len < 4)
			return;
		role = R_SEND;
		xid = (uint32_t)ev->data[0] << 24 | (uint32_t)ev->data[1] << 16 | (uint32_t)ev->data[2] << 8 |
		      ev->data[3];
		break;
	case RDMA_EV_READ:
		role = R_READ;
		xid = (uint32_t)(ev->va >> 32);
		break;
	case RDMA_EV_WRITE:
		role = R_WRITE;
		xid = (uint32_t)(ev->va >> 32);
		break;
	default:
		return;
	}
	uint64_t frames[2] = { ev->frame_first, ev->frame_last };
	for (int k = 0; k < (ev->frame_last != ev->frame_first ? 2 : 1); k++) {
		struct qpkt *p = queued(x, frames[k]);
		if (!p)
			continue;
		p->role = role;
		p->xid = xid;
		p->conn = ev->conn ? ev->conn->id : 0;
		p->dir = (uint8_t)ev->dir;
		p->last = k == 1;
	}
}

int pcapng_export_new(struct pcapng_export **out, struct source *src, const struct pcapng_export_opts *o,
		      char *err, size_t errlen)
{
	struct pcapng_export *x;

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
		int rc = open_file(x, err, errlen);
		if (rc < 0) {
			x->src = NULL;
			pcapng_export_close(x);
			return rc;
		}
	}
	struct pcap_tap tap = { tap_packet, tap_event, x };
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
	if (x->src)
		source_pcap_set_tap(x->src, NULL);
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

void pcapng_export_get_stats(const struct pcapng_export *x, struct pcapng_export_stats *st)
{
	*st = x->st;
	if (x->w)
		st->bytes += pcapng_writer_bytes(x->w);
}

static void file_record(const struct nfsrdma_record *r, void *ctx)
{
	pcapng_export_record(*(struct pcapng_export **)ctx, r);
}

int pcapng_export_file(const char *in, const char *out, char *err, size_t errlen)
{
	struct source_opts so = { .speed = 0 };
	struct pcapng_export *x = NULL;
	struct source *s;
	char spec[4096];
	int rc;

	snprintf(spec, sizeof(spec), "pcap:%s", in);
	if ((rc = source_open(&s, spec, &so, file_record, &x, err, errlen)) < 0)
		return rc;
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
