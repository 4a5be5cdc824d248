/* libFuzzer harness for the capture-file readers: pcap/capstream.c (plain,
 * gzip, zstd, xz; the hints for formats we do not read), pcap/capfile.c
 * (libpcap over that stream, the message of a read that stops early) and
 * pcap/dissect_run.c (the mapped classic-pcap reader and its hand-over,
 * the mapped pcapng reader of pcap/pcapng_map.c: blocks, sections,
 * interfaces and their link types).
 *
 * Input: a whole capture file.  It is written to a memfd and read through
 * /proc/self/fd/N, so the open, the format sniffing and the reads are the
 * real ones.
 *
 * Invariants (trap): a packet's captured length is at most libpcap's
 * largest snapshot and its wire length at least that; every failure
 * leaves one line in errbuf that names the file; a failed read names the
 * frame after the last one returned. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "pcap/capfile.h"
#include "pcap/dissect_run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz_capfile", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

/* A message is one line that starts with the file's name. */
static void check_msg(const char *err)
{
	size_t n = strlen(path);

	if (strncmp(err, path, n) != 0 || err[n] != ':' || strchr(err, '\n'))
		__builtin_trap();
}

static void read_all(void)
{
	char err[512] = "";
	struct pcap_source *s;
	uint64_t ts, frames = 0;
	const uint8_t *d;
	size_t cap, wire;
	int rc;

	if (pcap_source_open(&s, path, err, sizeof(err)) < 0) {
		check_msg(err);
		return;
	}
	while ((rc = pcap_source_next(s, &ts, &d, &cap, &wire, err, sizeof(err))) == 1) {
		if (cap > 262144 || wire < cap)
			__builtin_trap();
		if (cap)   /* every byte of the packet is readable */
			(void)*(volatile const uint8_t *)(d + cap - 1);
		frames++;
	}
	if (rc < 0) {
		char want[48];
		check_msg(err);
		snprintf(want, sizeof(want), ": frame %llu, ", (unsigned long long)frames + 1);
		if (!strstr(err, want))
			__builtin_trap();
	}
	pcap_source_close(s);
}

static void dissect_all(void)
{
	struct dissect_opts o = { .tree = false, .max_inflight = 256 };
	struct dissect_cbs cbs = { 0 };
	struct dissect *d = dissect_new(&o, &cbs);
	char err[512] = "";

	if (!d)
		abort();
	if (dissect_file(d, path, err, sizeof(err)) < 0)
		check_msg(err);
	dissect_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(memfd, 0) < 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	read_all();
	dissect_all();
	return 0;
}
