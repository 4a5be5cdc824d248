#include "dissect/programs.h"

#include <stdio.h>
#include <strings.h>

#include "dissect/nfs4.h"

static const struct prog_info *const progs[] = {
	&prog_nfs3, &prog_nfs2, &prog_nfs4, &prog_nfs_cb, &prog_mount,
	&prog_nlm, &prog_nsm, &prog_nfsacl, &prog_portmap,
};

const struct prog_info *prog_lookup(uint32_t prog, uint32_t vers)
{
	const struct prog_info *any = NULL;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (progs[i]->prog != prog)
			continue;
		if (vers >= progs[i]->vmin && vers <= progs[i]->vmax)
			return progs[i];
		if (!any)
			any = progs[i];
	}
	/* Unknown version of a known program: still name the program, but
	 * decoding stays with the version-matched entry only. */
	return any && vers == 0 ? any : NULL;
}

const char *prog_short_name(uint32_t prog, uint32_t vers, char *buf, size_t len)
{
	const struct prog_info *p = NULL;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]) && !p; i++)
		if (progs[i]->prog == prog)
			p = progs[i];
	if (p)
		snprintf(buf, len, "%sv%u", p->name, vers);
	else
		snprintf(buf, len, "prog%u.v%u", prog, vers);
	return buf;
}

const char *prog_proc_name(uint32_t prog, uint32_t vers, uint32_t proc)
{
	const struct prog_info *p = prog_lookup(prog, vers);

	return p && p->proc_name ? p->proc_name(vers, proc) : NULL;
}

bool prog_name_known(const char *name)
{
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		const struct prog_info *p = progs[i];
		if (!p->proc_name)
			continue;
		/* procedure numbers are small and dense in every program here */
		for (uint32_t v = p->vmin; v <= p->vmax; v++)
			for (uint32_t proc = 0; proc < 64; proc++) {
				const char *n = p->proc_name(v, proc);
				if (n && !strcasecmp(n, name))
					return true;
			}
	}
	for (uint32_t op = 0; op <= NFS4_OP_LAST; op++)
		if (!strcasecmp(nfs4_op_name(op), name) && strcmp(nfs4_op_name(op), "OP_?"))
			return true;
	for (uint32_t op = 0; op <= NFS4_OP_CB_LAST; op++)
		if (!strcasecmp(nfs4_cb_op_name(op), name) && strcmp(nfs4_cb_op_name(op), "CB_?"))
			return true;
	for (const char *const *n = nfs4_compound_names; *n; n++)
		if (!strcasecmp(*n, name))
			return true;
	return false;
}
