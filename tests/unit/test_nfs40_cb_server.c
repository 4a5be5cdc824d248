/* The replay's NFSv4.0 callback server (src/clnt/nfs40_cb_server.c) on the
 * loopback: its callback address, a CB_COMPOUND with CB_RECALL sent in two
 * record-marking fragments and answered, the recall queued for the
 * caller with the call's stateid and handle, CB_NULL, a connection from
 * another address than the target's refused, an oversized record
 * closing the connection. */
#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dissect/extract.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"
#include "src/xprt/xdr_enc.h"

static const uint8_t OTHER[12] = { 0x5a, 0x97, 2, 0x6b, 0x87, 0x8d, 0xec, 0x32, 3, 0, 0, 0 };
static const uint8_t FH[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static int dial(const char *from, unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	if (from) {
		inet_pton(AF_INET, from, &a.sin_addr);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
	}
	a.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads one reply record (one fragment) within 2 s; its length, or -1. */
static ssize_t read_record(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0, want = 4;
	uint32_t len = 0;
	while (got < want) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 2000) <= 0)
			return -1;
		ssize_t n = read(fd, buf + got, want - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (want == 4 && got == 4) {
			len = ((uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3]) &
			      0x7fffffffu;
			if (len + 4 > cap)
				return -1;
			want = 4 + len;
		}
	}
	return (ssize_t)len;
}

static size_t cb_call(uint8_t *buf, size_t cap, uint32_t xid, uint32_t proc)
{
	struct xenc x;
	xenc_init(&x, buf, cap);
	xenc_u32(&x, xid);
	xenc_u32(&x, 0);
	xenc_u32(&x, 2);
	xenc_u32(&x, 0x40000000);
	xenc_u32(&x, 1);
	xenc_u32(&x, proc);
	for (int i = 0; i < 4; i++)
		xenc_u32(&x, 0);
	if (proc == 1) {
		xenc_u32(&x, 0);       /* tag */
		xenc_u32(&x, 0);       /* minorversion 0 */
		xenc_u32(&x, 1);       /* callback_ident */
		xenc_u32(&x, 1);
		xenc_u32(&x, 4);       /* CB_RECALL */
		xenc_u32(&x, 1);
		xenc_fixed(&x, OTHER, 12);
		xenc_u32(&x, 0);
		xenc_opaque(&x, FH, sizeof(FH));
	}
	return x.len;
}

int main(void)
{
	struct nfs40_cbsrv *s = NULL;
	char netid[8], addr[64];
	int ret = nfs40_cbsrv_start(&s, "127.0.0.1", netid, sizeof(netid), addr, sizeof(addr));
	CHECK(ret == 0, "started on the loopback (%d)", ret);
	if (ret)
		return check_summary("test_nfs40_cb_server");
	unsigned a, b, c, d, p1, p2;
	CHECK(!strcmp(netid, "tcp") && sscanf(addr, "%u.%u.%u.%u.%u.%u", &a, &b, &c, &d, &p1, &p2) == 6 &&
	      a == 127 && b == 0 && c == 0 && d == 1 && p1 < 256 && p2 < 256,
	      "callback location: netid %s, universal address %s", netid, addr);
	unsigned port = p1 << 8 | p2;

	int fd = dial(NULL, port);
	CHECK(fd >= 0, "the target's address connects to port %u", port);
	uint8_t call[512], rec[1024];
	size_t n = cb_call(call, sizeof(call), 0x77, 1);
	/* two fragments: 40 bytes, then the rest as the last one */
	uint8_t m1[4] = { 0, 0, 0, 40 }, m2[4] = { 0x80, 0, 0, (uint8_t)(n - 40) };
	bool sent = write(fd, m1, 4) == 4 && write(fd, call, 40) == 40 && write(fd, m2, 4) == 4 &&
		    write(fd, call + 40, n - 40) == (ssize_t)(n - 40);
	ssize_t r = sent ? read_record(fd, rec, sizeof(rec)) : -1;
	struct cursor cu = cur_make(rec + 4, r > 0 ? (size_t)r : 0);
	bool ok = cur_be32(&cu, "xid") == 0x77 && cur_be32(&cu, "mtype") == 1 && cur_be32(&cu, "stat") == 0;
	cur_skip(&cu, 8, "verf");
	ok &= cur_be32(&cu, "accept") == 0 && cur_be32(&cu, "status") == 0;
	cur_be32(&cu, "tag");
	ok &= cur_be32(&cu, "count") == 1 && cur_be32(&cu, "op") == 4 && cur_be32(&cu, "st") == 0 && cur_ok(&cu);
	CHECK(ok, "CB_COMPOUND(CB_RECALL) in two fragments: answered NFS4_OK (%zd bytes)", r);
	struct nfs41_cb_recall q[4];
	unsigned got = nfs40_cbsrv_take(s, q, 4);
	CHECK(got == 1 && q[0].sid.seqid == 1 && !memcmp(q[0].sid.other, OTHER, 12) && q[0].fh.len == 8 &&
	      !memcmp(q[0].fh.data, FH, 8), "the recall is queued with the call's stateid and handle (%u)", got);
	CHECK(nfs40_cbsrv_take(s, q, 4) == 0, "and taken once");

	n = cb_call(call, sizeof(call), 0x78, 0);
	uint8_t m3[4] = { 0x80, 0, 0, (uint8_t)n };
	sent = write(fd, m3, 4) == 4 && write(fd, call, n) == (ssize_t)n;
	r = sent ? read_record(fd, rec, sizeof(rec)) : -1;
	CHECK(r == 24, "CB_NULL: a 24-byte accepted reply (%zd)", r);

	/* a record past the limit: the connection is closed */
	uint8_t big[4] = { 0x80, 0x10, 0, 0 };
	sent = write(fd, big, 4) == 4;
	r = sent ? read_record(fd, rec, sizeof(rec)) : 0;
	CHECK(r == -1, "a 1 MB record mark: connection closed");
	close(fd);

	/* another address than the target's */
	int other = dial("127.0.0.2", port);
	bool closed = false;
	if (other >= 0) {
		struct pollfd p = { .fd = other, .events = POLLIN };
		closed = poll(&p, 1, 2000) == 1 && read(other, rec, 1) == 0;
		close(other);
	}
	uint64_t calls, recalls, refused;
	nfs40_cbsrv_counts(s, &calls, &recalls, &refused);
	CHECK(closed && refused == 1, "a connection from 127.0.0.2 is closed unanswered (refused %llu)",
	      (unsigned long long)refused);
	CHECK(calls == 2 && recalls == 1, "counts: %llu calls, %llu recall", (unsigned long long)calls,
	      (unsigned long long)recalls);
	nfs40_cbsrv_stop(s);
	return check_summary("test_nfs40_cb_server");
}
