/* The XDP fast path under repetition, and its benchmark.
 *
 *   test_xdp_bench CAPTURE...            (bpf tier) BPF_PROG_TEST_RUN with
 *       repeat over each capture's frames: every repetition returns
 *       XDP_PASS and is counted once, every RoCE repetition produces one
 *       record or one counted ring-buffer drop.  No timing is asserted.
 *   test_xdp_bench --bench CAPTURE       (bench/xdp.sh) prints
 *       1. ns/packet over the capture's packet mix (BPF_PROG_TEST_RUN,
 *          repeat; the kernel's own duration), snap 512 and full frames;
 *       2. on a veth pair in private namespaces, fed by xdp_gen (XDP live
 *          frames, in the kernel, CPU 0) with the receiving side on CPU 1,
 *          the highest rate at which the XDP path (program + record rings
 *          + the dissector's per-XID pipeline in user space) loses
 *          nothing, the same with the mirror-port option, and for a
 *          libpcap capture on the same interface feeding the same
 *          pipeline; and each one's receive CPU time per frame.
 *   test_xdp_bench --testrun CAPTURE     part 1 only.
 *   test_xdp_bench --ab CAPTURE ROUNDS OBJ...   part 1 for several builds
 *       of bpf/xdp_roce.bpf.c (e.g. the tree's and a patched copy), in
 *       turns, ROUNDS times: per-object medians and the median of each
 *       round's difference to the first object. */
#include <bpf/btf.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#define PCAP_DONT_INCLUDE_PCAP_BPF_H
struct bpf_program;
#include <pcap/pcap.h>

#include "../xdp/xdp_test.h"
#include "pcap/source_xdp.h"
#include "roce_count.skel.h"
#include "xdp_gen.skel.h"
#include "../xdp/veth_ns.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- 1: BPF_PROG_TEST_RUN ---- */

/* Mean ns/packet over the mix.  Each frame runs `trials` times with
 * `repeat` repetitions; its cost is the lowest of the trials' means (an
 * interrupt or a stolen vCPU only ever adds time), weighted once per frame
 * of the mix. */
static double mix_ns(struct txdp *x, const struct tcap *c, size_t nframes, uint32_t repeat,
		     unsigned trials, int check)
{
	double total_ns = 0;
	size_t runs = 0;
	unsigned bad = 0;

	txdp_reset(x);
	for (size_t i = 0; i < c->n && i < nframes; i++) {
		uint32_t best = UINT32_MAX;
		for (unsigned t = 0; t < trials; t++) {
			uint64_t f0 = txdp_stat(x, XS_FRAMES), r0 = txdp_stat(x, XS_RECORDS),
				 d0 = txdp_stat(x, XS_RB_DROPS),
				 roce0 = txdp_stat(x, XS_ROCE) + txdp_stat(x, XS_MALFORMED);
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = c->f[i].data,
				    .data_size_in = (uint32_t)c->f[i].cap, .repeat = repeat);
			int err = bpf_prog_test_run_opts(x->prog_fd, &o);
			txdp_consume(x);
			trecs_clear(&x->recs);
			if (check) {
				uint64_t roce = txdp_stat(x, XS_ROCE) + txdp_stat(x, XS_MALFORMED) - roce0;
				if (err || o.retval != XDP_PASS || txdp_stat(x, XS_FRAMES) - f0 != repeat ||
				    (roce != 0 && roce != repeat) ||
				    txdp_stat(x, XS_RECORDS) - r0 + txdp_stat(x, XS_RB_DROPS) - d0 != roce) {
					if (bad++ < 5)
						fprintf(stderr, "%s frame %zu: run %d retval %u, repetitions miscounted\n",
							c->path, i + 1, err, o.retval);
				}
			}
			if (!err && o.duration < best)
				best = o.duration;
		}
		if (best != UINT32_MAX) {
			total_ns += best;
			runs++;
		}
	}
	if (check)
		CHECK(bad == 0, "%s: %u frames: repetitions not all XDP_PASS and counted once", c->path, bad);
	return runs ? total_ns / (double)runs : 0;
}

/* ---- 2: veth pair ---- */

/* The pair, with GRO on veth_a (NAPI runs with no XDP program attached,
 * so the generator's frames reach libpcap too) and threaded NAPI (its
 * thread can be pinned to the receiving CPU). */
static int veth_setup(void)
{
	if (veth_pair_create("xdpb", 'b') < 0)
		return -1;
	return veth_sh("ip netns exec %s ethtool -K %s gro on >/dev/null", ns_a, veth_a) ||
	       veth_sh("ip netns exec %s sh -c 'echo 1 > /sys/class/net/%s/threaded'", ns_a, veth_a) ? -1 : 0;
}

/* The generator: frames of the mix sent from the kernel by xdp_gen
 * (BPF_F_TEST_XDP_LIVE_FRAMES), GEN_BURST copies of each in turn, at rate
 * pps (0: flat out).  Runs in ns_b, where the program's out_ifindex is.
 * Returns frames sent; *elapsed in ns. */
#define GEN_BURST 64
#define GEN_MAX_FRAME 3000   /* live frames must fit a page; larger mix frames are left out */
static size_t gen_at(int prog_fd, const struct tcap *c, size_t count, double pps, uint64_t *elapsed)
{
	size_t sent = 0, k = 0, tries = 0;
	uint64_t t0 = mono();
	int self = enter_ns(ns_b);

	while (sent < count && tries < c->n * 2) {
		const struct tframe *t = &c->f[k++ % c->n];
		if (t->cap > GEN_MAX_FRAME || t->cap < 64) {
			tries++;
			continue;
		}
		tries = 0;
		uint32_t n = count - sent < GEN_BURST ? (uint32_t)(count - sent) : GEN_BURST;
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = t->data, .data_size_in = (uint32_t)t->cap,
			    .repeat = n, .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = GEN_BURST);
		if (bpf_prog_test_run_opts(prog_fd, &o) < 0)
			break;
		sent += n;
		if (pps > 0) {
			uint64_t due = t0 + (uint64_t)((double)sent * 1e9 / pps);
			while (mono() < due)
				;
		}
	}
	*elapsed = mono() - t0;
	leave_ns(self);
	return sent;
}

struct rx {
	volatile int stop;
	struct source *xs;   /* XDP */
	pcap_t *pc;          /* libpcap */
	volatile pid_t tid;  /* the reader thread */
	struct transport *tp;
	struct dissect *d;
	uint64_t pcap_frames;
	uint64_t records;
};

static void count_rec(const struct nfsrdma_record *r, void *ctx)
{
	((struct rx *)ctx)->records++;
}

static void count_rec2(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	((struct rx *)ctx)->records++;
}

static void pcap_cb(u_char *u, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct rx *rx = (struct rx *)u;

	rx->pcap_frames++;
	transport_packet(rx->tp, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec * 1000,
			 rx->pcap_frames, bytes, h->caplen, h->len);
}

/* The receiving side gets CPU 1 (NAPI thread and reader), the generator
 * CPU 0: frames are lost when the receiver, not the sender, runs out.
 * The NAPI thread runs SCHED_FIFO, as softirq work preempts user space on
 * a NIC's receive CPU.  Both readers sleep in poll (10 ms at most) when
 * there is nothing to read, so their CPU time is their work. */
static void pin_self(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void pin_napi(void)
{
	char cmd[256];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	snprintf(cmd, sizeof(cmd), "for p in $(pgrep '^napi/%s'); do taskset -pc 1 $p >/dev/null && chrt -f -p 50 $p; done",
		 veth_a);
	if (system(cmd) != 0)
		fprintf(stderr, "bench: could not pin the NAPI thread of %s\n", veth_a);
}

/* An idle vCPU halts, and each wake-up from halt is a trip through the
 * host: it adds to every receiver's CPU time per frame (~40 % here) and
 * to its wake-up delays.  A SCHED_IDLE spinner keeps the receive CPU out
 * of halt, as a busy host's receive CPU is; it only ever gets time no
 * one else wants, so the CPU times stay the receivers' own. */
static volatile int spin_stop;

static void *idle_spinner(void *arg)
{
	struct sched_param sp = { 0 };

	pin_self(1);
	sched_setscheduler(0, SCHED_IDLE, &sp);
	while (!spin_stop)
		__asm__ volatile("pause");
	return NULL;
}

static void *rx_thread(void *arg)
{
	struct rx *rx = arg;

	pin_self(1);
	rx->tid = (pid_t)syscall(SYS_gettid);
	while (!rx->stop) {
		if (rx->xs)
			source_poll(rx->xs, 10);
		else
			pcap_dispatch(rx->pc, 256, pcap_cb, (u_char *)rx);
	}
	return NULL;
}

/* The receiver of one mode, opened once for all its trials. */
/* Receivers: libpcap, the XDP path, the XDP path with the mirror-port
 * option (frames for another host dropped after they are recorded). */
enum { RX_PCAP, RX_XDP, RX_XDP_MIRROR };
static const char *const rx_name[] = { "libpcap", "xdp", "xdp mirror" };

static int rx_open(struct rx *rx, int use_xdp)
{
	char err[PCAP_ERRBUF_SIZE + 256] = "";

	memset(rx, 0, sizeof(*rx));
	int self = enter_ns(ns_a);
	if (self < 0)
		return -1;
	if (use_xdp) {
		struct source_opts o = { .snaplen = XDP_ROCE_SNAP_DEFAULT, .sample = 1 };
		char spec[64];
		snprintf(spec, sizeof(spec), "%s%s", veth_a, use_xdp == RX_XDP_MIRROR ? ",mirror" : "");
		if (source_type_xdp.open(&rx->xs, spec, &o, count_rec, rx, err, sizeof(err)) < 0)
			rx->xs = NULL;
		else
			printf("veth: xdp attached in %s mode\n", source_xdp_mode(rx->xs));
	} else {
		rx->pc = pcap_create(veth_a, err);
		if (rx->pc) {
			pcap_set_snaplen(rx->pc, XDP_ROCE_SNAP_DEFAULT);
			pcap_set_immediate_mode(rx->pc, 1);
			pcap_set_timeout(rx->pc, 10);
			if (pcap_activate(rx->pc) < 0) {
				snprintf(err, sizeof(err), "%s", pcap_geterr(rx->pc));
				pcap_close(rx->pc);
				rx->pc = NULL;
			}
		}
		struct dissect_cbs cbs = { .record = count_rec2, .ctx = rx };
		struct dissect_opts dop = { 0 };
		rx->d = dissect_new(&dop, &cbs);
		rx->tp = transport_new(dissect_event, NULL, rx->d);
		transport_set_linktype(rx->tp, LINKTYPE_ETHERNET);
	}
	leave_ns(self);
	if (!rx->xs && !rx->pc) {
		fprintf(stderr, "bench: %s\n", err);
		return -1;
	}
	return 0;
}

static void rx_close(struct rx *rx)
{
	if (rx->xs)
		source_close(rx->xs);
	if (rx->pc)
		pcap_close(rx->pc);
	if (rx->tp)
		transport_free(rx->tp);
	if (rx->d)
		dissect_free(rx->d);
}

/* Everything received so far, and what was lost before user space. */
static void rx_counts(struct rx *rx, uint64_t *seen, uint64_t *lost)
{
	if (rx->xs) {
		struct source_stats st;
		source_get_stats(rx->xs, &st);
		/* frames the program saw that did not reach user space: ring
		 * full, or records not yet consumed */
		*seen = source_xdp_frames_seen(rx->xs);
		*lost = st.drops + (source_xdp_counter(rx->xs, XS_RECORDS) - st.events);
	} else {
		struct pcap_stat ps;
		memset(&ps, 0, sizeof(ps));
		pcap_stats(rx->pc, &ps);
		*seen = rx->pcap_frames;
		*lost = ps.ps_drop;
	}
}

/* CPU time of a thread so far, in ns (schedstat: time on a CPU). */
static uint64_t thread_cpu_ns(pid_t pid, pid_t tid)
{
	char path[96];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* The receive CPU's work per frame in the last trial: the NAPI thread
 * (driver, XDP program or skb + stack + AF_PACKET) and the reader. */
static double last_napi_ns, last_reader_ns;

static pid_t napi_pid(void)
{
	char cmd[128], line[32] = "";

	snprintf(cmd, sizeof(cmd), "pgrep '^napi/%s' | head -1", veth_a);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 0;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	pclose(p);
	return (pid_t)atoi(line);
}

/* One trial: 1 = nothing lost at this rate.  Lost = frames the generator
 * sent that the receiver did not hand to user space: dropped at the veth
 * (its NAPI ring full), in the kernel (AF_PACKET ring / record ring full),
 * or not read by the end of the trial. */
static int trial(struct rx *rx, int gen_fd, const struct tcap *c, double pps, size_t count,
		 double *achieved)
{
	pthread_t th;
	uint64_t seen0, lost0, seen1, lost1, el = 0;

	rx_counts(rx, &seen0, &lost0);
	rx->stop = 0;
	rx->tid = 0;
	if (pthread_create(&th, NULL, rx_thread, rx) != 0)
		return 0;
	pid_t np = napi_pid();
	uint64_t napi0 = np ? thread_cpu_ns(np, np) : 0;
	while (!rx->tid)
		usleep(100);
	uint64_t rd0 = thread_cpu_ns(getpid(), rx->tid);
	if (pps > 0 && count > (size_t)(pps * 0.5))
		count = (size_t)(pps * 0.5) + 1;   /* half a second per trial */
	size_t sent = gen_at(gen_fd, c, count, pps, &el);
	*achieved = el ? (double)sent * 1e9 / (double)el : 0;
	usleep(300000);   /* let the reader drain */
	uint64_t napi1 = np ? thread_cpu_ns(np, np) : 0, rd1 = thread_cpu_ns(getpid(), rx->tid);
	rx->stop = 1;
	if (rx->pc)
		pcap_breakloop(rx->pc);   /* immediate mode polls without a timeout */
	pthread_join(th, NULL);
	rx_counts(rx, &seen1, &lost1);
	last_napi_ns = seen1 > seen0 ? (double)(napi1 - napi0) / (double)(seen1 - seen0) : 0;
	last_reader_ns = seen1 > seen0 ? (double)(rd1 - rd0) / (double)(seen1 - seen0) : 0;
	if (sent != count || seen1 - seen0 != sent || lost1 != lost0)
		fprintf(stderr, "    sent %zu of %zu; lost at the veth ring %" PRId64 ", between the kernel and the reader %" PRIu64 "\n",
			sent, count, (int64_t)sent - (int64_t)(seen1 - seen0), lost1 - lost0);
	return sent == count && seen1 - seen0 == sent && lost1 == lost0;
}

/* A rate is lossy when two trials in a row lose: one lost burst can be
 * the host taking the vCPU away (steal time), which no receive path on
 * the guest can prevent. */
static int trial_confirmed(struct rx *rx, int gen_fd, const struct tcap *c, double pps, size_t count,
			   double *achieved)
{
	if (trial(rx, gen_fd, c, pps, count, achieved))
		return 1;
	fprintf(stderr, "    again at %.0f pps\n", pps);
	return trial(rx, gen_fd, c, pps, count, achieved);
}

/* Highest zero-loss rate on a doubling then bisecting ladder. */
/* Also *cpu: the receive CPU's ns per frame (NAPI + reader) at 20,000
 * frames/s, a rate every receiver holds: the lowest of 3 trials. */
static double max_rate(int gen_fd, const struct tcap *c, int use_xdp, double cap, size_t count, double cpu[2])
{
	struct rx rx;

	if (rx_open(&rx, use_xdp) < 0)
		return 0;
	double lo = 0, hi = 0, got;
	double r = 50000;

	pin_napi();
	trial(&rx, gen_fd, c, 10000, count, &got);   /* warm-up: page pools, caches; not counted */
	cpu[0] = cpu[1] = 0;
	for (int i = 0; i < 3; i++) {
		trial(&rx, gen_fd, c, 20000, count, &got);
		if (!cpu[0] || last_napi_ns + last_reader_ns < cpu[0] + cpu[1])
			cpu[0] = last_napi_ns, cpu[1] = last_reader_ns;
	}
	while (r < cap * 2) {
		double rate = r > cap ? 0 : r;     /* beyond the sender: flat out */
		pin_napi();
		int ok = trial_confirmed(&rx, gen_fd, c, rate, count, &got);
		fprintf(stderr, "  %s at %.0f pps (achieved %.0f): %s; receive CPU per frame %.0f ns (NAPI) + %.0f ns (reader)\n",
			rx_name[use_xdp], rate, got, ok ? "no loss" : "loss", last_napi_ns, last_reader_ns);
		if (ok) {
			lo = got;
			if (!rate) {
				rx_close(&rx);
				return lo;
			}
		} else {
			hi = r;
			break;
		}
		r *= 2;
	}
	for (int i = 0; i < 3 && hi > 0 && hi - lo > lo * 0.1; i++) {
		double mid = (lo + hi) / 2;
		int ok = trial_confirmed(&rx, gen_fd, c, mid, count, &got);
		fprintf(stderr, "  %s at %.0f pps (achieved %.0f): %s; receive CPU per frame %.0f ns (NAPI) + %.0f ns (reader)\n",
			rx_name[use_xdp], mid, got, ok ? "no loss" : "loss", last_napi_ns, last_reader_ns);
		if (ok)
			lo = got;
		else
			hi = mid;
	}
	rx_close(&rx);
	return lo;
}

/* A program that is not attached anywhere is added to the kernel's XDP
 * dispatcher and removed again on every test run, each a synchronize_rcu
 * (tens of ms here): 10,000 runs would take minutes.  Attached natively to
 * veth B (which receives nothing during the test runs), it stays there. */
static int pin_prog(int prog_fd, int ifb)
{
	int self = enter_ns(ns_b);
	int err = ifb > 0 ? bpf_xdp_attach(ifb, prog_fd, XDP_FLAGS_DRV_MODE, NULL) : -ENODEV;
	leave_ns(self);
	return err;
}

static void unpin_prog(int ifb)
{
	int self = enter_ns(ns_b);
	bpf_xdp_detach(ifb, XDP_FLAGS_DRV_MODE, NULL);
	leave_ns(self);
}

static double pinned_mix_ns(struct txdp *x, const struct tcap *c, int ifb, uint32_t repeat)
{
	int pinned = pin_prog(x->prog_fd, ifb) == 0;
	double ns = mix_ns(x, c, c->n, repeat, 5, 0);
	if (pinned)
		unpin_prog(ifb);
	return ns;
}

/* ---- 3: A/B of built objects (--ab) ---- */
#include "xdp_bench_ab.h"

static int bench(const char *path, int testrun_only)
{
	struct tcap c;
	struct txdp x512, xfull, x64, xnone;

	if (tcap_load(&c, path) < 0 || c.linktype != LINKTYPE_ETHERNET) {
		fprintf(stderr, "bench: %s: not an Ethernet capture\n", path);
		return 1;
	}
	if (txdp_open(&x512, XDP_ROCE_SNAP_DEFAULT, 1) || txdp_open(&xfull, XDP_ROCE_SNAP_MAX, 1) ||
	    txdp_open(&x64, 64, 1) || txdp_open(&xnone, XDP_ROCE_SNAP_DEFAULT, 1u << 30)) {
		fprintf(stderr, "bench: cannot load xdp_roce\n");
		return 1;
	}
	if (veth_setup() < 0) {
		fprintf(stderr, "bench: veth setup failed\n");
		return 1;
	}
	int self = enter_ns(ns_b);
	int ifb = (int)if_nametoindex(veth_b);
	leave_ns(self);
	double ns512 = pinned_mix_ns(&x512, &c, ifb, 200);
	double nsfull = pinned_mix_ns(&xfull, &c, ifb, 100);
	double ns64 = pinned_mix_ns(&x64, &c, ifb, 200);
	double nsnone = pinned_mix_ns(&xnone, &c, ifb, 200);
	/* the test-run floor: the trivial first program on the same mix */
	double nsbase = 0;
	struct roce_count_bpf *rc = roce_count_bpf__open_and_load();
	int rc_pinned = rc && pin_prog(bpf_program__fd(rc->progs.xdp_roce_count), ifb) == 0;
	if (rc) {
		double tot = 0;
		size_t runs = 0;
		for (size_t i = 0; i < c.n; i++) {
			uint32_t best = UINT32_MAX;
			for (int t = 0; t < 5; t++) {   /* as mix_ns: the lowest of 5 */
				LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = c.f[i].data,
					    .data_size_in = (uint32_t)c.f[i].cap, .repeat = 200);
				if (!bpf_prog_test_run_opts(bpf_program__fd(rc->progs.xdp_roce_count), &o) &&
				    o.duration < best)
					best = o.duration;
			}
			if (best != UINT32_MAX) {
				tot += best;
				runs++;
			}
		}
		nsbase = runs ? tot / (double)runs : 0;
		if (rc_pinned)
			unpin_prog(ifb);
		roce_count_bpf__destroy(rc);
	}
	txdp_close(&x512);
	txdp_close(&xfull);
	txdp_close(&x64);
	txdp_close(&xnone);
	printf("xdp test-run: %s, %zu-frame mix, ns/packet: %.1f (records of 512 bytes), %.1f (full frames), "
	       "%.1f (64 bytes), %.1f (parse + counters, no record)\n", path, c.n, ns512, nsfull, ns64, nsnone);
	printf("xdp test-run: floor (bpf/roce_count.bpf.o, a 20-line counter, same mix): %.1f ns/packet\n", nsbase);
	printf("xdp test-run: target <= 100 ns/packet: ratio target/measured %.2f (512), %.2f (no record)\n",
	       ns512 > 0 ? 100.0 / ns512 : 0, nsnone > 0 ? 100.0 / nsnone : 0);
	if (testrun_only) {
		veth_cleanup();
		tcap_free(&c);
		return 0;
	}
	struct xdp_gen_bpf *g = xdp_gen_bpf__open();
	if (!g || ifb <= 0) {
		fprintf(stderr, "bench: generator: cannot open\n");
		return 1;
	}
	g->rodata->out_ifindex = (uint32_t)ifb;
	if (xdp_gen_bpf__load(g)) {
		fprintf(stderr, "bench: generator: cannot load\n");
		return 1;
	}
	int gen_fd = bpf_program__fd(g->progs.xdp_gen);
	/* Attached (to veth_b, which receives nothing), the program stays in
	 * the kernel's XDP dispatcher: otherwise every test run adds it and
	 * removes it again, each a synchronize_rcu (tens of ms here). */
	self = enter_ns(ns_b);
	struct bpf_link *gl = bpf_program__attach_xdp(g->progs.xdp_gen, ifb);
	leave_ns(self);
	if (!gl)
		fprintf(stderr, "bench: generator: not attached to %s (slow test runs)\n", veth_b);
	size_t nsmall = 0;
	for (size_t i = 0; i < c.n; i++)
		nsmall += c.f[i].cap <= GEN_MAX_FRAME && c.f[i].cap >= 64;
	printf("veth: generator: xdp_gen with BPF_F_TEST_XDP_LIVE_FRAMES on CPU 0, %zu of the %zu frames "
	       "(those <= %d bytes, in order, %d copies each); receiver (threaded NAPI at SCHED_FIFO + reader, a SCHED_IDLE spinner against halt) on CPU 1\n",
	       nsmall, c.n, GEN_MAX_FRAME, GEN_BURST);
	pin_self(0);
	pthread_t spinner;
	int spinning = pthread_create(&spinner, NULL, idle_spinner, NULL) == 0;
	size_t count = 400000;
	double flat = 0;
	{
		struct rx rx;   /* a receiver must be there: veth needs the peer's NAPI */
		if (rx_open(&rx, 0) == 0) {
			pin_napi();
			trial(&rx, gen_fd, &c, 0, count, &flat);
			rx_close(&rx);
		}
	}
	printf("veth: generator flat out (libpcap attached): %.0f packets/s\n", flat);
	double cx[2], cm[2], cp[2];
	double rx = max_rate(gen_fd, &c, RX_XDP, flat, count, cx);
	double rm = max_rate(gen_fd, &c, RX_XDP_MIRROR, flat, count, cm);
	double rp = max_rate(gen_fd, &c, RX_PCAP, flat, count, cp);
	double tp = cp[0] + cp[1], tx = cx[0] + cx[1], tm = cm[0] + cm[1];
	printf("veth: receive CPU per frame at 20000 pps (NAPI thread + reader, schedstat, lowest of 3): "
	       "XDP path %.0f + %.0f ns, XDP path as a mirror port %.0f + %.0f ns, libpcap %.0f + %.0f ns\n",
	       cx[0], cx[1], cm[0], cm[1], cp[0], cp[1]);
	printf("veth: frames one receive CPU can take (1 s / CPU per frame) vs libpcap: XDP path %.2fx, mirror port %.2fx\n",
	       tx > 0 ? tp / tx : 0, tm > 0 ? tp / tm : 0);
	printf("veth: highest zero-loss rate: XDP path %.0f pps, mirror port %.0f pps, libpcap %.0f pps; "
	       "ratios %.2f and %.2f (target >= 10)%s\n", rx, rm, rp, rp > 0 ? rx / rp : 0, rp > 0 ? rm / rp : 0,
	       rx >= flat * 0.9 || rm >= flat * 0.9 ? " [limited by the generator: a lower bound]" : "");
	spin_stop = 1;
	if (spinning)
		pthread_join(spinner, NULL);
	bpf_link__destroy(gl);
	xdp_gen_bpf__destroy(g);
	veth_cleanup();
	tcap_free(&c);
	return 0;
}

int main(int argc, char **argv)
{
	struct txdp x;
	int ncap = 0;

	if (geteuid() != 0) {
		printf("bpf-xdp-bench: needs root to load programs\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return bench(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "--testrun"))
		return bench(argv[2], 1);
	if (argc >= 5 && !strcmp(argv[1], "--ab"))
		return ab(argv[2], atoi(argv[3]), argc - 4, argv + 4);
	int err = txdp_open(&x, XDP_ROCE_SNAP_DEFAULT, 1);
	CHECK(err == 0, "load/verify xdp_roce: %d", err);
	if (err)
		return check_summary("bpf-xdp-repeat");
	for (int i = 1; i < argc; i++) {
		struct tcap c;
		if (access(argv[i], R_OK) != 0 || tcap_load(&c, argv[i]) < 0)
			continue;
		if (c.linktype == LINKTYPE_ETHERNET && c.n) {
			/* repeat > 1 lets the kernel reschedule inside the run:
			 * a few frames per capture keep the tier quick */
			mix_ns(&x, &c, 16, 4, 1, 1);
			ncap++;
		}
		tcap_free(&c);
	}
	CHECK(argc < 2 || ncap > 0, "no Ethernet capture");
	txdp_close(&x);
	return check_summary("bpf-xdp-repeat");
}
