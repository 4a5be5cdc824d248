/* A group's verdict as JSON (out.h, out_json_verdict_sum). */
#include <inttypes.h>

#include "src/out/out.h"
#include "src/stats/verdict_sum.h"

static void json_places(FILE *f, uint16_t places)
{
	fputc('[', f);
	for (unsigned pl = 0, k = 0; pl < REC_PL_N; pl++)
		if (places & (1u << pl))
			fprintf(f, "%s\"%s\"", k++ ? "," : "", rec_place_name(pl));
	fputc(']', f);
}

void out_json_verdict_sum(FILE *f, const struct verdict_sum *v)
{
	struct verdict_of o;
	uint8_t idx[VSUM_SETS];

	fputs(",\"verdict\":", f);
	if (verdict_sum_get(v, &o)) {
		fputs("{\"place\":", f);
		json_places(f, o.places);
		fprintf(f, ",\"share\":%u.%03u}", o.pm / 1000, o.pm % 1000);
	} else {
		fputs("null", f);
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
	fputs(",\"places\":[", f);
	for (unsigned i = 0; i < v->nset; i++) {
		fputs(i ? ",{\"place\":" : "{\"place\":", f);
		json_places(f, v->set[idx[i]]);
		fprintf(f, ",\"ns\":%" PRIu64 "}", v->set_ns[idx[i]]);
	}
	fprintf(f, "],\"places_overflow\":{\"shares\":%" PRIu64 ",\"ns\":%" PRIu64 "},\"seg\":{", v->overflow,
		v->overflow_ns);
	for (unsigned sg = 0; sg < REC_SEG_N; sg++) {
		fprintf(f, "%s\"%s\":", sg ? "," : "", rec_seg_name(sg));
		if (v->seg_n[sg])
			fprintf(f, "{\"sum_ns\":%" PRIu64 ",\"rpcs\":%" PRIu64 ",\"mean_ns\":%" PRIu64 "}", v->seg_sum[sg],
				v->seg_n[sg], v->seg_sum[sg] / v->seg_n[sg]);
		else
			fputs("null", f);
	}
	fputc('}', f);
}
