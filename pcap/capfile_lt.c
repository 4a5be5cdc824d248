/* Following a capture's link type from packet to packet (capfile_lt.h). */
#include "pcap/capfile_lt.h"

#include "src/base/log.h"

bool capfile_lt_switch(struct capfile_lt *lt, const struct pcap_source *src, struct dissect_feed *f,
		       uint64_t frame)
{
	char why[512];

	lt->cur = pcap_source_linktype(src);
	lt->ok = dissect_feed_set_linktype(f, lt->cur, pcap_source_path(src), why, sizeof(why)) == 0;
	if (!lt->ok && lt->warned != lt->cur) {
		lt->warned = lt->cur;
		log_warn("%s from frame %llu: its packets are skipped", why, (unsigned long long)frame);
	}
	return lt->ok;
}
