/* libFuzzer harness for the CM MAD decoder alone (the transport harness
 * reaches it only through a valid UD/DETH packet to QP1). */
#include "dissect/ib_cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = cur_make(data, size);
	struct cm_msg m;
	if (ib_cm_parse(&c, &m) == 1) {
		for (size_t i = 0; i < m.priv_len; i++)
			sink += m.priv[i];
		sink += m.local_qpn + m.rr_send_size;
	}
	return 0;
}
