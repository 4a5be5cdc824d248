/* See verdict_sum.h. */
#include "src/stats/verdict_sum.h"

#include <stdio.h>
#include <string.h>

void verdict_sum_add_set(struct verdict_sum *v, uint16_t places, uint64_t ns)
{
	if (!places || !ns)
		return;
	v->ns += ns;
	for (unsigned i = 0; i < v->nset; i++)
		if (v->set[i] == places) {
			v->set_ns[i] += ns;
			return;
		}
	if (v->nset < VSUM_SETS) {
		v->set[v->nset] = places;
		v->set_ns[v->nset++] = ns;
		return;
	}
	v->overflow++;
	v->overflow_ns += ns;
}

void verdict_sum_add(struct verdict_sum *v, const struct nfsrdma_record *r)
{
	if (!rec_is_fused(r))
		return;
	for (unsigned sg = 0; sg < REC_SEG_N; sg++)
		if (r->f_seg_mask & (1u << sg)) {
			v->seg_sum[sg] += r->f_seg[sg];
			v->seg_n[sg]++;
		}
	if (!r->f_nplace)
		return;
	v->n++;
	for (unsigned i = 0; i < r->f_nplace && i < REC_FP_N; i++)
		verdict_sum_add_set(v, r->f_place[i].places, r->f_place[i].ns);
}

void verdict_sum_merge(struct verdict_sum *a, const struct verdict_sum *b)
{
	a->n += b->n;
	for (unsigned sg = 0; sg < REC_SEG_N; sg++) {
		a->seg_sum[sg] += b->seg_sum[sg];
		a->seg_n[sg] += b->seg_n[sg];
	}
	for (unsigned i = 0; i < b->nset; i++)
		verdict_sum_add_set(a, b->set[i], b->set_ns[i]);
	a->overflow += b->overflow;
	a->overflow_ns += b->overflow_ns;
	a->ns += b->overflow_ns;
}

bool verdict_sum_get(const struct verdict_sum *v, struct verdict_of *out)
{
	unsigned best = 0;

	memset(out, 0, sizeof(*out));
	if (!v->nset || !v->ns)
		return false;
	for (unsigned i = 1; i < v->nset; i++)
		if (v->set_ns[i] > v->set_ns[best] || (v->set_ns[i] == v->set_ns[best] && v->set[i] < v->set[best]))
			best = i;
	/* the time no set kept could all be one set larger than this one */
	if (v->overflow_ns >= v->set_ns[best])
		return false;
	out->places = v->set[best];
	out->ns = v->set_ns[best];
	out->pm = (uint16_t)(((unsigned __int128)out->ns * 1000 + v->ns / 2) / v->ns);
	return true;
}

bool verdict_sum_seg_mean(const struct verdict_sum *v, unsigned sg, uint64_t *mean_ns)
{
	if (sg >= REC_SEG_N || !v->seg_n[sg])
		return false;
	*mean_ns = v->seg_sum[sg] / v->seg_n[sg];
	return true;
}

const char *verdict_places_str(uint16_t places, char sep, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return "";
	buf[0] = 0;
	for (unsigned pl = 0; pl < REC_PL_N; pl++)
		if (places & (1u << pl)) {
			int k = snprintf(buf + n, len - n, "%s%s", n ? (char[]){ sep, 0 } : "", rec_place_name(pl));
			if (k < 0 || (size_t)k >= len - n)
				break;
			n += (size_t)k;
		}
	return buf;
}

const char *verdict_words(uint16_t places, unsigned pm, char *buf, size_t len)
{
	unsigned cnt = 0, k = 0;
	size_t n = 0;

	if (!len)
		return "";
	buf[0] = 0;
	for (unsigned pl = 0; pl < REC_PL_N; pl++)
		cnt += !!(places & (1u << pl));
	if (!cnt)
		return buf;
	if (cnt > 1)
		n += (size_t)snprintf(buf, len, "unresolved between ");
	for (unsigned pl = 0; pl < REC_PL_N && n < len; pl++) {
		if (!(places & (1u << pl)))
			continue;
		/* "a and b", "a, b and c" */
		const char *before = !k ? "" : k + 1 == cnt ? " and " : ", ";
		n += (size_t)snprintf(buf + n, len - n, "%s%s", before, rec_place_words(pl));
		k++;
	}
	if (n < len)
		snprintf(buf + n, len - n, " %u%%", (pm + 5) / 10);
	return buf;
}
