/* See fwd_report.h.  Host names and addresses are printable ASCII without
 * quotes or backslashes by the time they get here (fwd_msg_decode refuses
 * others), so they go into labels and JSON strings as they are. */
#include "src/daemon/fwd_report.h"

#include "src/base/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f, const char *name, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, text, name);
}

void fwd_report_metrics(FILE *f, const struct forwarder *fw, struct collector *col)
{
	if (fw) {
		struct fwd_stats s;
		fwd_get_stats(fw, &s);
		help(f, "nfsrdma_forward_records_total",
		     "Records forwarded to the collector: sent = queued for it, dropped = the queue was full.");
		fprintf(f, "nfsrdma_forward_records_total{peer=\"%s\",result=\"sent\"} %" PRIu64 "\n", fwd_target(fw), s.sent);
		fprintf(f, "nfsrdma_forward_records_total{peer=\"%s\",result=\"dropped\"} %" PRIu64 "\n", fwd_target(fw),
			s.dropped);
	}
	if (!col)
		return;
	struct coll_stats *s = malloc(sizeof(*s));
	if (!s)
		return;
	coll_get_stats(col, s);
	help(f, "nfsrdma_collect_records_total",
	     "Records from each forwarding peer: received; lost = queued there, never arrived (sequence gaps); "
	     "earlier = queued before this collector heard the peer; malformed = messages refused; "
	     "peer_dropped = dropped by the peer's full queue, as it last reported.");
	static const char *const res[] = { "received", "lost", "earlier", "malformed", "peer_dropped" };
	for (unsigned i = 0; i < s->npeers; i++) {
		const struct coll_peer *p = &s->peer[i];
		const uint64_t v[] = { p->received, p->lost, p->earlier, p->malformed, p->peer_dropped };
		for (unsigned j = 0; j < 5; j++)
			fprintf(f, "nfsrdma_collect_records_total{peer=\"%s\",host=\"%s\",result=\"%s\"} %" PRIu64 "\n",
				p->addr, p->host, res[j], v[j]);
	}
	help(f, "nfsrdma_collect_refused_total",
	     "Connections refused: the peer's address is not in --collect-allow or its CURVE key not in --curve-allow.");
	for (unsigned i = 0; i < s->npeers; i++)
		if (s->peer[i].refused)
			fprintf(f, "nfsrdma_collect_refused_total{peer=\"%s\"} %" PRIu64 "\n", s->peer[i].addr,
				s->peer[i].refused);
	fprintf(f, "nfsrdma_collect_refused_total{peer=\"all\"} %" PRIu64 "\n", s->refused);
	free(s);
}

void fwd_report_json(struct jw *j, const struct forwarder *fw, struct collector *col, const struct coll_join *cj)
{
	if (fw) {
		struct fwd_stats s;
		fwd_get_stats(fw, &s);
		static const char *const fk[] = { "sent", "dropped" };
		const uint64_t fv[] = { s.sent, s.dropped };
		jw_lit(j, ",\"forward\":{\"peer\":");
		jw_str(j, fwd_target(fw));
		jw_counts(j, fk, fv, 2, true);
		jw_c(j, '}');
	}
	struct coll_stats *s = col ? malloc(sizeof(*s)) : NULL;
	if (s) {
		coll_get_stats(col, s);
		static const char *const ck[] = { "lost", "malformed", "refused", "peers_overflow" };
		const uint64_t cv[] = { s->lost, s->malformed, s->refused, s->overflow };
		jw_lit(j, ",\"collect\":{\"received\":");
		jw_u(j, s->received);
		jw_counts(j, ck, cv, 4, true);
		jw_lit(j, ",\"peers\":[");
		for (unsigned i = 0; i < s->npeers; i++) {
			const struct coll_peer *p = &s->peer[i];
			static const char *const pk[] = { "received", "lost", "earlier", "peer_dropped", "malformed",
							  "refused" };
			const uint64_t pv[] = { p->received, p->lost, p->earlier, p->peer_dropped, p->malformed,
						p->refused };
			char session[17];
			snprintf(session, sizeof(session), "%016" PRIx64, p->session);
			jw_lit(j, i ? ",{\"peer\":" : "{\"peer\":");
			jw_str(j, p->addr);
			JW_KEY(j, "host");
			jw_str(j, p->host);
			JW_KEY(j, "session");
			jw_str(j, session);
			jw_counts(j, pk, pv, 6, true);
			jw_c(j, '}');
		}
		jw_lit(j, "]}");
		free(s);
	}
	if (cj)
		coll_join_report_json(cj, j);
}


void fwd_report_text(FILE *f, const struct forwarder *fw, struct collector *col)
{
	if (fw) {
		struct fwd_stats s;
		fwd_get_stats(fw, &s);
		fprintf(f, "forward: %s sent %" PRIu64 " dropped %" PRIu64 "\n", fwd_target(fw), s.sent, s.dropped);
	}
	if (!col)
		return;
	struct coll_stats *s = malloc(sizeof(*s));
	if (!s)
		return;
	coll_get_stats(col, s);
	fprintf(f, "collect: received %" PRIu64 " lost %" PRIu64 " malformed %" PRIu64 " refused %" PRIu64 "\n",
		s->received, s->lost, s->malformed, s->refused);
	for (unsigned i = 0; i < s->npeers; i++) {
		const struct coll_peer *p = &s->peer[i];
		fprintf(f, "  peer %-20s %-16s received %8" PRIu64 " lost %6" PRIu64 " peer-dropped %6" PRIu64
			" malformed %4" PRIu64 " refused %4" PRIu64 "\n",
			p->addr, p->host[0] ? p->host : "-", p->received, p->lost, p->peer_dropped, p->malformed,
			p->refused);
	}
	free(s);
}

void fwd_report_links(struct agg_snap *snap, const struct forwarder *fw, struct collector *col)
{
	snap->nlinks = 0;
	if (fw) {
		struct fwd_stats s;
		struct agg_link *l = &snap->links[snap->nlinks++];
		fwd_get_stats(fw, &s);
		memset(l, 0, sizeof(*l));
		l->kind = 'F';
		snprintf(l->peer, sizeof(l->peer), "%s", fwd_target(fw));
		l->records = s.sent;
		l->dropped = s.dropped;
	}
	if (!col)
		return;
	struct coll_stats *s = malloc(sizeof(*s));
	if (!s)
		return;
	coll_get_stats(col, s);
	for (unsigned i = 0; i < s->npeers && snap->nlinks < AGG_LINKS_MAX; i++) {
		const struct coll_peer *p = &s->peer[i];
		struct agg_link *l = &snap->links[snap->nlinks++];
		memset(l, 0, sizeof(*l));
		l->kind = 'C';
		snprintf(l->peer, sizeof(l->peer), "%s", p->addr);
		snprintf(l->host, sizeof(l->host), "%s", p->host);
		l->records = p->received;
		l->dropped = p->peer_dropped;
		l->lost = p->lost;
		l->malformed = p->malformed;
		l->refused = p->refused;
	}
	free(s);
}
