/* Replies over TCP/UDP that came out before their call (dissect_rpc.c):
 * each waits, its bytes copied, until its call comes (dx_hold_pair),
 * its connection closes, RPC_HOLD_NS of capture time pass, or the
 * capture ends; then it goes out as a reply with no call, as it did
 * before there was a hold.  RPC_HOLD_MAX replies and RPC_HOLD_BYTES
 * bytes at most: past either a reply goes out at once, counted.
 *
 * The time is TCP's longest retransmission timeout (Linux TCP_RTO_MAX,
 * 120 s): a direction held back by reassembly resumes when the missing
 * bytes come again, which is at most that long after the last try. */
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect_int.h"

#define RPC_HOLD_MAX   4096
#define RPC_HOLD_BYTES ((size_t)32 << 20)
#define RPC_HOLD_NS    (120ull * 1000000000ull)

struct early_reply {
	struct early_reply *older, *newer;
	struct xentry *x;
	struct net_msg m;           /* m.data points at bytes[] */
	uint8_t bytes[];
};

static void unlink_early(struct dissect *d, struct early_reply *e)
{
	if (e->older)
		e->older->newer = e->newer;
	else
		d->early_old = e->newer;
	if (e->newer)
		e->newer->older = e->older;
	else
		d->early_new = e->older;
	d->early_n--;
	d->early_bytes -= e->m.len;
	e->x->early = NULL;
}

bool dx_hold_reply(struct dissect *d, struct xentry *x, const struct net_msg *m)
{
	if (d->early_n >= RPC_HOLD_MAX || m->len > RPC_HOLD_BYTES - d->early_bytes) {
		d->st.early_full++;
		return false;
	}
	struct early_reply *e = malloc(sizeof(*e) + m->len);
	if (!e) {
		d->st.early_full++;
		return false;
	}
	e->x = x;
	e->m = *m;
	memcpy(e->bytes, m->data, m->len);
	e->m.data = e->bytes;
	e->newer = NULL;
	e->older = d->early_new;
	if (d->early_new)
		d->early_new->newer = e;
	else
		d->early_old = e;
	d->early_new = e;
	d->early_n++;
	d->early_bytes += m->len;
	x->early = e;
	d->st.early_held++;
	return true;
}

void dx_hold_pair(struct dissect *d, struct xentry *x)
{
	struct early_reply *e = x->early;

	unlink_early(d, e);
	d->st.early_paired++;
	dx_rpc_reply(d, x, &e->m);
	free(e);
}

void dx_hold_release(struct dissect *d, struct xentry *x)
{
	struct early_reply *e = x->early;

	unlink_early(d, e);
	dx_rpc_reply(d, x, &e->m);
	free(e);
}

void dx_hold_sweep(struct dissect *d)
{
	struct early_reply *e;

	while ((e = d->early_old) && d->now_ns > e->m.ts_last && d->now_ns - e->m.ts_last > RPC_HOLD_NS) {
		d->st.early_expired++;
		dx_hold_release(d, e->x);
	}
}

void dx_hold_close(struct dissect *d, uint32_t conn_id)
{
	struct early_reply *e = d->early_old, *next;

	for (; e; e = next) {
		next = e->newer;
		if (e->x->rec.conn_id == conn_id)
			dx_hold_release(d, e->x);
	}
}

void dx_hold_flush(struct dissect *d)
{
	while (d->early_old)
		dx_hold_release(d, d->early_old->x);
}

void dx_hold_free(struct dissect *d)
{
	while (d->early_old) {
		struct early_reply *e = d->early_old;
		unlink_early(d, e);
		free(e);
	}
}
