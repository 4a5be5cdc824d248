/* The RPCs in flight in the kernel sources' probes, read at each
 * Prometheus scrape and each nfsrdma-top snapshot (docs/probes.md, "RPCs
 * in flight"): a stalled server shows here while the probes, which emit a
 * record only at completion, show nothing else. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "src/daemon/daemon_int.h"
#include "src/probe/probe_inflight.h"
#include "src/probe/probe_load.h"

unsigned daemon_inflight(struct daemon *d, struct agg_snap *s)
{
	struct inflight_limits l = {
		.stall_ns = (uint64_t)(d->c->stall_after * 1e9),
		.abandon_ns = (uint64_t)(d->c->abandon_after * 1e9),
	};
	struct inflight_side side[2];
	unsigned sides = 0;

	memset(side, 0, sizeof(side));
	for (unsigned i = 0; i < d->nsrc; i++) {
		struct probe *p = source_kernel_probe(d->src[i].s);
		/* a map not read leaves the side out rather than at 0 */
		if (p && probe_inflight(p, &l, side) >= 0)
			sides |= probe_sides(p) & 3;
	}
	s->inflight_sides = sides;
	for (int k = 0; k < 2; k++) {
		s->inflight[k] = (struct agg_inflight){
			.in_flight = side[k].in_flight, .oldest_ns = side[k].oldest_ns,
			.stalled = side[k].stalled, .abandoned = side[k].abandoned, .stall_after_ns = l.stall_ns,
		};
	}
	return sides;
}

void daemon_inflight_metrics(FILE *f, struct daemon *d)
{
	static const struct { const char *name, *help; } m[] = {
		{ "nfsrdma_rpcs_in_flight", "RPCs begun and not completed in the kernel probes' maps now "
					    "(abandoned slots apart)" },
		{ "nfsrdma_rpc_in_flight_oldest_seconds", "Age of the oldest RPC in flight now, from its first "
							  "event, on the probes' clock (0: none)" },
		{ "nfsrdma_rpcs_stalled", "RPCs in flight longer than --stall-after" },
		{ "nfsrdma_rpcs_abandoned", "Slots left behind: server requests whose nfsd thread waits for new "
					    "work, and slots older than --abandon-after (RPCs ended without their "
					    "completion event, or stalled that long)" },
	};
	struct agg_snap s;
	unsigned sides;

	memset(&s, 0, sizeof(s));
	if (!(sides = daemon_inflight(d, &s)))
		return;
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", m[k].name, m[k].help, m[k].name);
		for (int i = 0; i < 2; i++) {
			const struct agg_inflight *a = &s.inflight[i];
			if (!(sides & (1u << i)))
				continue;
			fprintf(f, "%s{side=\"%s\"} ", m[k].name, i ? "server" : "client");
			if (k == 1)
				fprintf(f, "%.6f\n", (double)a->oldest_ns * 1e-9);
			else
				fprintf(f, "%" PRIu64 "\n", k == 0 ? a->in_flight : k == 2 ? a->stalled : a->abandoned);
		}
	}
}
