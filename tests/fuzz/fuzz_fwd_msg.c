/* libFuzzer harness for the message a collecting nfsrdmad receives from a
 * forwarder (src/daemon/fwd_msg.c): every byte comes off the network, from
 * a peer that may be anything.  The input is one message, in an
 * exactly-sized heap copy so ASan sees a read past it.
 *
 * Invariants (trap): a message that decodes names a printable host of 1 to
 * FWD_HOST_MAX bytes, NUL-terminated; the record's name is NUL-terminated,
 * its counts within their arrays, its version ours or an older one (a
 * record read back from older JSON Lines crosses as it is), its phases derived
 * here (they sum to the total when it is known); encoding the decoded
 * record again gives the same bytes, and they decode to the same record.
 * An END message encodes back to the same bytes past its vantage byte, and
 * so does a CLOCK message, whose line lies inside the message: 1 to
 * FWD_CLOCK_MAX printable bytes.
 * A message that does not decode says where, inside the message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/daemon/fwd_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *msg = malloc(size ? size : 1);
	static struct nfsrdma_record r, r2;
	static uint8_t again[FWD_MSG_MAX];
	struct fwd_meta m, m2;
	size_t off = 0;

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	int rc = fwd_msg_decode(msg, size, &m, &r, &off);
	if (rc < 0) {
		if (rc <= -FWD_ERR_N || off > size)
			__builtin_trap();
		free(msg);
		return 0;
	}
	size_t hl = strnlen(m.host, sizeof(m.host));
	if (m.kind == FWD_KIND_END) {
		size_t n = fwd_msg_encode_end(again, &m);
		if (hl == 0 || hl > FWD_HOST_MAX || n != size || memcmp(again + 6, msg + 6, n - 6))
			__builtin_trap();
		free(msg);
		return 0;
	}
	if (m.kind == FWD_KIND_CLOCK) {
		/* the line: inside the message, 1 .. FWD_CLOCK_MAX printable
		 * bytes; encoding it again gives the same bytes past the
		 * vantage byte */
		int bad = hl == 0 || hl > FWD_HOST_MAX || !m.clock || m.clock_len == 0 || m.clock_len > FWD_CLOCK_MAX ||
			  (const uint8_t *)m.clock < msg || (const uint8_t *)m.clock + m.clock_len > msg + size;
		for (size_t i = 0; !bad && i < m.clock_len; i++)
			bad = m.clock[i] < 0x20 || m.clock[i] > 0x7e;
		size_t n = bad ? 0 : fwd_msg_encode_clock(again, &m, m.clock, m.clock_len);
		if (bad || n != size || memcmp(again + 6, msg + 6, n - 6))
			__builtin_trap();
		free(msg);
		return 0;
	}
	if (hl == 0 || hl > FWD_HOST_MAX || r.name[REC_NAME_MAX - 1] || r.nfindings > REC_MAX_FINDINGS ||
	    !r.rec_version || r.rec_version > NFSRDMA_RECORD_VERSION)
		__builtin_trap();
	if (rec_total_known(&r)) {
		uint64_t sum = 0;
		for (unsigned i = 0; i < REC_PH_N; i++)
			sum += r.d_phase[i];
		if (sum != r.d_total)
			__builtin_trap();
	}
	size_t n = fwd_msg_encode(again, &m, &r);
	/* the name may have been cut at its last byte: that byte differs */
	if (n != size || fwd_msg_decode(again, n, &m2, &r2, &off) != 0 || memcmp(&r, &r2, sizeof(r)) ||
	    m2.seq != m.seq || m2.session != m.session || strcmp(m2.host, m.host))
		__builtin_trap();
	free(msg);
	return 0;
}
