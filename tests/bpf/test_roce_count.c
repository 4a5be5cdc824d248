/* Loads roce_count.bpf.o through its skeleton (so the kernel verifier sees
 * it), then runs every frame of real captures through it with
 * BPF_PROG_TEST_RUN and compares its per-opcode counts with an independent
 * count made here by walking the frames in plain C.  Needs root. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
/* libpcap's classic-BPF header clashes with linux/bpf.h; pcap.h needs only
 * the names from it. */
#define PCAP_DONT_INCLUDE_PCAP_BPF_H
struct bpf_program;
#include <pcap/dlt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "bpf/roce_count.h"
#include "roce_count.skel.h"

/* The oracle: BTH opcode of a RoCEv2 frame, or -1. Written independently
 * of the BPF parser on purpose. */
static int oracle_opcode(const uint8_t *p, size_t len)
{
	size_t off = 12;
	unsigned type;

	if (len < 14)
		return -1;
	type = (unsigned)(p[12] << 8 | p[13]);
	off = 14;
	while ((type == 0x8100 || type == 0x88a8) && len >= off + 4) {
		type = (unsigned)(p[off + 2] << 8 | p[off + 3]);
		off += 4;
	}
	unsigned l4;
	if (type == 0x0800) {
		if (len < off + 20)
			return -1;
		if ((p[off + 6] << 8 | p[off + 7]) & 0x1fff)
			return -1;
		l4 = p[off + 9];
		off += (size_t)(p[off] & 0x0f) * 4;
	} else if (type == 0x86dd) {
		if (len < off + 40)
			return -1;
		l4 = p[off + 6];
		off += 40;
	} else {
		return -1;
	}
	if (l4 != 17 || len < off + 8)
		return -1;
	if ((p[off + 2] << 8 | p[off + 3]) != ROCE_V2_UDP_PORT)
		return -1;
	off += 8;
	if (len < off + 12)
		return -2;
	return p[off];
}

static uint64_t total_rocev2;

static void run_capture(struct roce_count_bpf *skel, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, errbuf);
	static uint64_t want[ROCE_SLOT_MAX];
	struct pcap_pkthdr *h;
	const u_char *data;
	int prog_fd = bpf_program__fd(skel->progs.xdp_roce_count);
	int map_fd = bpf_map__fd(skel->maps.roce_stats);
	int ncpu = libbpf_num_possible_cpus();
	uint64_t got[ROCE_SLOT_MAX] = { 0 };
	unsigned frames = 0, passed = 0;

	CHECK(pc != NULL, "open %s: %s", path, errbuf);
	if (!pc)
		return;
	if (pcap_datalink(pc) != DLT_EN10MB) {
		CHECK_SKIP("%s: link type %d is not Ethernet", path, pcap_datalink(pc));
		pcap_close(pc);
		return;
	}
	memset(want, 0, sizeof(want));
	/* Reset the counters between captures. */
	uint64_t zeros[ncpu > 0 ? ncpu : 1];
	memset(zeros, 0, sizeof(zeros));
	for (uint32_t k = 0; k < ROCE_SLOT_MAX; k++)
		bpf_map_update_elem(map_fd, &k, zeros, BPF_ANY);

	while (pcap_next_ex(pc, &h, &data) == 1) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = data, .data_size_in = h->caplen,
			    .repeat = 1);
		int err = bpf_prog_test_run_opts(prog_fd, &opts);

		frames++;
		if (err == 0 && opts.retval == XDP_PASS)
			passed++;
		want[ROCE_SLOT_FRAMES]++;
		int op = oracle_opcode(data, h->caplen);
		if (op >= 0) {
			want[ROCE_SLOT_ROCEV2]++;
			want[op]++;
		} else if (op == -2) {
			want[ROCE_SLOT_SHORT]++;
		}
	}
	pcap_close(pc);

	for (uint32_t k = 0; k < ROCE_SLOT_MAX; k++) {
		uint64_t percpu[ncpu > 0 ? ncpu : 1];
		if (bpf_map_lookup_elem(map_fd, &k, percpu) == 0)
			for (int c = 0; c < ncpu; c++)
				got[k] += percpu[c];
	}
	CHECK(frames > 0, "%s: no frames", path);
	CHECK_EQ_U64(passed, frames);
	total_rocev2 += want[ROCE_SLOT_ROCEV2];
	for (uint32_t k = 0; k < ROCE_SLOT_MAX; k++)
		if (got[k] != want[k])
			CHECK_EQ_U64(got[k], want[k]);
	CHECK(memcmp(got, want, sizeof(got)) == 0, "%s: per-opcode counts differ", path);
	printf("%s: %u frames, %llu RoCEv2, counts agree\n", path, frames,
	       (unsigned long long)got[ROCE_SLOT_ROCEV2]);
}

int main(int argc, char **argv)
{
	struct roce_count_bpf *skel;

	if (geteuid() != 0) {
		printf("bpf: needs root to load programs\n");
		return 1;
	}
	skel = roce_count_bpf__open();
	CHECK(skel != NULL, "open skeleton: %s", strerror(errno));
	if (!skel)
		return check_summary("bpf-roce-count");
	/* Exercise the const volatile config path: set it before load. */
	skel->rodata->roce_port = ROCE_V2_UDP_PORT;
	int err = roce_count_bpf__load(skel);
	CHECK(err == 0, "load/verify: %d (%s)", err, strerror(-err));
	if (!err)
		for (int i = 1; i < argc; i++) {
			if (access(argv[i], R_OK) != 0) {
				CHECK_SKIP("%s absent", argv[i]);
				continue;
			}
			run_capture(skel, argv[i]);
		}
	/* Non-RoCE captures (NFS/TCP) count zero; the set as a whole must not. */
	CHECK(argc < 2 || total_rocev2 > 0, "no capture held a RoCEv2 frame");
	roce_count_bpf__destroy(skel);
	return check_summary("bpf-roce-count");
}
