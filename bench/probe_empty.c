/* bench/probe_empty: attach bench/probe_empty.bpf.o (an empty program) to
 * each tracepoint named, one program per tracepoint so that the kernel's
 * run-time accounting keeps them apart; print "ID SYSTEM:EVENT" per program
 * attached, touch the --ready file, hold them until SIGINT / SIGTERM.
 * Tracepoints this kernel lacks are named on stderr and skipped.
 *   probe_empty OBJ --ready FILE SYSTEM:EVENT... */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	const char *ready = NULL;
	int n = 0;

	if (argc < 4 || strcmp(argv[2], "--ready")) {
		fprintf(stderr, "usage: probe_empty OBJ --ready FILE SYSTEM:EVENT...\n");
		return 2;
	}
	ready = argv[3];
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	for (int i = 4; i < argc; i++) {
		char sys[64], ev[128];
		const char *colon = strchr(argv[i], ':');
		struct bpf_object *o;
		struct bpf_program *p;
		struct bpf_link *l;
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (!colon || colon - argv[i] >= (long)sizeof(sys) || strlen(colon + 1) >= sizeof(ev)) {
			fprintf(stderr, "probe_empty: bad tracepoint '%s'\n", argv[i]);
			return 2;
		}
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - argv[i]), argv[i]);
		snprintf(ev, sizeof(ev), "%s", colon + 1);
		o = bpf_object__open_file(argv[1], NULL);
		if (!o || bpf_object__load(o)) {
			fprintf(stderr, "probe_empty: cannot load %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		p = bpf_object__find_program_by_name(o, "probe_empty");
		l = p ? bpf_program__attach_tracepoint(p, sys, ev) : NULL;
		if (!l) {
			/* a tracepoint this kernel lacks: the probes skip it too */
			fprintf(stderr, "probe_empty: %s: not attached (%s)\n", argv[i], strerror(errno));
			bpf_object__close(o);
			continue;
		}
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
			fprintf(stderr, "probe_empty: program info: %s\n", strerror(errno));
			return 1;
		}
		printf("%u %s\n", info.id, argv[i]);
		n++;
	}
	fflush(stdout);
	FILE *f = fopen(ready, "w");
	if (f)
		fclose(f);
	fprintf(stderr, "probe_empty: %d programs attached\n", n);
	while (!stop)
		pause();
	return 0;
}
