/* libFuzzer harness for the command-line parser (src/base/opt.c) with
 * nfsrdma-dissect's real option table and handler: arguments come from
 * scripts and users, and the handler validates --op, --addr, --xid,
 * --min-latency, -z and the output-format conflicts.
 *
 * Input: NUL-separated arguments (at most 32), after argv[0].  Inputs that
 * would ask for --help, --version or --fields help are skipped: those print
 * and exit by design.
 *
 * The table and handler are static in cli/nfsrdma-dissect.c; the file is
 * included with its main renamed, as fuzz_daemon_conf does for nfsrdmad.
 *
 * Renamed spellings (struct opt_alias) of the harness's own, on the
 * dissector's options: a short letter the table does not use, long names
 * with and without an argument, so the alias path is fuzzed too.
 *
 * Invariants (trap): the parser returns a negative errno or the index of
 * the first operand, within argv; every accepted --addr filter matches
 * the address it was parsed from when that is a plain IPv4 address. */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

int nfsrdma_dissect_main(int argc, char **argv);
#define main nfsrdma_dissect_main
#include "cli/nfsrdma-dissect.c"
#undef main

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

static const struct opt_alias fuzz_aliases[] = {
	{ NULL, 'x', 'q', "a harness alias" },
	{ "old-write", 0, 'w', NULL },
	{ "old-json", 'j', K_JSON, NULL },
	{ "old-xid", 0, K_XID, NULL },
	OPT_ALIAS_END,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init("fuzz_opt", LOG_ERROR);
	return 0;
}

/* --help / --version / --fields help print and exit(0) by design */
static bool exits(const char *a)
{
	if (strstr(a, "help") || !strncmp(a, "--h", 3) || !strncmp(a, "--v", 3) || !strncmp(a, "--fi", 4))
		return true;
	return a[0] == '-' && a[1] != '-' && strchr(a, 'h');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char prog[] = "nfsrdma-dissect";
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = prog;
	for (size_t i = 0; i < size && argc <= MAX_ARGS; i += strlen(buf + i) + 1) {
		if (exits(buf + i))
			goto out;
		argv[argc++] = buf + i;
	}
	argv[argc] = NULL;

	struct cli c = { 0 };
	struct opt_spec spec = { .prog = "nfsrdma-dissect", .synopsis = "", .summary = "",
				 .opts = opts, .aliases = fuzz_aliases, .handle = handle, .ctx = &c };
	int first = opt_parse(&spec, argc, argv);
	if (first >= 0 && (first < 1 || first > argc))
		__builtin_trap();
	if (first >= 0 && c.addr && strchr(c.addr, '.') && !strchr(c.addr, '/') && !strstr(c.addr, ".qp")) {
		struct rec_endpoint e = { .family = 4 };
		if (inet_pton(AF_INET, c.addr, e.addr) == 1 && !addr_filter_match(&c.addr_f, &e))
			__builtin_trap();
	}
	for (int i = 0; i < SUM_KINDS; i++)   /* every -z kind, transport included */
		summary_free(c.sum[i]);
out:
	free(buf);
	return 0;
}
