/* The component names an NFSv4 COMPOUND of the trace carries, for the dry
 * run: a LOOKUP's, an OPEN's by name, a CREATE's, a REMOVE's, a RENAME's
 * old and new, a LINK's new name, in the order of the ops. */
#include "src/replay/replay_engine.h"

#include <stdio.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/name_text.h"
#include "dissect/nfs_vocab.h"
#include "dissect/nfs_xdr_skip.h"

/* Appends one name: the trace's bytes as they were (the outputs escape
 * them), bounded as a record's name is but at 255 bytes. */
static void add(struct v4_names *v, const uint8_t *p, uint32_t n)
{
	bool cut;

	if (!p || v->n >= V4_NAMES_MAX)
		return;
	char *d = v->name[v->n++];
	size_t k = name_keep(p, n, sizeof(v->name[0]) - 1, &cut);
	memcpy(d, p, k);
	d[k] = 0;
}

static void component(struct v4_names *v, struct cursor *c)
{
	uint32_t n = 0;
	const uint8_t *p = cur_xdr_opaque(c, NFS4_COMPONENT4_MAX, &n, "component4");
	add(v, p, n);
}

void replay_v4_names(const struct tcall *tc, const struct nfs4_call_info *in, struct v4_names *v)
{
	unsigned nops = in->nops < NFS4_RES_MAXOPS ? in->nops : NFS4_RES_MAXOPS;

	v->n = 0;
	for (unsigned k = 0; k < nops && v->n < V4_NAMES_MAX; k++) {
		if (in->op_off[k] > tc->args_len)
			break;
		struct cursor c = cur_make(tc->args + in->op_off[k], tc->args_len - in->op_off[k]);
		switch (in->op[k]) {
		case NFS4_OP_LOOKUP: case NFS4_OP_REMOVE: case NFS4_OP_LINK:
			component(v, &c);
			break;
		case NFS4_OP_RENAME:
			component(v, &c);
			component(v, &c);
			break;
		case NFS4_OP_CREATE: {
			uint32_t type = cur_be32(&c, "createtype4");
			if (type == 5) {
				/* linkdata: its bytes may have gone in the Read chunk */
				uint32_t n = cur_be32(&c, "linkdata length");
				if (!(tc->rpos && tc->rpos == in->op_off[k] + c.off))
					cur_skip(&c, ((size_t)n + 3) & ~(size_t)3, "linkdata");
			} else if (type == 3 || type == 4) {
				cur_skip(&c, 8, "specdata4");
			}
			component(v, &c);
			break;
		}
		case NFS4_OP_OPEN: {
			struct nfs4_open_args a;
			if (nfs4_walk_open_args(&c, &a))
				add(v, a.name, a.name_len);
			break;
		}
		default:
			break;
		}
	}
}
