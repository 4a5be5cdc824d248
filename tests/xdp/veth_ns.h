/* Two private network namespaces joined by a veth pair, for the live XDP
 * tests (tests/bpf/test_xdp_live.c, test_xdp_bench.c): unique names per
 * process, always deleted (atexit and on SIGINT/SIGTERM), and entering a
 * namespace from the calling thread.  Header-only, like xdp_test.h. */
#ifndef NFSRDMA_TESTS_VETH_NS_H
#define NFSRDMA_TESTS_VETH_NS_H

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char ns_a[64], ns_b[64], veth_a[IF_NAMESIZE], veth_b[IF_NAMESIZE];
static int veth_created;

static void veth_cleanup(void)
{
	char cmd[256];

	if (!veth_created)
		return;
	veth_created = 0;
	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null", ns_a, ns_b);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup: %s failed\n", cmd);
}

static void veth_on_signal(int sig)
{
	veth_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int veth_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int veth_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

/* Namespaces <tag>-PID-a/-b with <c>a/<c>b PID veths, MTU 9000, up, no
 * IPv6 (no router solicitations on the wire).  0 or -1 (message printed). */
static int veth_pair_create(const char *tag, char c)
{
	int pid = (int)getpid();

	snprintf(ns_a, sizeof(ns_a), "nfsrdma-%s-%d-a", tag, pid);
	snprintf(ns_b, sizeof(ns_b), "nfsrdma-%s-%d-b", tag, pid);
	snprintf(veth_a, sizeof(veth_a), "n%ca%d", c, pid % 1000000);
	snprintf(veth_b, sizeof(veth_b), "n%cb%d", c, pid % 1000000);
	atexit(veth_cleanup);
	signal(SIGINT, veth_on_signal);
	signal(SIGTERM, veth_on_signal);
	if (veth_sh("ip netns add %s", ns_a))
		return -1;
	veth_created = 1;
	if (veth_sh("ip netns add %s", ns_b) ||
	    veth_sh("ip link add %s netns %s mtu 9000 type veth peer name %s netns %s mtu 9000",
		    veth_a, ns_a, veth_b, ns_b))
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *ns = i ? ns_b : ns_a, *dev = i ? veth_b : veth_a;
		if (veth_sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1", ns) ||
		    veth_sh("ip netns exec %s sysctl -qw net.ipv6.conf.%s.disable_ipv6=1", ns, dev) ||
		    veth_sh("ip -n %s link set %s up", ns, dev))
			return -1;
	}
	return 0;
}

/* The calling thread moves into namespace name: returns the fd to get
 * back with leave_ns, or -1. */
static int enter_ns(const char *name)
{
	char path[128];
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		if (self >= 0)
			close(self);
		return -1;
	}
	close(fd);
	return self;
}

static void leave_ns(int self)
{
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) < 0)
			perror("setns back");
		close(self);
	}
}

#endif
