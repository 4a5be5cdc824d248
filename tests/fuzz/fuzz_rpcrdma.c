/* libFuzzer: RPC-over-RDMA v1 and v2 header decoders. */
#include <stddef.h>
#include <stdint.h>

#include "dissect/rpcrdma.h"
#include "dissect/rpcrdma2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_hdr h;
	static struct rpcrdma2_hdr h2;
	struct cursor c = cur_make(data, size);

	if (rpcrdma_decode(&h, &c) == 0) {
		(void)rpcrdma_read_chunk_count(&h);
		(void)rpcrdma_has_p0(&h);
	}
	/* all three layout hints: unknown, -00..-02, -07 */
	static const enum rpcrdma2_layout hint[] = { RPCRDMA2_UNKNOWN, RPCRDMA2_DRAFT00, RPCRDMA2_DRAFT07 };
	for (unsigned i = 0; i < 3; i++) {
		c = cur_make(data, size);
		if (rpcrdma2_decode(&h2, &c, hint[i]) == 0) {
			(void)rpcrdma2_is_reply(&h2);
			(void)rpcrdma2_is_middle(&h2);
			(void)rpcrdma2_htype_name(&h2);
		}
	}
	return 0;
}
