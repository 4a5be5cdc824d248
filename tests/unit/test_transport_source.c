/* pcap/source.c: pcap (usec and nsec), pcapng, stdin, and the one-line
 * errors for missing, empty, foreign and truncated files. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "pcap/source.h"

static char dir[] = "/tmp/nfsrdma-src-XXXXXX";

static void le16(FILE *f, uint16_t v) { fputc(v & 0xff, f); fputc(v >> 8, f); }
static void le32(FILE *f, uint32_t v) { le16(f, (uint16_t)v); le16(f, (uint16_t)(v >> 16)); }

/* A classic pcap with n records of 60 bytes (the last cut by `cut` bytes). */
static void write_pcap(const char *path, uint32_t magic, int linktype, int n, size_t cut)
{
	FILE *f = fopen(path, "wb");
	le32(f, magic);
	le16(f, 2);
	le16(f, 4);
	le32(f, 0);
	le32(f, 0);
	le32(f, 65535);
	le32(f, (uint32_t)linktype);
	for (int i = 0; i < n; i++) {
		le32(f, 10 + (uint32_t)i);
		le32(f, 5);
		le32(f, 60);
		le32(f, 64);
		size_t body = 60 - (i == n - 1 ? cut : 0);
		for (size_t j = 0; j < body; j++)
			fputc((int)j, f);
	}
	fclose(f);
}

static void test_pcap(void)
{
	char path[256], err[512];
	struct pcap_source *s;
	uint64_t ts;
	const uint8_t *d;
	size_t cl, wl;

	snprintf(path, sizeof(path), "%s/usec.pcap", dir);
	write_pcap(path, 0xa1b2c3d4, 1, 2, 0);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	CHECK_EQ_U64(pcap_source_linktype(s), 1);
	CHECK_EQ_STR(pcap_source_path(s), path);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(ts, 10000005000ull);
	CHECK_EQ_U64(cl, 60);
	CHECK_EQ_U64(wl, 64);
	CHECK_EQ_U64(d[59], 59);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(ts, 11000005000ull);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 0);
	pcap_source_close(s);

	/* nanosecond pcap */
	snprintf(path, sizeof(path), "%s/nsec.pcap", dir);
	write_pcap(path, 0xa1b23c4d, 197, 1, 0);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	CHECK_EQ_U64(pcap_source_linktype(s), 197);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(ts, 10000000005ull);
	pcap_source_close(s);

	/* a record cut short */
	snprintf(path, sizeof(path), "%s/cut.pcap", dir);
	write_pcap(path, 0xa1b2c3d4, 1, 2, 5);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), (uint64_t)-EIO);
	CHECK(strncmp(err, path, strlen(path)) == 0 && strstr(err, "truncated") && !strchr(err, '\n'),
	      "one line naming the file: %s", err);
	pcap_source_close(s);

	/* a record header cut short */
	snprintf(path, sizeof(path), "%s/cuthdr.pcap", dir);
	write_pcap(path, 0xa1b2c3d4, 1, 1, 0);
	FILE *f = fopen(path, "ab");
	le32(f, 1);
	le32(f, 2);
	fclose(f);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), (uint64_t)-EIO);
	CHECK(strstr(err, "truncated") != NULL, "%s", err);
	pcap_source_close(s);
}

static void test_pcapng(void)
{
	char path[256], err[512];
	struct pcap_source *s;
	uint64_t ts;
	const uint8_t *d;
	size_t cl, wl;

	snprintf(path, sizeof(path), "%s/x.pcapng", dir);
	FILE *f = fopen(path, "wb");
	/* SHB */
	le32(f, 0x0a0d0d0a); le32(f, 28); le32(f, 0x1a2b3c4d); le16(f, 1); le16(f, 0);
	le32(f, 0xffffffff); le32(f, 0xffffffff); le32(f, 28);
	/* IDB: link type 247 (InfiniBand), default microsecond resolution */
	le32(f, 1); le32(f, 20); le16(f, 247); le16(f, 0); le32(f, 0); le32(f, 20);
	/* EPB: 8 bytes of data at t = 2 s */
	le32(f, 6); le32(f, 40); le32(f, 0); le32(f, 0); le32(f, 2000000);
	le32(f, 8); le32(f, 8);
	for (int i = 0; i < 8; i++)
		fputc(i, f);
	le32(f, 40);
	fclose(f);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	CHECK_EQ_U64(pcap_source_linktype(s), 247);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
	CHECK_EQ_U64(ts, 2000000000ull);
	CHECK_EQ_U64(cl, 8);
	CHECK_EQ_U64(pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)), 0);
	pcap_source_close(s);
}

static void test_errors(void)
{
	char path[256], err[512];
	struct pcap_source *s = (struct pcap_source *)1;

	snprintf(path, sizeof(path), "%s/missing.pcap", dir);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), (uint64_t)-ENOENT);
	CHECK(s == NULL, "no source on failure");
	char want[512];
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CHECK_EQ_STR(err, want);

	snprintf(path, sizeof(path), "%s/empty.pcap", dir);
	fclose(fopen(path, "wb"));
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK(strncmp(err, path, strlen(path)) == 0 && !strchr(err, '\n'), "%s", err);

	snprintf(path, sizeof(path), "%s/text.pcap", dir);
	FILE *f = fopen(path, "wb");
	fputs("this is not a capture file at all, just words\n", f);
	fclose(f);
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK(strncmp(err, path, strlen(path)) == 0 && strstr(err, "not a pcap/pcapng capture"), "%s", err);

	CHECK(pcap_source_open(&s, dir, err, sizeof(err)) < 0, "a directory is refused");
	CHECK(strncmp(err, dir, strlen(dir)) == 0, "%s", err);
	pcap_source_close(NULL);
}

static void test_stdin(void)
{
	char path[256], err[512];
	struct pcap_source *s;
	uint64_t ts;
	const uint8_t *d;
	size_t cl, wl;

	snprintf(path, sizeof(path), "%s/stdin.pcap", dir);
	write_pcap(path, 0xa1b2c3d4, 113, 3, 0);
	if (!freopen(path, "rb", stdin)) {
		CHECK(0, "freopen stdin");
		return;
	}
	CHECK_EQ_U64(pcap_source_open(&s, "-", err, sizeof(err)), 0);
	CHECK_EQ_STR(pcap_source_path(s), "(stdin)");
	CHECK_EQ_U64(pcap_source_linktype(s), 113);
	int n = 0;
	while (pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)) == 1)
		n++;
	CHECK_EQ_U64(n, 3);
	pcap_source_close(s);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_pcap();
	test_pcapng();
	test_errors();
	test_stdin();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_summary("test_transport_source");
}
