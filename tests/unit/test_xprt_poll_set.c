/* xprt_poll_set (src/xprt/xprt.c): one wait on several transports, as the
 * replay sleeps on every client's connection.  Two RPC-over-TCP
 * transports to a loopback server thread, a NULL call on each; the server
 * answers the second connection's call, and the first's only once the test
 * has seen the first wait end: the first wait wakes on the second's reply
 * alone (its callback run, the first's not), the next on the first's; with
 * nothing in flight a wait lasts its timeout and runs nothing.  Events, not
 * times, order the replies; the waits' timeouts only catch a hang. */
#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "src/clnt/nfs3.h"
#include "src/xprt/xdr_enc.h"
#include "src/xprt/xprt.h"

struct srv {
	int lfd;
	int fd[2];
	int go[2];             /* the test writes a byte: answer the first call */
};

/* Reads one record-marked message; returns its xid, or 0. */
static uint32_t read_call(int fd)
{
	uint8_t mark[4], body[512];
	if (recv(fd, mark, 4, MSG_WAITALL) != 4)
		return 0;
	uint32_t len = xenc_get_u32(mark) & 0x7fffffffu;
	if (len < 4 || len > sizeof(body) || recv(fd, body, len, MSG_WAITALL) != (ssize_t)len)
		return 0;
	return xenc_get_u32(body);
}

static void reply(int fd, uint32_t xid)
{
	uint8_t m[28];
	/* xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE (0, 0), SUCCESS */
	xenc_put_u32_at(m, 0x80000000u | 24);
	const uint32_t w[6] = { xid, 1, 0, 0, 0, 0 };
	for (int k = 0; k < 6; k++)
		xenc_put_u32_at(m + 4 + 4 * k, w[k]);
	if (send(fd, m, sizeof(m), 0) != (ssize_t)sizeof(m))
		perror("send");
}

static void *serve(void *arg)
{
	struct srv *s = arg;
	s->fd[0] = accept(s->lfd, NULL, NULL);
	s->fd[1] = accept(s->lfd, NULL, NULL);
	uint32_t x0 = read_call(s->fd[0]), x1 = read_call(s->fd[1]);
	char b;
	reply(s->fd[1], x1);
	if (read(s->go[0], &b, 1) != 1)
		perror("read");
	reply(s->fd[0], x0);
	return NULL;
}

static void done(struct xprt_req *r, const struct xprt_reply *rep)
{
	int *n = r->ctx;
	*n = rep->err ? -1 : *n + 1;
}

int main(void)
{
	struct srv s = { .fd = { -1, -1 } };
	CHECK(pipe(s.go) == 0, "pipe");
	s.lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	socklen_t al = sizeof(a);
	CHECK(s.lfd >= 0 && bind(s.lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(s.lfd, 4) == 0 &&
	      getsockname(s.lfd, (struct sockaddr *)&a, &al) == 0, "loopback listener");
	pthread_t th;
	CHECK(pthread_create(&th, NULL, serve, &s) == 0, "server thread");

	struct xprt_opts o = { .host = "127.0.0.1", .port = ntohs(a.sin_port), .slots = 4,
			       .max_bulk = 65536, .reconnect_ms = 5000 };
	struct xprt *xs[2] = { NULL, NULL };
	int r0 = xprt_tcp_open(&xs[0], &o);
	int r1 = xprt_tcp_open(&xs[1], &o);
	CHECK(r0 == 0 && r1 == 0, "two connections: %d %d", r0, r1);
	if (r0 || r1)
		return check_summary("test_xprt_poll_set");

	struct nfs_msg m[2];
	int got[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		CHECK(nfs3_enc_null(&m[k]) == 0, "NULL call %d encoded", k);
		m[k].req.done = done;
		m[k].req.ctx = &got[k];
		CHECK(xprt_submit(xs[k], &m[k].req) == 0, "NULL call %d submitted", k);
	}
	/* 60 s: a hang catcher; each wait ends on a reply long before */
	int n = xprt_poll_set(xs, 2, 60000);
	CHECK(n == 1 && got[1] == 1 && got[0] == 0,
	      "first wait: the second connection's reply only (%d run, got %d %d)", n, got[0], got[1]);
	CHECK(xprt_inflight(xs[0]) == 1 && xprt_inflight(xs[1]) == 0, "the first call still in flight");

	CHECK(write(s.go[1], "", 1) == 1, "first reply released");
	n = xprt_poll_set(xs, 2, 60000);
	CHECK(n == 1 && got[0] == 1 && got[1] == 1, "second wait: the first connection's reply (%d run, got %d %d)",
	      n, got[0], got[1]);

	/* a lower bound only: poll(2) never returns before its timeout */
	uint64_t t0 = xprt_now_ns();
	n = xprt_poll_set(xs, 2, 50);
	uint64_t ms = (xprt_now_ns() - t0) / 1000000u;
	CHECK(n == 0 && ms >= 49, "nothing in flight: the wait lasts its timeout (%d run, %" PRIu64 " ms)", n, ms);

	pthread_join(th, NULL);
	for (int k = 1; k >= 0; k--)
		xprt_destroy(xs[k]);
	close(s.fd[0]);
	close(s.fd[1]);
	close(s.lfd);
	close(s.go[0]);
	close(s.go[1]);
	return check_summary("test_xprt_poll_set");
}
