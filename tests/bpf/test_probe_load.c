/* Host-side checks of the kernel probes that need no guest:
 *  1. the tracefs format parser against every format file the lab saved
 *     (tests/captures/NAME.truth/formats), compared with an independent
 *     sscanf parse of the same lines;
 *  2. the loader on a tracefs tree made of those files: events the lab did
 *     not save, and one whose field was renamed, are reported unavailable
 *     by name; both BPF objects pass the host kernel's verifier (the host
 *     has no sunrpc, so the first attach fails, after the load).
 * Arguments: capture paths (X.pcap -> X.truth/formats).  Needs root. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "src/base/log.h"
#include "src/probe/probe_format.h"
#include "src/probe/probe_load.h"
#include "src/probe/probe_record.h"

/* Independent oracle: every "field:TYPE NAME;\toffset:N;\tsize:N;" line. */
static void check_file(const char *root, const char *sys, const char *ev)
{
	static char text[TP_FORMAT_MAX];
	char path[3 * PATH_MAX], line[512];
	int n = tp_format_load(root, sys, ev, text, sizeof(text));
	FILE *f;

	CHECK(n > 0, "load %s/%s: %d", sys, ev, n);
	if (n <= 0)
		return;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, ev);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char decl[256], *name, *br;
		unsigned off, size;
		struct tp_field tf;

		if (sscanf(line, " field:%255[^;]; offset:%u; size:%u;", decl, &off, &size) != 3)
			continue;
		name = strrchr(decl, ' ');
		name = name ? name + 1 : decl;
		if ((br = strchr(name, '[')))
			*br = 0;
		CHECK(tp_format_field(text, name, &tf) == 0, "%s/%s: field %s not found", sys, ev, name);
		CHECK(tf.off == off && tf.size == size, "%s/%s %s: %u/%u, want %u/%u", sys, ev, name,
		      tf.off, tf.size, off, size);
		CHECK(tf.data_loc == (strstr(decl, "__data_loc") != NULL), "%s/%s %s: data_loc", sys, ev, name);
	}
	fclose(f);
	struct tp_field tf;
	CHECK(tp_format_field(text, "no_such_field", &tf) == -ENOENT, "%s/%s: absent field found", sys, ev);
}

static int formats_dir(const char *pcap, char *out, size_t len)
{
	size_t n = strlen(pcap);

	if (n < 6 || strcmp(pcap + n - 5, ".pcap"))
		return -1;
	snprintf(out, len, "%.*s.truth/formats", (int)(n - 5), pcap);
	struct stat st;
	return stat(out, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* root/events -> the formats directory */
static int make_root(const char *formats, char *root, size_t len)
{
	char ev[PATH_MAX + 16], abs[PATH_MAX];

	snprintf(root, len, "/tmp/test_probe_load.XXXXXX");
	if (!mkdtemp(root) || !realpath(formats, abs))
		return -1;
	snprintf(ev, sizeof(ev), "%s/events", root);
	return symlink(abs, ev);
}

static void noop(const struct probe_event *e, void *ctx) { (void)e; (void)ctx; }

int main(int argc, char **argv)
{
	char formats[PATH_MAX], root[PATH_MAX], err[1024];
	const char *first = NULL;
	unsigned files = 0;

	log_init("test_probe_load", LOG_ERROR);
	for (int i = 1; i < argc; i++) {
		if (formats_dir(argv[i], formats, sizeof(formats)) < 0 || make_root(formats, root, sizeof(root)) < 0)
			continue;
		for (const char *sys = "sunrpc"; sys; sys = strcmp(sys, "sunrpc") ? NULL : "rpcrdma") {
			char d[PATH_MAX + 16];
			DIR *dir;
			struct dirent *de;

			snprintf(d, sizeof(d), "%s/%s", formats, sys);
			if (!(dir = opendir(d)))
				continue;
			while ((de = readdir(dir)))
				if (de->d_name[0] != '.') {
					check_file(root, sys, de->d_name);
					files++;
				}
			closedir(dir);
		}
		char ev[PATH_MAX + 16];
		snprintf(ev, sizeof(ev), "%s/events", root);
		unlink(ev);
		rmdir(root);
		if (!first && strstr(argv[i], "smoke.pcap"))
			first = argv[i];
	}
	CHECK(files >= 12, "only %u format files found in the capture truth dirs", files);

	/* The loader on the smoke capture's formats. */
	if (first && formats_dir(first, formats, sizeof(formats)) == 0) {
		char tree[64], cmd[6 * PATH_MAX];
		struct probe *p = NULL;
		int r;

		/* a copy whose xprtrdma_marshal lost its xid field */
		snprintf(tree, sizeof(tree), "/tmp/test_probe_load.XXXXXX");
		if (mkdtemp(tree)) {
			snprintf(cmd, sizeof(cmd),
				 "mkdir -p '%s/events' && cp -r '%s'/sunrpc '%s'/rpcrdma '%s/events/' && "
				 "sed -i 's/ xid;/ xid_renamed;/' '%s/events/rpcrdma/xprtrdma_marshal/format'",
				 tree, formats, formats, tree, tree);
			CHECK(system(cmd) == 0, "building %s", tree);
			struct probe_config c = { .want = PROBE_WANT_BOTH, .tracefs = tree };
			r = probe_open(&p, &c, noop, NULL, err, sizeof(err));
			/* The host has no sunrpc: after a successful load (verifier)
			 * the first essential attach must be what fails. */
			CHECK(r < 0 && strstr(err, "cannot attach sunrpc:rpc_stats_latency"),
			      "probe_open on the host: %d %s", r, err);
			if (p)
				probe_close(p);
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
			CHECK(system(cmd) == 0, "rm %s", tree);
		}
		/* Only the unavailable list: nothing attaches on the host, so use
		 * an explicit side whose essential event is missing (-ENODEV: the
		 * module may come, nfsrdmad exits 1, not the 2 of a bad spec). */
		struct probe_config c2 = { .want = PROBE_WANT_CLIENT, .want_explicit = true,
					   .tracefs = "/nonexistent", .skip = NULL };
		r = probe_open(&p, &c2, noop, NULL, err, sizeof(err));
		/* one line: the essential event by name, the rest counted (-v
		 * names each; tests/daemon/exit-codes.sh) */
		CHECK(r == -ENODEV && strstr(err, "sunrpc:rpc_stats_latency") &&
		      strstr(err, "10 tracepoints unavailable in all") && !strchr(err, '\n'),
		      "missing tracefs: %d %s", r, err);
	} else {
		CHECK(0, "no smoke.pcap among the arguments");
	}
	/* Each kernel's shapes (tests/probe/formats) through the verifier:
	 * 6.12 loads tp_svc_wc_reply and reads xprt_id, 5.15 parses the
	 * caller from text; the first attach is what fails on this host. */
	static const char *const kernels[] = { "5.15", "6.1", "6.12" };
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		char tree[PATH_MAX];
		struct probe *p = NULL;
		int r;

		snprintf(formats, sizeof(formats), "tests/probe/formats/%s", kernels[k]);
		if (make_root(formats, tree, sizeof(tree)) < 0) {
			CHECK(0, "tracefs tree of %s", kernels[k]);
			continue;
		}
		struct probe_config c = { .want = PROBE_WANT_BOTH, .tracefs = tree };
		r = probe_open(&p, &c, noop, NULL, err, sizeof(err));
		CHECK(r < 0 && strstr(err, "cannot attach sunrpc:rpc_stats_latency"), "probe_open on %s: %d %s",
		      kernels[k], r, err);
		if (p)
			probe_close(p);
		char ev[PATH_MAX + 16];
		snprintf(ev, sizeof(ev), "%s/events", tree);
		unlink(ev);
		rmdir(tree);
	}
	/* Hostile events (no NUL in the names, any numbers): conversion and
	 * the JSON views stay in bounds (run under SANITIZE=1) and the
	 * record keeps its invariants. */
	FILE *null = fopen("/dev/null", "w");
	srand(7);
	for (int i = 0; i < 2000 && null; i++) {
		struct probe_event e;
		struct nfsrdma_record rec;
		unsigned char *b = (unsigned char *)&e;

		for (size_t k = 0; k < sizeof(e); k++)
			b[k] = (unsigned char)rand();
		if (i % 3 == 0)
			memcpy(e.prog, "nfs", 4);
		if (i % 3 == 0)
			memcpy(e.procname, "WRITE", 6);
		probe_to_record(&e, &rec);
		probe_event_json(null, &e);
		CHECK(rec.name[REC_NAME_MAX - 1] == 0 && rec.xid == e.xid, "record %d", i);
		CHECK(rec.source == REC_SRC_CLIENT_PROBE || rec.source == REC_SRC_SERVER_PROBE, "source %d", i);
	}
	if (null)
		fclose(null);
	return check_summary("probe_load");
}
