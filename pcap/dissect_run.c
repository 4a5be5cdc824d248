/* Capture file -> packet feed (dissect/feed.h) -> dissector.  The file
 * is read by pcap/capfile.c, the reader every tool shares (it maps
 * classic pcap files and hands the rest to libpcap). */
#include <errno.h>
#include <stdio.h>

#include "dissect/feed.h"
#include "pcap/capfile.h"
#include "pcap/capfile_lt.h"
#include "pcap/dissect_run.h"

int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen)
{
	const struct dissect_run_opts none = { .tee_fd = -1 };

	return dissect_file_opts(d, path, &none, errbuf, errlen);
}

int dissect_file_opts(struct dissect *d, const char *path, const struct dissect_run_opts *o, char *errbuf,
		      size_t errlen)
{
	struct pcap_source *src = NULL;
	struct dissect_feed *f = NULL;
	int ret;

	if (o->opened)
		*o->opened = false;
	ret = pcap_source_open_tee(&src, path, o->tee_fd, errbuf, errlen);
	if (ret < 0)
		return ret;
	if (o->opened)
		*o->opened = true;
	/* The feed is made once the capture is open: a file that cannot be
	 * opened leaves no transport counters behind
	 * (dissect_transport_stats). */
	if (!(f = dissect_feed_new(d, NULL))) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto out;
	}
	ret = dissect_feed_set_linktype(f, pcap_source_linktype(src), path, errbuf, errlen);
	if (ret < 0)
		goto out;
	uint64_t ts, frame = 0;
	const uint8_t *data;
	size_t caplen, wirelen;
	struct capfile_lt lt = { pcap_source_linktype(src), true, -1 };
	while ((ret = pcap_source_next(src, &ts, &data, &caplen, &wirelen, errbuf, errlen)) == 1) {
		frame++;
		if (capfile_lt_follow(&lt, src, f, frame))
			dissect_feed_packet(f, frame, ts, data, caplen, wirelen);
		/* every 256 packets: asking costs nothing next to a packet */
		if (o->stop && !(frame & 255) && o->stop(o->ctx)) {
			ret = 0;
			break;
		}
	}
	dissect_feed_finish(f);
	if (o->tee_fd >= 0 && o->tee_err)
		*o->tee_err = pcap_source_tee_error(src);
out:
	pcap_source_close(src);
	dissect_feed_free(f);
	return ret < 0 ? ret : 0;
}
