/* libFuzzer: nfs4 argument and result decoders (layout of the input in
 * fuzz_prog.h). */
#include "fuzz_prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_prog_one(data, size, &prog_nfs4, &prog_nfs_cb, 4);
}
