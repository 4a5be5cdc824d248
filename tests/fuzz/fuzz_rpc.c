/* libFuzzer: ONC RPC header decoder, with the -V tree on. */
#include <stddef.h>
#include <stdint.h>

#include "dissect/rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpc_msg m;
	struct dtree t;
	struct cursor c = cur_make(data, size);

	dt_init(&t, 1 << 16);
	(void)rpc_decode(&m, &c, (size & 1) ? &t : NULL);
	dt_free(&t);
	return 0;
}
