/* libFuzzer harness for ONC RPC over TCP and UDP (dissect/rpc_net.h): the
 * flow table, TCP reassembly (order, retransmits, gaps), record marking
 * and its resynchronisation, IP fragments of UDP datagrams.
 *
 * Input: byte 0: bit 0 frame tracking, bit 1 port 4000 forced; then
 * records of [len: 2 bytes BE][x: 1 byte][len bytes of an IP packet],
 * wirelen = len + 4 * (x & 0x7f), x & 0x80 = 700 s later (idle streams
 * expire), else 1 us.  Seeds: tests/fuzz/seeds/rpc_net (the lab's
 * NFS/TCP capture cut into pieces, reordered, with bytes lost).
 *
 * Invariants (trap): an RPC message has at least its 8-byte header and
 * never more bytes than the wire carried, on a TCP or UDP connection with
 * an id; every byte delivered is readable. */
#include <string.h>

#include "dissect/rpc_net.h"

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
	if (ev->type == RDMA_EV_FRAME) {
		sink += s;
		return;
	}
	if (!ev->conn || !ev->conn->id || (ev->conn->ip_proto != 6 && ev->conn->ip_proto != 17))
		__builtin_trap();
	if (ev->type == RDMA_EV_RPC && (ev->data_len < 8 || ev->data_len > ev->msg_len))
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
	struct transport_stats st;
	uint32_t next_id = 1;

	if (size < 1)
		return 0;
	memset(&st, 0, sizeof(st));
	struct rpc_net *n = rpc_net_new(on_event, on_diag, NULL, &st, &next_id);
	if (!n)
		return 0;
	rpc_net_set_frame_tracking(n, data[0] & 1);
	if (data[0] & 2)
		rpc_net_add_port(n, 4000);
	data++;
	size--;
	uint64_t ts = 1000000000ull, frame = 0;
	while (size >= 3) {
		size_t len = ((size_t)data[0] << 8) | data[1];
		uint8_t x = data[2];
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		ts += (x & 0x80) ? 700000000000ull : 1000ull;
		rpc_net_packet(n, ts, ++frame, data, len, len + 4 * (size_t)(x & 0x7f), 14);
		data += len;
		size -= len;
	}
	rpc_net_flush(n);
	rpc_net_free(n);
	return 0;
}
