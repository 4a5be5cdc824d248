/* --dry-run: what would be sent, with the trace's paths; no network. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>
#include <string.h>

#include "dissect/name_text.h"
#include "dissect/nfs_status.h"
#include "dissect/xdr.h"
#include "src/base/json.h"
#include "src/clnt/nfs3.h"
#include "src/out/out.h"

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

/* One call as the dry run shows it, in text or JSON. */
struct dry_call {
	size_t n;                  /* 1-based position in the trace */
	const struct tcall *tc;
	bool supported, v4, mutation;
	char ops[512];             /* NFSv4: the COMPOUND's operations, comma-separated */
	const char *path, *to;     /* NFSv3: the handles' paths (or NULL) */
	const char *name;          /* NFSv3: the first name argument (or NULL) */
	struct v4_names names;     /* NFSv4: the names its ops carry */
	const char *status;
	uint64_t after;            /* the other client's call it waits for (1-based; 0: none) */
	uint32_t after_client;
};

static void dry_text(FILE *f, const struct dry_call *d)
{
	const struct tcall *tc = d->tc;
	const char *label = tc->name;

	if (!d->supported) {
		fprintf(f, "%6zu xid 0x%08x %-20s unsupported (NFSv3, NFSACLv3 and NFSv4 are replayed)\n",
			d->n, tc->xid, label);
		return;
	}
	fprintf(f, "%6zu xid 0x%08x %-20s ", d->n, tc->xid, label);
	if (d->v4) {
		fprintf(f, "[%s]", d->ops);
		fputs(d->names.n > 1 ? " names" : d->names.n ? " name" : "", f);
		for (unsigned k = 0; k < d->names.n; k++) {
			fputc(' ', f);
			out_text_name(f, d->names.name[k], sizeof(d->names.name[k]), false);
		}
	} else {
		/* paths too hold the trace's names: escaped, not quoted */
		char q[4 * 512 + 1];
		if (d->path)
			fputs(name_text(d->path, (size_t)-1, q, sizeof(q)), f);
		if (d->name) {
			fputs(" name ", f);
			out_text_name(f, d->name, (size_t)-1, false);
		}
		if (d->to)
			fprintf(f, " -> %s", name_text(d->to, (size_t)-1, q, sizeof(q)));
	}
	fprintf(f, " status %s inflight %u%s%s%s client c%u", d->status, tc->inflight,
		d->mutation ? " MUTATION" : "", tc->has_read_chunk ? " read-chunk" : "",
		tc->has_reply_chunk ? " reply-chunk" : tc->has_write_chunk ? " write-chunk" : "",
		tc->client + 1u);
	if (d->after)
		fprintf(f, " after #%" PRIu64 " (c%u)", d->after, d->after_client + 1u);
	fputc('\n', f);
}

static void json_key_str(struct jw *j, const char *key, const char *v)
{
	jw_c(j, ',');
	jw_str(j, key);
	jw_c(j, ':');
	jw_str(j, v);
}

/* docs/replay.md, "--dry-run --json" */
static void dry_json(FILE *f, const struct dry_call *d)
{
	const struct tcall *tc = d->tc;
	struct jw jb, *j = &jb;

	jw_init(j, f);
	jw_lit(j, "{\"type\":\"call\"");
	JW_KEY(j, "n");
	jw_u(j, d->n);
	JW_KEY(j, "xid");
	jw_c(j, '"');
	jw_hex8(j, tc->xid);
	jw_c(j, '"');
	JW_KEY(j, "frame");
	jw_u(j, tc->frame);
	json_key_str(j, "op", tc->name);
	JW_KEY(j, "client");
	jw_u(j, tc->client + 1u);
	JW_KEY(j, "supported");
	jw_bool(j, d->supported);
	if (d->after) {
		JW_KEY(j, "after");
		jw_u(j, d->after);
	}
	if (d->supported) {
		if (d->v4) {
			JW_KEY(j, "ops");
			jw_c(j, '[');
			const char *p = d->ops;
			for (bool first = true; *p; first = false) {
				size_t len = strcspn(p, ",");
				if (!first)
					jw_c(j, ',');
				jw_strn(j, p, len < 63 ? len : 63);   /* an op's name as it was cut */
				p += len + (p[len] == ',');
			}
			jw_lit(j, "],\"names\":[");
			for (unsigned k = 0; k < d->names.n; k++) {
				if (k)
					jw_c(j, ',');
				jw_str(j, d->names.name[k]);
			}
			jw_c(j, ']');
		}
		if (d->path)
			json_key_str(j, "path", d->path);
		if (d->name)
			json_key_str(j, "name", d->name);
		if (d->to)
			json_key_str(j, "to", d->to);
		json_key_str(j, "status", d->status);
		JW_KEY(j, "inflight");
		jw_u(j, tc->inflight);
		JW_KEY(j, "mutation");
		jw_bool(j, d->mutation);
		JW_KEY(j, "read_chunk");
		jw_bool(j, tc->has_read_chunk);
		JW_KEY(j, "write_chunk");
		jw_bool(j, tc->has_write_chunk);
		JW_KEY(j, "reply_chunk");
		jw_bool(j, tc->has_reply_chunk);
	}
	jw_lit(j, "}\n");
	jw_flush(j);
}

/* --dry-run: what would be sent, with the trace's paths; no network.
 * Text, or with --json one JSON object per line (a "trace" line, a
 * "call" line per call, a closing "dry_run" line). */
int replay_dry_run(struct engine *e)
{
	FILE *f = e->out;
	bool json = e->o->json;
	uint64_t n = 0, mut = 0, unsup = 0;
	const char *export = e->t.export_path[0] ? e->t.export_path : e->v4 ? "(NFSv4 pseudo-root)" : "?";
	const char *root = e->t.have_root ? "from MOUNT" : !e->have_troot ? "unknown" :
			   e->v4 ? "from PUTROOTFH" : "from the first FSINFO";

	if (json) {
		struct jw jb, *j = &jb;

		jw_init(j, f);
		jw_lit(j, "{\"type\":\"trace\"");
		json_key_str(j, "trace", e->o->trace);
		JW_KEY(j, "calls");
		jw_u(j, e->t.n);
		if (e->t.export_path[0])
			json_key_str(j, "export", e->t.export_path);
		else
			jw_lit(j, ",\"export\":null");   /* not in the trace */
		json_key_str(j, "root", root);
		jw_lit(j, "}\n");
		jw_flush(j);
	} else {
		char q[4 * sizeof(e->t.export_path)];
		fprintf(f, "trace %s: %zu NFS calls, export %s, root %s\n", e->o->trace, e->t.n,
			name_text(export, (size_t)-1, q, sizeof(q)), root);
	}
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		struct dry_call d = { .n = i + 1, .tc = tc, .supported = true, .after = e->ti[i].dep };
		if (d.after)
			d.after_client = e->t.calls[d.after - 1].client;
		char path[2][512];
		struct layout l;
		bool v3 = (tc->prog == PROG_NFS && tc->vers == 3) || tc->prog == PROG_NFSACL;
		d.status = !tc->replied ? "none" : tc->rpc_status ? "rpc-error" :
			   tc->status ? nfs_stat_name(tc->status) : "OK";
		if (tc->prog == PROG_NFS && tc->vers == 4 && (tc->proc == 0 || tc->v4known)) {
			struct nfs4_call_info in;
			memset(&in, 0, sizeof(in));
			if (tc->proc == 1)
				nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			size_t off = 0;
			for (unsigned k = 0; k < in.nops && k < NFS4_RES_MAXOPS && off < sizeof(d.ops) - 1; k++) {
				int w = snprintf(d.ops + off, sizeof(d.ops) - off, "%s%s", k ? "," : "",
						 nfs4_op_name(in.op[k]));
				if (w < 0)
					break;
				off += (size_t)w;
			}
			d.v4 = true;
			d.mutation = in.mutates;
			if (tc->proc == 1)
				replay_v4_names(tc, &in, &d.names);
		} else if (!v3) {
			d.supported = false;
		} else {
			bool ok = replay_nfs3_layout(tc, &l);
			d.mutation = tc->prog == PROG_NFSACL ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
			if (tc->replied && !tc->rpc_status)
				d.status = nfs_stat_name(tc->status);
			if (ok && l.nref)
				d.path = trace_path(e, &l.ref[0].fh, path[0], sizeof(path[0]));
			if (ok && l.has_name)
				d.name = l.name;
			if (ok && l.nref > 1)
				d.to = trace_path(e, &l.ref[1].fh, path[1], sizeof(path[1]));
		}
		if (d.supported) {
			n++;
			mut += d.mutation;
		} else {
			unsup++;
		}
		if (json)
			dry_json(f, &d);
		else
			dry_text(f, &d);
		/* the listing's reader is gone (| head) or its disk full: the
		 * rest would be listed for no one; main's close of stdout says
		 * which (quiet for a closed pipe) */
		if (ferror(f))
			return 0;
	}
	if (json) {
		struct jw jb, *j = &jb;

		jw_init(j, f);
		jw_lit(j, "{\"type\":\"dry_run\"");
		JW_KEY(j, "replayable");
		jw_u(j, n);
		JW_KEY(j, "mutations");
		jw_u(j, mut);
		JW_KEY(j, "unsupported");
		jw_u(j, unsup);
		JW_KEY(j, "trace_retransmits");
		jw_u(j, e->t.retransmits);
		JW_KEY(j, "cross_client_deps");
		jw_u(j, e->deps);
		JW_KEY(j, "clients");
		jw_c(j, '[');
		for (unsigned k = 0; k < e->t.nclients; k++) {
			const struct tclient *c = &e->t.clients[k];
			jw_lit(j, k ? ",{\"client\":" : "{\"client\":");
			jw_u(j, k + 1);
			json_key_str(j, "label", c->label);
			JW_KEY(j, "vers");
			jw_u(j, c->vers);
			JW_KEY(j, "minor");
			jw_u(j, c->minor);
			JW_KEY(j, "first_conn");
			jw_u(j, c->first_conn);
			JW_KEY(j, "calls");
			jw_u(j, c->calls);
			JW_KEY(j, "own_state_before_start");
			jw_bool(j, replay_needs_own_state(&e->t, k));
			jw_c(j, '}');
		}
		jw_lit(j, "]}\n");
		jw_flush(j);
	} else {
		fprintf(f, "%" PRIu64 " call(s) wait for another client's call (after #N)\n", e->deps);
		for (unsigned k = 0; k < e->t.nclients; k++)
			fprintf(f, "client c%u %s: %" PRIu64 " calls (first on connection %u)%s\n", k + 1,
				e->t.clients[k].label, e->t.clients[k].calls, e->t.clients[k].first_conn,
				!replay_needs_own_state(&e->t, k) ? "" : e->t.clients[k].minor ?
				"; a session of the replay's own, set up before the start" :
				"; a client ID of the replay's own, set up before the start");
	}
	if (!json)
		fprintf(f, "dry run: %" PRIu64 " replayable calls, %" PRIu64 " of them change state "
			"(%s), %" PRIu64 " unsupported, %" PRIu64 " trace retransmits\n", n, mut,
			e->o->allow_mutations ? "--allow-mutations: sent" : "need --allow-mutations", unsup,
			e->t.retransmits);
	/* a call that could not be replayed fails the run (as replaying would) */
	return unsup ? 1 : 0;
}
