/* Capture file -> transport -> dissect_event.  Kept apart from dissect.c
 * so tools and tests that feed events directly need no transport. */
#include <errno.h>
#include <stdio.h>

#include "dissect/dissect_int.h"
#include "dissect/transport.h"
#include "pcap/source.h"

static void run_diag(const struct diag *g, void *ctx)
{
	struct dissect *d = ctx;

	if (d->cbs.diag)
		d->cbs.diag(g, d->cbs.ctx);
}

int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen)
{
	struct pcap_source *src;
	int ret = pcap_source_open(&src, path, errbuf, errlen);

	if (ret < 0)
		return ret;
	int lt = pcap_source_linktype(src);
	if (d->tp)
		transport_free(d->tp);
	d->tp = transport_new(dissect_event, run_diag, d);
	d->tp_free = transport_free;
	if (!d->tp) {
		pcap_source_close(src);
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (transport_set_linktype(d->tp, lt) < 0) {
		const char *name = transport_linktype_name(lt);
		snprintf(errbuf, errlen, "%s: unsupported link type %d (%s)", path, lt,
			 name ? name : "unknown");
		pcap_source_close(src);
		return -EPROTONOSUPPORT;
	}
	uint64_t ts, frame = 0;
	const uint8_t *data;
	size_t caplen, wirelen;
	while ((ret = pcap_source_next(src, &ts, &data, &caplen, &wirelen, errbuf, errlen)) == 1)
		transport_packet(d->tp, ts, ++frame, data, caplen, wirelen);
	transport_flush(d->tp);
	dissect_flush(d);
	pcap_source_close(src);
	return ret < 0 ? ret : 0;
}

const struct transport_stats *dissect_transport_stats(const struct dissect *d)
{
	return d->tp ? transport_stats(d->tp) : NULL;
}
