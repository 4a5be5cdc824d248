/* --dry-run: what would be sent, with the trace's paths; no network. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>
#include <string.h>

#include "dissect/nfs_status.h"
#include "dissect/xdr.h"
#include "src/clnt/nfs3.h"

/* "/dir/name" of a trace handle, from the names its replies gave. */
static const char *trace_path(const struct engine *e, const struct nfs_fh *fh, char *buf, size_t len)
{
	const char *comp[64];
	unsigned n = 0;
	struct nfs_fh cur = *fh;

	while (n < 64) {
		if (e->have_troot && fhmap_fh_eq(&cur, &e->troot))
			break;
		struct fhent *p = fhmap_get(&e->tparent, &cur, NULL);
		const char *name = p ? replay_tpath_name(e, &cur) : NULL;
		if (!p || !name) {
			snprintf(buf, len, "?0x%08x", (uint32_t)xdr_fh_hash(fh->data, fh->len));
			return buf;
		}
		comp[n++] = name;
		cur = p->val;
	}
	size_t off = 0;
	buf[0] = 0;
	if (!n)
		snprintf(buf, len, "/");
	while (n-- > 0 && off < len) {
		int w = snprintf(buf + off, len - off, "/%s", comp[n]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

/* --dry-run: what would be sent, with the trace's paths; no network. */
int replay_dry_run(struct engine *e)
{
	FILE *f = e->out;
	uint64_t n = 0, mut = 0, unsup = 0;

	fprintf(f, "trace %s: %zu NFS calls, export %s, root %s\n", e->o->trace, e->t.n,
		e->t.export_path[0] ? e->t.export_path : e->v4 ? "(NFSv4 pseudo-root)" : "?",
		e->t.have_root ? "from MOUNT" : !e->have_troot ? "unknown" :
		e->v4 ? "from PUTROOTFH" : "from the first FSINFO");
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		char path[2][512];
		struct layout l;
		bool v3 = (tc->prog == PROG_NFS && tc->vers == 3) || tc->prog == PROG_NFSACL;
		if (tc->prog == PROG_NFS && tc->vers == 4 && (tc->proc == 0 || tc->v4known)) {
			struct nfs4_call_info in;
			memset(&in, 0, sizeof(in));
			if (tc->proc == 1)
				nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			char ops[512];
			size_t off = 0;
			ops[0] = 0;
			for (unsigned k = 0; k < in.nops && k < NFS4_RES_MAXOPS && off < sizeof(ops) - 1; k++) {
				int w = snprintf(ops + off, sizeof(ops) - off, "%s%s", k ? "," : "",
						 nfs4_op_name(in.op[k]));
				if (w < 0)
					break;
				off += (size_t)w;
			}
			n++;
			mut += in.mutates;
			fprintf(f, "%6zu xid 0x%08x %-16s [%s] status %s inflight %u%s%s%s\n", i + 1, tc->xid,
				replay_op_label(replay_op_index(tc)), ops,
				!tc->replied ? "none" : tc->rpc_status ? "rpc-error" : tc->status ? nfs_stat_name(tc->status) : "OK",
				tc->inflight, in.mutates ? " MUTATION" : "", tc->has_read_chunk ? " read-chunk" : "",
				tc->has_reply_chunk ? " reply-chunk" : tc->has_write_chunk ? " write-chunk" : "");
			continue;
		}
		if (!v3) {
			unsup++;
			fprintf(f, "%6zu xid 0x%08x %-16s unsupported (NFSv3, NFSACLv3 and NFSv4 are replayed)\n",
				i + 1, tc->xid, replay_op_label(replay_op_index(tc)));
			continue;
		}
		bool m = tc->prog == PROG_NFSACL ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
		mut += m;
		n++;
		bool ok = replay_nfs3_layout(tc, &l);
		fprintf(f, "%6zu xid 0x%08x %-16s %s%s%s%s%s%s status %s inflight %u%s%s%s\n", i + 1,
			tc->xid, replay_op_label(replay_op_index(tc)), ok && l.nref ? trace_path(e, &l.ref[0].fh, path[0], sizeof(path[0])) : "",
			ok && l.has_name ? " name \"" : "", ok && l.has_name ? l.name : "",
			ok && l.has_name ? "\"" : "",
			ok && l.nref > 1 ? " -> " : "", ok && l.nref > 1 ? trace_path(e, &l.ref[1].fh, path[1], sizeof(path[1])) : "",
			!tc->replied ? "none" : tc->rpc_status ? "rpc-error" : nfs_stat_name(tc->status),
			tc->inflight, m ? " MUTATION" : "", tc->has_read_chunk ? " read-chunk" : "",
			tc->has_reply_chunk ? " reply-chunk" : tc->has_write_chunk ? " write-chunk" : "");
	}
	fprintf(f, "dry run: %" PRIu64 " replayable calls, %" PRIu64 " of them change state "
		"(need --allow-mutations), %" PRIu64 " unsupported, %" PRIu64 " trace retransmits\n",
		n, mut, unsup, e->t.retransmits);
	return 0;
}
