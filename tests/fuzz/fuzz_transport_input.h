/* Input format of fuzz_transport and of tests/badinput/transport/NAME.bin:
 *   byte 0: bits 0-2 pick the link type (0 Ethernet, 1 Linux SLL, 2 ERF,
 *           3 DLT_INFINIBAND, 4 SLL2, 5 DLT_IPOIB; 6-7 wrap), bit 6 sets a 100-byte
 *           data cap, bit 7 selects multi-frame mode;
 *   single-frame mode: the rest is one frame (caplen = wirelen);
 *   multi-frame mode: records of [len: 2 bytes BE][x: 1 byte][len bytes],
 *           wirelen = len + 4 * (x & 0x7f), x & 0x80 advances the clock by 2 s
 *           (else by 1 us) -- enough to reach gaps, duplicates, snaplen
 *           cuts and the close grace period.
 * The transport is flushed at the end. */
#ifndef NFSRDMA_FUZZ_TRANSPORT_INPUT_H
#define NFSRDMA_FUZZ_TRANSPORT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/transport.h"

static const int fti_linktypes[6] = {
	LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_ERF, LINKTYPE_INFINIBAND, LINKTYPE_LINUX_SLL2,
	LINKTYPE_IPOIB,
};

static inline void fti_run(struct transport *t, const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	uint8_t mode = data[0];
	transport_set_linktype(t, fti_linktypes[(mode & 7) % 6]);
	if (mode & 0x40)
		transport_set_data_cap(t, 100);
	data++;
	size--;
	uint64_t ts = 1000000000ull, frame = 0;
	if (!(mode & 0x80)) {
		transport_packet(t, ts, 1, data, size, size);
	} else {
		while (size >= 3) {
			size_t len = ((size_t)data[0] << 8) | data[1];
			uint8_t x = data[2];
			data += 3;
			size -= 3;
			if (len > size)
				len = size;
			ts += (x & 0x80) ? 2000000000ull : 1000ull;
			transport_packet(t, ts, ++frame, data, len, len + 4 * (size_t)(x & 0x7f));
			data += len;
			size -= len;
		}
	}
	transport_flush(t);
}

#endif
