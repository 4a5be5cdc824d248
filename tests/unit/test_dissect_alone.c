/* dissect/ on its own: this program is linked with every object of
 * $(O)/libnfsrdma-dissect.a (--whole-archive) and nothing but libc, so it
 * does not build if the decode library needs any other library.  It also
 * drives the packet feed (dissect/feed.h) through its contract: link
 * types, frame numbering, finish, and the counters left behind. */
#include "check.h"

#include <errno.h>

#include "dissect/dissect.h"
#include "dissect/feed.h"
#include "dissect/transport.h"

int main(void)
{
	struct dissect *d = dissect_new(NULL, NULL);
	struct dissect_feed *f = d ? dissect_feed_new(d, NULL) : NULL;
	char err[128] = "";

	CHECK(d && f, "dissect_new / dissect_feed_new");
	if (!f)
		return check_summary("test_dissect_alone");
	CHECK(dissect_transport_stats(d) == NULL, "no counters before a feed ran");
	CHECK_EQ_U64(dissect_feed_set_linktype(f, 12345, "alone", err, sizeof(err)), (uint64_t)-EPROTONOSUPPORT);
	const char *want = "alone: unsupported link type 12345 (";
	CHECK(!strncmp(err, want, strlen(want)), "err = \"%s\"", err);
	CHECK_EQ_U64(dissect_feed_set_linktype(f, LINKTYPE_ETHERNET, "alone", err, sizeof(err)), 0);

	/* an ARP request: Ethernet, not RDMA */
	uint8_t arp[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
			    0, 1, 8, 0, 6, 4, 0, 1 };
	CHECK_EQ_U64(dissect_feed_packet(f, 0, 1000, arp, sizeof(arp), sizeof(arp)), 1);
	CHECK_EQ_U64(dissect_feed_packet(f, 0, 2000, arp, sizeof(arp), sizeof(arp)), 2);
	CHECK_EQ_U64(dissect_feed_packet(f, 7, 3000, arp, sizeof(arp), sizeof(arp)), 7);
	CHECK_EQ_U64(dissect_feed_packet(f, 0, 4000, arp, sizeof(arp), sizeof(arp)), 8);
	dissect_feed_finish(f);
	dissect_feed_finish(f);   /* once only */
	const struct transport_stats *t = dissect_feed_transport_stats(f);
	CHECK_EQ_U64(t->frames, 4);
	CHECK_EQ_U64(t->non_rdma, 4);
	CHECK_EQ_U64(t->bytes, 4 * sizeof(arp));
	dissect_feed_free(f);
	t = dissect_transport_stats(d);
	CHECK(t != NULL, "counters kept after the feed is gone");
	if (t)
		CHECK_EQ_U64(t->frames, 4);
	CHECK_EQ_U64(dissect_stats(d)->records, 0);
	dissect_free(d);
	return check_summary("test_dissect_alone");
}
