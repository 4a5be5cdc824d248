/* NFS version 3 (RFC 1813): all 22 procedures, key arguments and status.
 * NFS version 2 procedure names ride along (no argument decode). */
#include "dissect/nfs_status.h"
#include "dissect/nfs_xdr_skip.h"
#include "dissect/programs.h"

#include <inttypes.h>

#define NFS3_FHSIZE 64
#define NFS3_NAMEMAX 1024
#define NFS3_PATHMAX 4096

static const char *nfs3_prog_proc_name(uint32_t vers, uint32_t proc)
{
	return nfs3_proc_name(proc);
}

static uint64_t fh3(struct pdec *d, const char *what)
{
	uint64_t h = xdr_fh(d, NFS3_FHSIZE, what);
	DT(d->tree, "%s: hash 0x%08" PRIx32, what, (uint32_t)h);
	return h;
}

/* The first filehandle of the call is the record's key one. */
static void key_fh(struct pdec *d, const char *what)
{
	uint64_t h = fh3(d, what);
	if (!d->rec->fh_hash)
		d->rec->fh_hash = h;
}

static void diropargs(struct pdec *d, const char *what)
{
	char name[REC_NAME_MAX];
	bool cut;

	key_fh(d, what);
	if (xdr_name(d, NFS3_NAMEMAX, name, sizeof(name), &cut, "nfs3 name")) {
		if (!d->rec->name[0])
			xdr_rec_name(d->rec, name, cut);
		xdr_dt_name(d, "name", name, cut);
	}
}

static void sattr3(struct pdec *d)
{
	nfs3_skip_sattr3(&d->c);
}

static void nfs3_call(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;
	bool moved;

	switch (d->proc) {
	case NFS3P_NULL:
		break;
	case NFS3P_GETATTR: case NFS3P_READLINK: case NFS3P_FSSTAT: case NFS3P_FSINFO:
	case NFS3P_PATHCONF:
		key_fh(d, "object");
		break;
	case NFS3P_SETATTR:
		key_fh(d, "object");
		sattr3(d);
		if (xdr_bool(d, "sattrguard3"))
			xdr_skip(d, 8, "sattrguard3 ctime");
		break;
	case NFS3P_LOOKUP: case NFS3P_REMOVE: case NFS3P_RMDIR:
		diropargs(d, "dir");
		break;
	case NFS3P_ACCESS: {
		key_fh(d, "object");
		uint32_t acc = xdr_u32(d, "access");
		DT(d->tree, "access: 0x%02x", acc);
		break;
	}
	case NFS3P_READ: case NFS3P_COMMIT:
		key_fh(d, "file");
		r->offset = xdr_u64(d, "offset");
		r->count = xdr_u32(d, "count");
		DT(d->tree, "offset: %" PRIu64 " count: %u", r->offset, r->count);
		break;
	case NFS3P_WRITE: {
		key_fh(d, "file");
		r->offset = xdr_u64(d, "offset");
		r->count = xdr_u32(d, "count");
		uint32_t stable = xdr_u32(d, "stable");
		uint32_t n = xdr_ddp_opaque(d, 1u << 30, &moved, "write data");
		DT(d->tree, "offset: %" PRIu64 " count: %u stable: %s data: %u bytes%s", r->offset,
		   r->count, stable == 0 ? "UNSTABLE" : stable == 1 ? "DATA_SYNC" : "FILE_SYNC",
		   n, moved ? " (Read chunk)" : " (inline)");
		break;
	}
	case NFS3P_CREATE: {
		diropargs(d, "where");
		uint32_t how = xdr_u32(d, "createhow3");
		if (how == 2)
			xdr_skip(d, 8, "createverf3");
		else
			sattr3(d);
		break;
	}
	case NFS3P_MKDIR:
		diropargs(d, "where");
		sattr3(d);
		break;
	case NFS3P_SYMLINK: {
		diropargs(d, "where");
		sattr3(d);
		uint32_t n = xdr_ddp_opaque(d, NFS3_PATHMAX, &moved, "symlink path");
		DT(d->tree, "path: %u bytes%s", n, moved ? " (Read chunk)" : "");
		break;
	}
	case NFS3P_MKNOD: {
		diropargs(d, "where");
		uint32_t type = xdr_u32(d, "ftype3");
		if (type == 3 || type == 4) { /* NF3CHR, NF3BLK */
			sattr3(d);
			xdr_skip(d, 8, "specdata3");
		} else if (type == 6 || type == 7) { /* NF3SOCK, NF3FIFO */
			sattr3(d);
		}
		break;
	}
	case NFS3P_RENAME:
		diropargs(d, "from");
		diropargs(d, "to");
		break;
	case NFS3P_LINK:
		key_fh(d, "file");
		diropargs(d, "link");
		break;
	case NFS3P_READDIR:
		key_fh(d, "dir");
		r->offset = xdr_u64(d, "cookie");
		xdr_skip(d, 8, "cookieverf");
		r->count = xdr_u32(d, "count");
		DT(d->tree, "cookie: %" PRIu64 " count: %u", r->offset, r->count);
		break;
	case NFS3P_READDIRPLUS:
		key_fh(d, "dir");
		r->offset = xdr_u64(d, "cookie");
		xdr_skip(d, 8, "cookieverf");
		xdr_u32(d, "dircount");
		r->count = xdr_u32(d, "maxcount");
		DT(d->tree, "cookie: %" PRIu64 " maxcount: %u", r->offset, r->count);
		break;
	default:
		break;
	}
}

static void post_op_attr(struct pdec *d)
{
	if (xdr_bool(d, "post_op_attr"))
		xdr_skip(d, 84, "fattr3");
}

static void wcc_data(struct pdec *d)
{
	if (xdr_bool(d, "pre_op_attr"))
		xdr_skip(d, 24, "wcc_attr");
	post_op_attr(d);
}

static void nfs3_reply(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;
	bool moved;

	if (d->proc == NFS3P_NULL) {
		r->status = 0;
		return;
	}
	r->status = xdr_u32(d, "nfsstat3");
	if (!xdr_ok(d))
		return;
	DT(d->tree, "status: NFS3_%s (%u)", nfs_stat_name(r->status), r->status);
	switch (d->proc) {
	case NFS3P_READ:
		post_op_attr(d);
		if (r->status == 0) {
			r->res_count = xdr_u32(d, "count");
			bool eof = xdr_bool(d, "eof");
			uint32_t n = xdr_ddp_opaque(d, 1u << 30, &moved, "read data");
			DT(d->tree, "count: %u eof: %d data: %u bytes%s", r->res_count, eof, n,
			   moved ? " (Write chunk)" : " (inline)");
		}
		break;
	case NFS3P_READLINK:
		post_op_attr(d);
		if (r->status == 0) {
			uint32_t n = xdr_ddp_opaque(d, NFS3_PATHMAX, &moved, "readlink path");
			DT(d->tree, "path: %u bytes%s", n, moved ? " (Write chunk)" : "");
		}
		break;
	case NFS3P_WRITE:
		wcc_data(d);
		if (r->status == 0) {
			r->res_count = xdr_u32(d, "count");
			uint32_t committed = xdr_u32(d, "committed");
			xdr_skip(d, 8, "writeverf3");
			DT(d->tree, "count: %u committed: %u", r->res_count, committed);
		}
		break;
	default:
		/* Other results carry nothing the record keeps. */
		break;
	}
}

static bool nfs3_ddp(uint32_t vers, uint32_t proc, bool reply)
{
	/* RFC 8267 §4: Write chunk for READ data and READLINK path; Read
	 * chunk for WRITE data and SYMLINK path. */
	if (vers == 2)
		return reply ? (proc == 6 || proc == 5) : (proc == 8 || proc == 13);
	return reply ? (proc == NFS3P_READ || proc == NFS3P_READLINK)
		     : (proc == NFS3P_WRITE || proc == NFS3P_SYMLINK);
}

const struct prog_info prog_nfs3 = {
	.prog = PROG_NFS, .vmin = 3, .vmax = 3, .name = "NFS", .layer = "nfs3",
	.proc_name = nfs3_prog_proc_name,
	.decode_call = nfs3_call, .decode_reply = nfs3_reply,
	.ddp_eligible = nfs3_ddp,
};

static const char *const nfs2_names[] = {
	"NULL", "GETATTR", "SETATTR", "ROOT", "LOOKUP", "READLINK", "READ", "WRITECACHE",
	"WRITE", "CREATE", "REMOVE", "RENAME", "LINK", "SYMLINK", "MKDIR", "RMDIR",
	"READDIR", "STATFS",
};

static const char *nfs2_proc_name(uint32_t vers, uint32_t proc)
{
	return proc < sizeof(nfs2_names) / sizeof(nfs2_names[0]) ? nfs2_names[proc] : NULL;
}

const struct prog_info prog_nfs2 = {
	.prog = PROG_NFS, .vmin = 2, .vmax = 2, .name = "NFS", .layer = "nfs3",
	.proc_name = nfs2_proc_name, .ddp_eligible = nfs3_ddp,
};
