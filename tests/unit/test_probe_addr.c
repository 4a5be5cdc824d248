/* The caller's address text of svc_stats_latency before 6.1 ("%pISpc"),
 * as the BPF server program parses it (bpf/probe_addr.h), against
 * hand-written expectations. */
#include <string.h>

#include "check.h"
#include "bpf/probe_addr.h"

static void ok(const char *text, __u8 a0, __u8 a1, __u8 a2, __u8 a3, __u16 want_port)
{
	char s[PROBE_ADDR_TEXT] = { 0 };
	__u8 a[4] = { 0 };
	__u16 port = 1;

	strncpy(s, text, sizeof(s) - 1);
	CHECK(probe_addr_text4(s, a, &port), "'%s' refused", text);
	CHECK(a[0] == a0 && a[1] == a1 && a[2] == a2 && a[3] == a3 && port == want_port,
	      "'%s': %u.%u.%u.%u port %u", text, a[0], a[1], a[2], a[3], port);
}

static void bad(const char *text)
{
	char s[PROBE_ADDR_TEXT] = { 0 };
	__u8 a[4] = { 0 };
	__u16 port = 0;

	strncpy(s, text, sizeof(s) - 1);
	CHECK(!probe_addr_text4(s, a, &port), "'%s' accepted", text);
}

int main(void)
{
	ok("192.0.2.1:2049", 192, 0, 2, 1, 2049);
	ok("10.9.0.2:791", 10, 9, 0, 2, 791);
	ok("10.9.0.2", 10, 9, 0, 2, 0);
	ok("255.255.255.255:65535", 255, 255, 255, 255, 65535);
	ok("0.0.0.0:0", 0, 0, 0, 0, 0);
	bad("[2001:db8::1]:2049");
	bad("[::ffff:10.9.0.2]:2049");
	bad("uninitialized");
	bad("");
	bad("256.1.1.1:1");
	bad("1.2.3:4");
	bad("1.2.3.4:");
	bad("1.2.3.4:65536");
	bad("1.2.3.4.5");
	bad("1..2.3");
	bad(".1.2.3");
	bad("1.2.3.4:80x");
	/* no NUL within the buffer: never read past it */
	char full[PROBE_ADDR_TEXT];
	__u8 a[4];
	__u16 port;
	memset(full, '1', sizeof(full));
	CHECK(!probe_addr_text4(full, a, &port), "unterminated text accepted");
	return check_summary("probe_addr");
}
