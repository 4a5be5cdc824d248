/* Pass-through join (see coll_join.h): every record is emitted as it
 * arrives, and counted by origin so the transport's tests can check that
 * everything sent reached this point. */
#include "src/daemon/coll_join.h"

#include <stdlib.h>

struct coll_join {
	coll_emit_fn emit;
	void *ctx;
	struct coll_join_stats st;
};

struct coll_join *coll_join_new(coll_emit_fn emit, void *ctx)
{
	struct coll_join *j = calloc(1, sizeof(*j));

	if (j) {
		j->emit = emit;
		j->ctx = ctx;
	}
	return j;
}

void coll_join_free(struct coll_join *j) { free(j); }

void coll_join_add(struct coll_join *j, const struct nfsrdma_record *r, const struct fwd_meta *m, uint64_t recv_ns)
{
	if (m)
		j->st.remote++;
	else
		j->st.local++;
	j->st.emitted++;
	j->emit(r, j->ctx);
}

uint64_t coll_join_poll(struct coll_join *j, uint64_t now_ns) { return 0; }

void coll_join_get_stats(const struct coll_join *j, struct coll_join_stats *s) { *s = j->st; }
