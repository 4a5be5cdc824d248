/* libFuzzer harness for the whole transport: link layers, IB headers, CM,
 * pairing, PSN tracking and reassembly (input format in
 * fuzz_transport_input.h).  Every delivered byte is read so ASan sees a
 * stale or short data pointer. */
#include <string.h>

#include "dissect/transport.h"
#include "tests/fuzz/fuzz_transport_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void on_event(const struct rdma_event *ev, void *ctx)
{
	unsigned s = 0;
	(void)ctx;
	for (size_t i = 0; i < ev->data_len; i++)
		s += ev->data[i];
	for (uint32_t i = 0; i < ev->nframes; i++)
		s += (unsigned)ev->frames[i];
	if (ev->data_len > ev->msg_len)
		__builtin_trap();   /* never more data than the wire carried */
	if (ev->type == RDMA_EV_FRAME) {
		if (ev->nframes != 1)
			__builtin_trap();
		sink += s;
		return;
	}
	if (!ev->conn)
		__builtin_trap();
	sink += s + ev->conn->id;
}

static void on_diag(const struct diag *d, void *ctx)
{
	(void)ctx;
	sink += (unsigned)strlen(d->msg) + (unsigned)strlen(d->layer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct transport *t = transport_new(on_event, on_diag, NULL);
	if (!t)
		return 0;
	/* odd sizes: with frame tracking (frames, ACK and FRAME events) */
	transport_set_frame_tracking(t, size & 1);
	fti_run(t, data, size);
	for (size_t i = 0; i < transport_conn_count(t); i++)
		sink += transport_conn(t, i)->id;
	transport_free(t);
	return 0;
}
