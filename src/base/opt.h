/* Command-line options from one table: the table drives getopt_long and
 * generates --help, so the two never disagree. */
#ifndef NFSRDMA_OPT_H
#define NFSRDMA_OPT_H

#include <stdint.h>
#include <stdio.h>

struct opt {
	const char *name;   /* long name, without "--" */
	int         shortc; /* short letter, or 0 */
	const char *arg;    /* argument placeholder ("FILE"), NULL for a flag */
	const char *help;   /* one line */
	int         key;    /* passed to the handler; use shortc or >= 256 */
};
#define OPT_END { NULL, 0, NULL, NULL, 0 }

struct opt_spec {
	const char *prog;      /* tool name */
	const char *synopsis;  /* "[OPTIONS] FILE..." */
	const char *summary;   /* one sentence */
	const struct opt *opts;
	/* Returns 0 or a negative errno (after logging why). */
	int (*handle)(int key, const char *arg, void *ctx);
	void *ctx;
};

/* Parses argv; --help and --version are built in (print, exit 0, or 1
 * when stdout could not take them: outfile_exit_printed).  Returns
 * the index of the first operand, or a negative errno on bad usage (the
 * reason is already logged). */
int opt_parse(const struct opt_spec *spec, int argc, char **argv);

/* Strict number parsing: whole string, range checked, suffixes k/M/G for
 * sizes.  Return 0 or -EINVAL/-ERANGE after logging "--name: why". */
int opt_u64(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
int opt_size(const char *name, const char *arg, uint64_t *out);
int opt_double(const char *name, const char *arg, double min, double max, double *out);

#endif
