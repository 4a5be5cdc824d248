#include "dissect/xdr.h"
#include "dissect/name_text.h"

#include <string.h>

uint32_t xdr_ddp_opaque(struct pdec *d, uint32_t max, bool *moved, const char *what)
{
	struct xdr_ddp *p = d->ddp;
	uint32_t n = cur_be32(&d->c, what);

	*moved = false;
	if (!cur_ok(&d->c))
		return 0;
	if (p)
		p->eligible_seen++;
	if (p && !d->reply) {
		for (unsigned i = p->read_used; i < p->nread; i++) {
			/* The length word stays inline; the chunk's position is
			 * where the body would have started. */
			if (p->read_pos[i] == d->c.off ||
			    (n > cur_left(&d->c) && i == p->read_used)) {
				p->read_used = (uint16_t)(i + 1);
				*moved = true;
				return n;
			}
		}
	} else if (p && d->reply && p->write_used < p->nwrite) {
		p->write_used++;
		*moved = true;
		return n;
	}
	if (n > max) {
		d->c.off -= 4;
		cur_fail(&d->c, CUR_INVALID, what);
		return 0;
	}
	cur_skip(&d->c, n, what);
	if (n & 3)
		cur_skip(&d->c, 4 - (n & 3), what);
	return n;
}

bool xdr_name(struct pdec *d, uint32_t max, char *out, size_t outlen, bool *cut, const char *what)
{
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(&d->c, max, &n, what);
	bool c = false;

	if (cut)
		*cut = false;
	if (!outlen)
		return p != NULL;
	out[0] = 0;
	if (!p)
		return false;
	/* the bytes as they were: outputs escape them, each its own way */
	size_t k = name_keep(p, n, outlen - 1, &c);
	memcpy(out, p, k);
	out[k] = 0;
	if (cut)
		*cut = c;
	return true;
}

bool xdr_string(struct pdec *d, uint32_t max, char *out, size_t outlen, const char *what)
{
	return xdr_name(d, max, out, outlen, NULL, what);
}

uint64_t xdr_fh(struct pdec *d, uint32_t maxlen, const char *what)
{
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(&d->c, maxlen, &n, what);

	return p ? xdr_fh_hash(p, n) : 0;
}

void xdr_dt_name(struct pdec *d, const char *label, const char *s, bool cut)
{
	char q[4 * REC_NAME_MAX * 2];

	if (d->tree)
		dt_add(d->tree, "%s: \"%s\"%s", label, name_text(s, (size_t)-1, q, sizeof(q)), cut ? "..." : "");
}

void xdr_rec_name(struct nfsrdma_record *r, const char *s, bool cut)
{
	bool more;
	size_t n = name_keep((const uint8_t *)s, strlen(s), sizeof(r->name) - 1, &more);

	memcpy(r->name, s, n);
	r->name[n] = 0;
	if (cut || more)
		r->flags |= RECF_NAME_CUT;
}
