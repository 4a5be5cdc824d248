/* Cross-client ordering of the replay (src/replay/replay_deps.c) and the
 * traced clients (replay_clients.c), on a synthetic trace of NFSv3 calls
 * from three clients: a call waits for the last earlier change by another
 * client of a handle or (directory, name) it touches, a change also for
 * the last look of another client; the expected dependencies below are
 * worked out by hand from those rules. */
#include "check.h"

#include "src/clnt/nfs3.h"
#include "src/replay/replay_engine.h"

static const struct nfs_fh DIR_D = { .len = 8, .data = { 'd', 'i', 'r', 'D' } };
static const struct nfs_fh FILE_F = { .len = 8, .data = { 'f', 'i', 'l', 'F' } };
static const struct nfs_fh FILE_G = { .len = 8, .data = { 'f', 'i', 'l', 'G' } };

static void call(struct trace *t, unsigned client_addr, uint32_t proc, const struct nfs_fh *fh,
		 const char *name)
{
	struct tcall *tc = &t->calls[t->n++];
	uint8_t buf[512];
	struct xenc x;

	memset(tc, 0, sizeof(*tc));
	tc->prog = PROG_NFS;
	tc->vers = 3;
	tc->proc = proc;
	tc->xid = 0x1000u + (uint32_t)t->n;
	tc->cfamily = 4;
	tc->caddr[0] = 10;
	tc->caddr[3] = (uint8_t)client_addr;
	xenc_init(&x, buf, sizeof(buf));
	xenc_fh(&x, fh);
	if (name)
		xenc_string(&x, name);
	if (proc == NFS3P_CREATE) {
		xenc_u32(&x, 0);              /* UNCHECKED */
		for (int k = 0; k < 6; k++)
			xenc_u32(&x, 0);      /* sattr3: nothing set */
	} else if (proc == NFS3P_READ) {
		xenc_u64(&x, 0);
		xenc_u32(&x, 4096);
	} else if (proc == NFS3P_WRITE) {
		xenc_u64(&x, 0);
		xenc_u32(&x, 4);
		xenc_u32(&x, 2);              /* FILE_SYNC */
		xenc_opaque(&x, "abcd", 4);
	}
	tc->args = malloc(x.len);
	memcpy(tc->args, buf, x.len);
	tc->args_len = (uint32_t)x.len;
}

int main(void)
{
	struct engine *e = calloc(1, sizeof(*e));
	enum { A = 1, B = 2, C = 3 };

	e->t.calls = calloc(32, sizeof(*e->t.calls));
	e->t.cap = 32;
	call(&e->t, A, NFS3P_CREATE, &DIR_D, "f");   /* #1 */
	call(&e->t, A, NFS3P_WRITE, &FILE_F, NULL);  /* #2 */
	call(&e->t, C, NFS3P_READ, &FILE_G, NULL);   /* #3 */
	call(&e->t, B, NFS3P_LOOKUP, &DIR_D, "f");   /* #4: after A's CREATE of (D, f) */
	call(&e->t, B, NFS3P_READ, &FILE_F, NULL);   /* #5: after A's WRITE of F */
	call(&e->t, C, NFS3P_READ, &FILE_G, NULL);   /* #6: nothing of another client */
	call(&e->t, B, NFS3P_REMOVE, &DIR_D, "f");   /* #7: after A's CREATE (D changed) */
	call(&e->t, A, NFS3P_LOOKUP, &DIR_D, "f");   /* #8: after B's REMOVE */
	call(&e->t, A, NFS3P_READ, &FILE_F, NULL);   /* #9: F last changed by A itself */
	call(&e->t, C, NFS3P_WRITE, &FILE_G, NULL);  /* #10: G only looked at by C */
	call(&e->t, A, NFS3P_READ, &FILE_G, NULL);   /* #11: after C's WRITE of G */
	call(&e->t, B, NFS3P_WRITE, &FILE_F, NULL);  /* #12: a change after A's look (#9) */
	e->t.calls[e->t.n] = e->t.calls[0];          /* #13: A's address as NFSv4: another client */
	e->t.calls[e->t.n].vers = 4;
	e->t.calls[e->t.n].proc = 0;
	e->t.calls[e->t.n++].args = NULL;
	e->ti = calloc(e->t.n, sizeof(*e->ti));

	CHECK(replay_clients(&e->t) == 0, "replay_clients");
	CHECK_EQ_U64(e->t.nclients, 4);
	CHECK_EQ_STR(e->t.clients[0].label, "10.0.0.1 NFSv3");
	CHECK_EQ_STR(e->t.clients[1].label, "10.0.0.3 NFSv3");
	CHECK_EQ_STR(e->t.clients[2].label, "10.0.0.2 NFSv3");
	CHECK_EQ_STR(e->t.clients[3].label, "10.0.0.1 NFSv4.1");
	CHECK_EQ_U64(e->t.calls[0].client, 0);
	CHECK_EQ_U64(e->t.calls[3].client, 2);
	CHECK_EQ_U64(e->t.calls[12].client, 3);
	CHECK_EQ_U64(e->t.clients[0].calls, 5);

	replay_deps(e);
	static const uint64_t want[13] = { 0, 0, 0, 1, 2, 0, 1, 7, 0, 0, 10, 9, 0 };
	for (size_t i = 0; i < e->t.n; i++)
		CHECK(e->ti[i].dep == want[i], "call #%zu waits for #%" PRIu64 ", expected #%" PRIu64, i + 1,
		      e->ti[i].dep, want[i]);
	CHECK_EQ_U64(e->deps, 6);

	for (size_t i = 0; i + 1 < e->t.n; i++)
		free(e->t.calls[i].args);
	free(e->t.calls);
	free(e->t.clients);
	free(e->ti);
	free(e);
	return check_summary("test_replay_deps");
}
