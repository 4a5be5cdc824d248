/* libFuzzer: rpcbind / portmapper v2-v4 argument and result decoders
 * (layout of the input in fuzz_prog.h; the version is 2 + (byte 1 / 24)
 * % 3, so one byte picks both the procedure and the version). */
#include "fuzz_prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	return fuzz_prog_one(data, size, &prog_portmap, &prog_portmap, 2u + (data[1] / 24u) % 3u);
}
