/* Part 3 of tests/bpf/test_xdp_bench.c (--ab): the A/B of built objects of
 * bpf/xdp_roce.bpf.c in one process, in turns.  Included by it only,
 * after the veth and pinning helpers it uses. */
#ifndef NFSRDMA_XDP_BENCH_AB_H
#define NFSRDMA_XDP_BENCH_AB_H


/* Run-to-run noise on this VM (+-20 ns) is larger than most single
 * changes, so variants are compared in one process, in turns: each round
 * measures every object once, and the report is per-object medians and
 * the median of each round's difference to the first object.  The
 * objects are any builds of bpf/xdp_roce.bpf.c with the same maps and
 * rodata names (e.g. the tree's and a patched copy). */
#define AB_MAX 8

struct abprog {
	struct bpf_object *obj;
	struct xdp_ring *ring;
	int prog_fd;
};

static int ab_discard(void *ctx, const void *rec, size_t len)
{
	return 0;
}

/* Sets a rodata variable by its BTF name before load (generic objects
 * have no skeleton).  0, or -ENOENT if this build has no such variable. */
static int ab_set_rodata(struct bpf_object *obj, const char *name, const void *val, size_t sz)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m, *ro = NULL;

	bpf_object__for_each_map(m, obj) {
		const char *n = bpf_map__name(m);
		size_t l = strlen(n);
		if (l >= 7 && !strcmp(n + l - 7, ".rodata"))
			ro = m;
	}
	int sid = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (!ro || sid < 0)
		return -ENOENT;
	const struct btf_type *sec = btf__type_by_id(btf, (uint32_t)sid);
	const struct btf_var_secinfo *vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vs[i].type);
		if (strcmp(btf__name_by_offset(btf, v->name_off), name))
			continue;
		size_t dsz = 0;
		const void *cur = bpf_map__initial_value(ro, &dsz);
		if (!cur || vs[i].size != sz || vs[i].offset + sz > dsz)
			return -EINVAL;
		uint8_t *buf = malloc(dsz);
		if (!buf)
			return -ENOMEM;
		memcpy(buf, cur, dsz);
		memcpy(buf + vs[i].offset, val, sz);
		int err = bpf_map__set_initial_value(ro, buf, dsz);
		free(buf);
		return err;
	}
	return -ENOENT;
}

static int ab_open(struct abprog *a, const char *path, uint32_t snap, uint32_t sample)
{
	uint32_t mask = 0;
	int err;

	memset(a, 0, sizeof(*a));
	a->obj = bpf_object__open_file(path, NULL);
	if (!a->obj)
		return -errno;
	struct bpf_map *ring = bpf_object__find_map_by_name(a->obj, "xdp_ring");
	struct bpf_map *wake = bpf_object__find_map_by_name(a->obj, "xdp_wake");
	struct bpf_program *p = bpf_object__find_program_by_name(a->obj, "xdp_roce");
	if (!ring || !wake || !p) {
		err = -ENOENT;
		goto close;
	}
	/* XDP_AB_RING=BYTES: another ring size (a ring that fits in L2 shows
	 * what the record copy costs in cache misses) */
	const char *rb = getenv("XDP_AB_RING");
	err = xdp_ring_configure(ring, xdp_ring_bytes(rb ? strtoull(rb, NULL, 0) : 0), &mask);
	if (!err)
		err = ab_set_rodata(a->obj, "snap_len", &snap, sizeof(snap));
	if (!err)
		err = ab_set_rodata(a->obj, "sample_every", &sample, sizeof(sample));
	if (!err)
		err = ab_set_rodata(a->obj, "ring_mask", &mask, sizeof(mask));
	if (!err)
		err = bpf_object__load(a->obj);
	if (!err)
		err = xdp_ring_new(&a->ring, ring, wake, ab_discard, NULL);
	if (err)
		goto close;
	a->prog_fd = bpf_program__fd(p);
	return 0;
close:
	bpf_object__close(a->obj);
	a->obj = NULL;
	return err;
}

static void ab_close(struct abprog *a)
{
	xdp_ring_free(a->ring);
	bpf_object__close(a->obj);
	memset(a, 0, sizeof(*a));
}

/* As mix_ns: per frame the lowest of `trials` means of `repeat` runs. */
static double ab_mix_ns(struct abprog *a, const struct tcap *c, int ifb, uint32_t repeat, unsigned trials)
{
	int pinned = pin_prog(a->prog_fd, ifb) == 0;
	double total = 0;
	size_t runs = 0;

	for (size_t i = 0; i < c->n; i++) {
		uint32_t best = UINT32_MAX;
		for (unsigned t = 0; t < trials; t++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = c->f[i].data,
				    .data_size_in = (uint32_t)c->f[i].cap, .repeat = repeat);
			int err = bpf_prog_test_run_opts(a->prog_fd, &o);
			xdp_ring_consume(a->ring);
			if (!err && o.retval == XDP_PASS && o.duration < best)
				best = o.duration;
		}
		if (best != UINT32_MAX) {
			total += best;
			runs++;
		}
	}
	if (pinned)
		unpin_prog(ifb);
	return runs ? total / (double)runs : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[64];

	if (n <= 0 || n > 64)
		return 0;
	memcpy(s, v, sizeof(*v) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_dbl);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* test_xdp_bench --ab CAPTURE ROUNDS OBJ...: snap 512 records and no
 * record (sampled out), every object once per round, in turns. */
static int ab(const char *path, int rounds, int nobj, char **objs)
{
	struct tcap c;
	struct abprog rec[AB_MAX], none[AB_MAX];
	double ns[2][AB_MAX][64];

	if (nobj < 1 || nobj > AB_MAX || rounds < 1 || rounds > 64) {
		fprintf(stderr, "ab: 1..%d objects, 1..64 rounds\n", AB_MAX);
		return 1;
	}
	if (tcap_load(&c, path) < 0 || c.linktype != LINKTYPE_ETHERNET) {
		fprintf(stderr, "ab: %s: not an Ethernet capture\n", path);
		return 1;
	}
	for (int k = 0; k < nobj; k++) {
		int e1 = ab_open(&rec[k], objs[k], XDP_ROCE_SNAP_DEFAULT, 1);
		int e2 = ab_open(&none[k], objs[k], XDP_ROCE_SNAP_DEFAULT, 1u << 30);
		if (e1 || e2) {
			fprintf(stderr, "ab: %s: cannot load: %d %d\n", objs[k], e1, e2);
			return 1;
		}
	}
	if (veth_setup() < 0) {
		fprintf(stderr, "ab: veth setup failed\n");
		return 1;
	}
	int self = enter_ns(ns_b);
	int ifb = (int)if_nametoindex(veth_b);
	leave_ns(self);
	/* a warm-up round (caches, page pools, the CPU's frequency), not counted */
	for (int k = 0; k < nobj; k++) {
		ab_mix_ns(&rec[k], &c, ifb, 200, 1);
		ab_mix_ns(&none[k], &c, ifb, 200, 1);
	}
	for (int r = 0; r < rounds; r++) {
		/* alternate the order too, so neither object always goes first */
		for (int j = 0; j < nobj; j++) {
			int k = r % 2 ? nobj - 1 - j : j;
			ns[0][k][r] = ab_mix_ns(&rec[k], &c, ifb, 200, 3);
			ns[1][k][r] = ab_mix_ns(&none[k], &c, ifb, 200, 3);
		}
		printf("ab round %d:", r + 1);
		for (int k = 0; k < nobj; k++)
			printf("  [%d] %.1f / %.1f", k, ns[0][k][r], ns[1][k][r]);
		printf("  (ns/packet: snap 512 / no record)\n");
	}
	for (int k = 0; k < nobj; k++) {
		double d[2][64];
		for (int m = 0; m < 2; m++)
			for (int r = 0; r < rounds; r++)
				d[m][r] = ns[m][k][r] - ns[m][0][r];
		printf("ab [%d] %s: median %.1f ns (snap 512), %.1f ns (no record); vs [0] median of round deltas %+.1f, %+.1f\n",
		       k, objs[k], median(ns[0][k], rounds), median(ns[1][k], rounds), median(d[0], rounds),
		       median(d[1], rounds));
		ab_close(&rec[k]);
		ab_close(&none[k]);
	}
	veth_cleanup();
	tcap_free(&c);
	return 0;
}

#endif
