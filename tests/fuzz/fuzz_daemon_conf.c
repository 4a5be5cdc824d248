/* libFuzzer harness for the nfsrdmad configuration file reader
 * (src/daemon/daemon_conf.c) with the daemon's own option table and handler: a
 * config file may come from anywhere the admin points -c at.
 *
 * Input: the file's bytes.  They are written to a memfd and read through
 * /proc/self/fd/N, so conf_load's fopen/fgets path is the real one.
 *
 * The table and handler are static in cli/nfsrdmad.c; the file is included
 * here with its main renamed so the harness checks the daemon's real
 * settings, not a copy.  conf_load hands each value to the handler, which
 * keeps it for the life of the process (conf_load frees them at exit): the
 * harness releases them with conf_release after each load.
 *
 * Invariants (trap): the return value is between 0 and the number of
 * lines; every bad line logged an error; at most DAEMON_MAX_SOURCES
 * sources; every accepted value is NUL-terminated inside the input. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int nfsrdmad_main(int argc, char **argv);
#define main nfsrdmad_main
#include "cli/nfsrdmad.c"
#undef main

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char **kept;
static size_t nkept, capkept;
static size_t in_size;

static int handle_and_keep(int key, const char *arg, void *ctx)
{
	int rc = handle(key, arg, ctx);

	if (arg && strlen(arg) > in_size)
		__builtin_trap();   /* a value longer than the file */
	if (rc == 0 && arg) {
		if (nkept == capkept) {
			size_t nc = capkept ? capkept * 2 : 64;
			char **k = realloc(kept, nc * sizeof(*k));
			if (!k)
				abort();
			kept = k;
			capkept = nc;
		}
		kept[nkept++] = (char *)(uintptr_t)arg;
	}
	return rc;
}

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init("fuzz_daemon_conf", LOG_ERROR);
	/* Every bad line logs one error: that is checked through
	 * log_error_count, and the text would only slow the fuzzer down.
	 * libFuzzer and the sanitizers keep writing to the real stderr (fd 2
	 * and the FILE libFuzzer took at start-up). */
	if (!getenv("FUZZ_VERBOSE")) {
		FILE *null = fopen("/dev/null", "w");
		if (null)
			stderr = null;
	}
	memfd = memfd_create("nfsrdmad.conf", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cli c = { 0 };
	struct opt_spec spec = { .prog = "nfsrdmad", .opts = opts, .handle = handle_and_keep, .ctx = &c };
	char path[64];
	size_t lines = 1;

	if (ftruncate(memfd, 0) < 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	in_size = size;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	unsigned long errs = log_error_count();
	c.in_config = true;
	int bad = conf_load(path, &spec);
	if (bad < 0 || (size_t)bad > lines)
		__builtin_trap();
	if (log_error_count() - errs < (unsigned long)bad)
		__builtin_trap();   /* every bad line is reported */
	if (c.cfg.nsources > DAEMON_MAX_SOURCES)
		__builtin_trap();
	nkept = 0;
	conf_release();   /* the values the handler accepted */
	return 0;
}
