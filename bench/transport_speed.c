/* Transport throughput: packets/s through transport_packet.
 *
 *   transport_speed [-n PACKETS] [-c CONNS] [-d DATA_CAP] [FILE.pcap]
 *
 * With a capture: reads it into memory and replays it until PACKETS frames
 * went through (a fresh transport per pass, so every pass decodes the same
 * way).  Without: a synthetic NFS/RDMA-like RoCEv2 stream over CONNS
 * connections (calls and replies as SEND Only, 32 KiB RDMA WRITEs and
 * READs at MTU 4096, ACKs), PSNs advancing every round, so reassembly,
 * READ matching and the connection table all work as on a long capture.
 *
 * Build: cc -O2 -I. bench/transport_speed.c build/libnfsrdma.a -lpcap -o build/transport_speed */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dissect/transport.h"
#include "pcap/capfile.h"
#include "tests/unit/test_transport_frames.h"

static volatile uint64_t sink;

static void on_event(const struct rdma_event *ev, void *ctx)
{
	(void)ctx;
	sink += ev->data_len + (ev->data_len ? ev->data[0] : 0);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct frame {
	uint8_t *b;
	size_t n, wire;
	uint32_t psn_step;   /* synthetic: PSN advance per round */
	uint32_t psn0;
};

static struct frame *frames;
static size_t nframes, capframes;

static void add(const uint8_t *b, size_t n, size_t wire, uint32_t psn0, uint32_t step)
{
	if (nframes == capframes) {
		capframes = capframes ? capframes * 2 : 1024;
		frames = realloc(frames, capframes * sizeof(*frames));
		if (!frames)
			exit(1);
	}
	struct frame *f = &frames[nframes++];
	f->b = malloc(n);
	if (!f->b)
		exit(1);
	memcpy(f->b, b, n);
	f->n = n;
	f->wire = wire;
	f->psn0 = psn0;
	f->psn_step = step;
}

/* ---------------------------------------------------------- synthetic */

static uint8_t payload[32768];
static struct fb fbuf;

static void synth_pkt(const struct rhost *s, const struct rhost *d, struct ibp *p, uint32_t step)
{
	fb_rocev2(&fbuf, s, d, p);
	add(fbuf.b, fbuf.n, fbuf.n, p->psn, step);
}

/* One round on one connection; client PSNs advance by cstep, server by
 * sstep per round. */
static void synth_conn(unsigned k)
{
	struct rhost c = { { 2, 0, 0, 0, 0, (uint8_t)k }, 0x0a000000u | (k << 8) | 2, (uint16_t)(0xc000 + k) };
	struct rhost s = { { 2, 0, 0, 0, 0, 1 }, 0x0a090001u, (uint16_t)(0xd000 + k) };
	uint32_t qc = 0x100 + k, qs = 0x8000 + k;
	uint32_t cp = 0, sp = 0;
	const uint32_t cstep = 2, sstep = 8 + 1 + 8 + 1;   /* PSNs per round */
	struct ibp p;

	for (int op = 0; op < 2; op++) {
		/* call */
		ibp_init(&p, 0x04, qs, cp++);
		p.payload = payload;
		p.plen = 200;
		synth_pkt(&c, &s, &p, cstep);
		ibp_init(&p, 0x11, qc, cp - 1);
		ibp_aeth(&p, 0x1f, 0);
		synth_pkt(&s, &c, &p, cstep);
		if (op == 0) {
			/* NFS READ: server WRITEs 32 KiB into the client */
			for (int i = 0; i < 8; i++) {
				uint8_t o = i == 0 ? 0x06 : i == 7 ? 0x08 : 0x07;
				ibp_init(&p, o, qc, sp++);
				if (i == 0)
					ibp_reth(&p, 0x7f0000000000ull, 0x1234, 32768);
				p.payload = payload + i * 4096;
				p.plen = 4096;
				synth_pkt(&s, &c, &p, sstep);
			}
		} else {
			/* NFS WRITE: server READs 32 KiB from the client */
			ibp_init(&p, 0x0c, qc, sp);
			ibp_reth(&p, 0x7f0000100000ull, 0x5678, 32768);
			synth_pkt(&s, &c, &p, sstep);
			for (int i = 0; i < 8; i++) {
				uint8_t o = i == 0 ? 0x0d : i == 7 ? 0x0f : 0x0e;
				ibp_init(&p, o, qs, sp + (uint32_t)i);
				if (o != 0x0e)
					ibp_aeth(&p, 0x1f, 0);
				p.payload = payload + i * 4096;
				p.plen = 4096;
				synth_pkt(&c, &s, &p, sstep);
			}
			sp += 8;
		}
		/* reply */
		ibp_init(&p, 0x17, qc, sp++);
		ibp_ext_be32(&p, 0x1234);
		p.payload = payload;
		p.plen = 140;
		synth_pkt(&s, &c, &p, sstep);
		ibp_init(&p, 0x11, qs, sp - 1);
		ibp_aeth(&p, 0x1f, 0);
		synth_pkt(&c, &s, &p, sstep);
	}
	(void)cstep;
}

static void set_psn(struct frame *f, uint32_t psn)
{
	/* BTH PSN at Ethernet 14 + IPv4 20 + UDP 8 + 9 */
	f->b[51] = (uint8_t)(psn >> 16);
	f->b[52] = (uint8_t)(psn >> 8);
	f->b[53] = (uint8_t)psn;
}

int main(int argc, char **argv)
{
	uint64_t target = 10000000;
	unsigned conns = 64;
	long cap = -1;
	int opt;

	while ((opt = getopt(argc, argv, "n:c:d:")) != -1) {
		switch (opt) {
		case 'n': target = strtoull(optarg, NULL, 0); break;
		case 'c': conns = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'd': cap = strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-n PACKETS] [-c CONNS] [-d DATA_CAP] [FILE]\n", argv[0]);
			return 2;
		}
	}
	int linktype = LINKTYPE_ETHERNET;
	bool synthetic = optind >= argc;
	if (!synthetic) {
		char err[512];
		struct pcap_source *s;
		if (pcap_source_open(&s, argv[optind], err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		linktype = pcap_source_linktype(s);
		uint64_t ts;
		const uint8_t *d;
		size_t cl, wl;
		int rc;
		while ((rc = pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err))) == 1)
			add(d, cl, wl, 0, 0);
		if (rc < 0)
			fprintf(stderr, "%s\n", err);
		pcap_source_close(s);
	} else {
		for (size_t i = 0; i < sizeof(payload); i++)
			payload[i] = (uint8_t)i;
		for (unsigned k = 0; k < conns; k++)
			synth_conn(k);
	}
	if (!nframes) {
		fprintf(stderr, "no frames\n");
		return 1;
	}
	uint64_t bytes_per_pass = 0;
	for (size_t i = 0; i < nframes; i++)
		bytes_per_pass += frames[i].wire;

	uint64_t done = 0, bytes = 0, frame_no = 0, ts = 1000000000ull, events = 0;
	double t0 = now();
	struct transport *t = NULL;
	for (uint32_t round = 0; done < target; round++) {
		if (!t || !synthetic) {
			if (t) {
				transport_flush(t);
				events += transport_stats(t)->sends + transport_stats(t)->writes + transport_stats(t)->reads;
				transport_free(t);
			}
			t = transport_new(on_event, NULL, NULL);
			transport_set_linktype(t, linktype);
			if (cap >= 0)
				transport_set_data_cap(t, (size_t)cap);
			frame_no = 0;
		}
		for (size_t i = 0; i < nframes; i++) {
			struct frame *f = &frames[i];
			if (synthetic)
				set_psn(f, (f->psn0 + round * f->psn_step) & 0xffffff);
			ts += 1000;
			transport_packet(t, ts, ++frame_no, f->b, f->n, f->wire);
		}
		done += nframes;
		bytes += bytes_per_pass;
	}
	transport_flush(t);
	double dt = now() - t0;
	const struct transport_stats *st = transport_stats(t);
	events += st->sends + st->writes + st->reads;
	printf("%s: %" PRIu64 " packets in %.3f s: %.2f Mpackets/s, %.2f Gbit/s, %" PRIu64 " messages "
	       "(last pass: %" PRIu64 " conns, %" PRIu64 " gaps, %" PRIu64 " truncated/invalid)\n",
	       synthetic ? "synthetic" : argv[optind], done, dt, (double)done / dt / 1e6,
	       (double)bytes * 8 / dt / 1e9, events, st->conns, st->psn_gaps, st->truncated + st->invalid);
	transport_free(t);
	for (size_t i = 0; i < nframes; i++)
		free(frames[i].b);
	free(frames);
	return 0;
}
