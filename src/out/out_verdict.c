/* A group's verdict as JSON (out.h, out_jw_verdict_sum). */
#include "src/base/json.h"
#include "src/out/out.h"
#include "src/stats/verdict_sum.h"

static void json_places(struct jw *j, uint16_t places)
{
	jw_c(j, '[');
	for (unsigned pl = 0, k = 0; pl < REC_PL_N; pl++)
		if (places & (1u << pl)) {
			if (k++)
				jw_c(j, ',');
			jw_str(j, rec_place_name(pl));
		}
	jw_c(j, ']');
}

void out_jw_verdict_sum(struct jw *j, const struct verdict_sum *v)
{
	struct verdict_of o;
	uint8_t idx[VSUM_SETS];

	JW_KEY(j, "verdict");
	if (verdict_sum_get(v, &o)) {
		jw_lit(j, "{\"place\":");
		json_places(j, o.places);
		JW_KEY(j, "share");
		jw_u(j, o.pm / 1000);
		jw_c(j, '.');
		jw_c(j, (char)('0' + o.pm % 1000 / 100));
		jw_c(j, (char)('0' + o.pm % 100 / 10));
		jw_c(j, (char)('0' + o.pm % 10));
		jw_c(j, '}');
	} else {
		jw_null(j);
	}
	/* largest first, as a record's own places */
	for (unsigned i = 0; i < v->nset; i++)
		idx[i] = (uint8_t)i;
	for (unsigned i = 1; i < v->nset; i++)
		for (unsigned k = i; k > 0 && v->set_ns[idx[k]] > v->set_ns[idx[k - 1]]; k--) {
			uint8_t t = idx[k];
			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	JW_KEY(j, "places");
	jw_c(j, '[');
	for (unsigned i = 0; i < v->nset; i++) {
		jw_lit(j, i ? ",{\"place\":" : "{\"place\":");
		json_places(j, v->set[idx[i]]);
		JW_KEY(j, "ns");
		jw_u(j, v->set_ns[idx[i]]);
		jw_c(j, '}');
	}
	jw_c(j, ']');
	JW_KEY(j, "places_overflow");
	jw_lit(j, "{\"shares\":");
	jw_u(j, v->overflow);
	JW_KEY(j, "ns");
	jw_u(j, v->overflow_ns);
	jw_c(j, '}');
	JW_KEY(j, "seg");
	for (unsigned sg = 0; sg < REC_SEG_N; sg++) {
		jw_c(j, sg ? ',' : '{');
		jw_str(j, rec_seg_name(sg));
		jw_c(j, ':');
		if (v->seg_n[sg]) {
			jw_lit(j, "{\"sum_ns\":");
			jw_u(j, v->seg_sum[sg]);
			JW_KEY(j, "rpcs");
			jw_u(j, v->seg_n[sg]);
			JW_KEY(j, "mean_ns");
			jw_u(j, v->seg_sum[sg] / v->seg_n[sg]);
			jw_c(j, '}');
		} else {
			jw_null(j);
		}
	}
	jw_c(j, '}');
}

