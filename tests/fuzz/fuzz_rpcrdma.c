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
	c = cur_make(data, size);
	(void)rpcrdma2_decode(&h2, &c);
	return 0;
}
