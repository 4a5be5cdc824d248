/* The names of a record (record_names.h). */
#include "dissect/record_names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dissect/dissect.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"

static bool is_nfs4(const struct nfsrdma_record *r)
{
	return (r->prog == PROG_NFS && r->vers == 4) || r->prog == PROG_NFS_CB;
}

const char *rec_prog_str(const struct nfsrdma_record *r, char *buf, size_t len)
{
	if (!(r->flags & RECF_CALL) || !r->prog) {
		snprintf(buf, len, "RPC");
		return buf;
	}
	if (r->prog == PROG_NFS && r->vers == 4 && r->proc == 0)
		snprintf(buf, len, "NFSv4");   /* NULL has no minor version */
	else if (r->prog == PROG_NFS && r->vers == 4)
		snprintf(buf, len, "NFSv4.%u", r->minorvers);
	else if (r->prog == PROG_NFS_CB)
		snprintf(buf, len, "NFSv4-CB");
	else
		prog_short_name(r->prog, r->vers, buf, len);
	return buf;
}

const char *rec_proc_str(const struct nfsrdma_record *r, char *buf, size_t len)
{
	if (!(r->flags & RECF_CALL) || !r->prog) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (is_nfs4(r) && r->proc == 1) {
		snprintf(buf, len, "%s", nfs4_compound_name(r));
		return buf;
	}
	const char *n = prog_proc_name(r->prog, r->vers, r->proc);
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "proc%u", r->proc);
	return buf;
}

const char *rec_name_str(const struct nfsrdma_record *r, char *buf, size_t len)
{
	char a[32], b[48];

	snprintf(buf, len, "%s %s", rec_prog_str(r, a, sizeof(a)), rec_proc_str(r, b, sizeof(b)));
	return buf;
}

const char *rec_ep_str(const struct rec_endpoint *e, char *buf, size_t len)
{
	char a[64];

	dissect_addr_str(e, a, sizeof(a));
	if (e->ip_proto)
		snprintf(buf, len, e->family == 6 ? "[%s].%u" : "%s.%u", a, e->port);
	else if (e->qpn)
		snprintf(buf, len, "%s.qp%u", a, e->qpn);
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

bool rec_has_op(const struct nfsrdma_record *r, const char *name)
{
	char b[48];

	if (!strcasecmp(rec_proc_str(r, b, sizeof(b)), name))
		return true;
	if (is_nfs4(r))
		for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS; i++) {
			const char *nm = r->prog == PROG_NFS_CB ? nfs4_cb_op_name(r->ops[i].op)
								: nfs4_op_name(r->ops[i].op);
			if (!strcasecmp(nm, name))
				return true;
		}
	return false;
}
