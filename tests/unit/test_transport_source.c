/* pcap/capfile.c: pcap (usec and nsec), pcapng, stdin, and the one-line
 * errors for missing, empty, foreign and truncated files. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "pcap/capfile.h"

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

/* A reader under test, and what its last pcap_source_next() gave. */
struct rd {
	char path[256], err[512];
	struct pcap_source *s;
	uint64_t ts;
	const uint8_t *d;
	size_t cl, wl;
};

/* r->path = the test directory's file name */
static const char *rd_path(struct rd *r, const char *name)
{
	snprintf(r->path, sizeof(r->path), "%s/%s", dir, name);
	return r->path;
}

static int rd_open(struct rd *r, const char *path)
{
	return pcap_source_open(&r->s, path, r->err, sizeof(r->err));
}

static int rd_next(struct rd *r)
{
	return pcap_source_next(r->s, &r->ts, &r->d, &r->cl, &r->wl, r->err, sizeof(r->err));
}

static void test_pcap(void)
{
	struct rd r = { 0 };

	rd_path(&r, "usec.pcap");
	write_pcap(r.path, 0xa1b2c3d4, 1, 2, 0);
	CHECK_EQ_U64(rd_open(&r, r.path), 0);
	CHECK_EQ_U64(pcap_source_linktype(r.s), 1);
	CHECK_EQ_STR(pcap_source_path(r.s), r.path);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(r.ts, 10000005000ull);
	CHECK_EQ_U64(r.cl, 60);
	CHECK_EQ_U64(r.wl, 64);
	CHECK_EQ_U64(r.d[59], 59);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(r.ts, 11000005000ull);
	CHECK_EQ_U64(rd_next(&r), 0);
	pcap_source_close(r.s);

	/* nanosecond pcap */
	rd_path(&r, "nsec.pcap");
	write_pcap(r.path, 0xa1b23c4d, 197, 1, 0);
	CHECK_EQ_U64(rd_open(&r, r.path), 0);
	CHECK_EQ_U64(pcap_source_linktype(r.s), 197);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(r.ts, 10000000005ull);
	pcap_source_close(r.s);

	/* a record cut short */
	rd_path(&r, "cut.pcap");
	write_pcap(r.path, 0xa1b2c3d4, 1, 2, 5);
	CHECK_EQ_U64(rd_open(&r, r.path), 0);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(rd_next(&r), (uint64_t)-EIO);
	CHECK(strncmp(r.err, r.path, strlen(r.path)) == 0 && strstr(r.err, "truncated") && !strchr(r.err, '\n'),
	      "one line naming the file: %s", r.err);
	pcap_source_close(r.s);

	/* a record header cut short */
	rd_path(&r, "cuthdr.pcap");
	write_pcap(r.path, 0xa1b2c3d4, 1, 1, 0);
	FILE *f = fopen(r.path, "ab");
	le32(f, 1);
	le32(f, 2);
	fclose(f);
	CHECK_EQ_U64(rd_open(&r, r.path), 0);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(rd_next(&r), (uint64_t)-EIO);
	CHECK(strstr(r.err, "truncated") != NULL, "%s", r.err);
	pcap_source_close(r.s);
}

static void test_pcapng(void)
{
	struct rd r = { 0 };

	rd_path(&r, "x.pcapng");
	FILE *f = fopen(r.path, "wb");
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
	CHECK_EQ_U64(rd_open(&r, r.path), 0);
	CHECK_EQ_U64(pcap_source_linktype(r.s), 247);
	CHECK_EQ_U64(rd_next(&r), 1);
	CHECK_EQ_U64(r.ts, 2000000000ull);
	CHECK_EQ_U64(r.cl, 8);
	CHECK_EQ_U64(rd_next(&r), 0);
	pcap_source_close(r.s);
}

static void test_errors(void)
{
	struct rd r = { .s = (struct pcap_source *)1 };

	rd_path(&r, "missing.pcap");
	CHECK_EQ_U64(rd_open(&r, r.path), (uint64_t)-ENOENT);
	CHECK(r.s == NULL, "no source on failure");
	char want[512];
	snprintf(want, sizeof(want), "%s: No such file or directory", r.path);
	CHECK_EQ_STR(r.err, want);

	rd_path(&r, "empty.pcap");
	fclose(fopen(r.path, "wb"));
	CHECK_EQ_U64(rd_open(&r, r.path), (uint64_t)-EINVAL);
	CHECK(strncmp(r.err, r.path, strlen(r.path)) == 0 && !strchr(r.err, '\n'), "%s", r.err);

	rd_path(&r, "text.pcap");
	FILE *f = fopen(r.path, "wb");
	fputs("this is not a capture file at all, just words\n", f);
	fclose(f);
	CHECK_EQ_U64(rd_open(&r, r.path), (uint64_t)-EINVAL);
	CHECK(strncmp(r.err, r.path, strlen(r.path)) == 0 && strstr(r.err, "not a pcap/pcapng capture"), "%s", r.err);

	CHECK(rd_open(&r, dir) < 0, "a directory is refused");
	CHECK(strncmp(r.err, dir, strlen(dir)) == 0, "%s", r.err);
	pcap_source_close(NULL);
}

static void test_stdin(void)
{
	struct rd r = { 0 };

	rd_path(&r, "stdin.pcap");
	write_pcap(r.path, 0xa1b2c3d4, 113, 3, 0);
	if (!freopen(r.path, "rb", stdin)) {
		CHECK(0, "freopen stdin");
		return;
	}
	CHECK_EQ_U64(rd_open(&r, "-"), 0);
	CHECK_EQ_STR(pcap_source_path(r.s), "(stdin)");
	CHECK_EQ_U64(pcap_source_linktype(r.s), 113);
	int n = 0;
	while (rd_next(&r) == 1)
		n++;
	CHECK_EQ_U64(n, 3);
	pcap_source_close(r.s);
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
