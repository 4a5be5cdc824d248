/* Command-line options from one table: the table drives getopt_long and
 * generates --help, so the two never disagree. */
#ifndef NFSRDMA_OPT_H
#define NFSRDMA_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option's value is.  A typed option (not OPT_CUSTOM) is parsed
 * and stored by opt_store into the field its entry names, its range
 * checked, with the same one-line errors as opt_u64 / opt_size /
 * opt_double; a handler keeps only what needs judgement. */
enum opt_type {
	OPT_CUSTOM = 0,  /* the handler parses it */
	OPT_FLAG,        /* no argument: the field (bool or an integer) set to 1 */
	OPT_STR,         /* the argument itself (const char *; argv outlives the run) */
	OPT_UINT,        /* a number (decimal, 0x hex, 0 octal) in [min, max] */
	OPT_SIZE,        /* bytes: N, Nk, NM, NG; at most max when max > 0 */
	OPT_DOUBLE,      /* a real number in [min, max] */
};

struct opt {
	const char *name;   /* long name, without "--" */
	int         shortc; /* short letter, or 0 */
	const char *arg;    /* argument placeholder ("FILE"), NULL for a flag */
	const char *help;   /* one line */
	int         key;    /* passed to the handler; use shortc or >= 256 */
	/* typed options: the field at off bytes into the handler's ctx,
	 * width bytes wide (OPT_AT), and its range */
	enum opt_type type;
	size_t      off;
	size_t      width;
	double      min, max;
};
/* an entry the handler parses: { "name", 'n', "ARG", "help", KEY, OPT_UNTYPED } */
#define OPT_UNTYPED OPT_CUSTOM, 0, 0, 0, 0
#define OPT_END { NULL, 0, NULL, NULL, 0, OPT_UNTYPED }
/* off and width of a member of the handler's ctx type */
#define OPT_AT(type, member) offsetof(type, member), sizeof(((type *)0)->member)

/* An old spelling kept working for one release after a rename: getopt
 * takes it, one warning names the new spelling, and the handler sees the
 * new option's key.  --help lists it on one line, completion offers it
 * not. */
struct opt_alias {
	const char *name;   /* the old long name without "--", or NULL */
	int         shortc; /* the old short letter, or 0 */
	int         key;    /* the option it now spells: its entry's key */
	const char *why;    /* why it went ("-q is --quiet in nfsrdma-dissect"), or NULL */
};
#define OPT_ALIAS_END { NULL, 0, 0, NULL }

struct opt_spec {
	const char *prog;      /* tool name */
	const char *synopsis;  /* "[OPTIONS] FILE..." */
	const char *summary;   /* one sentence */
	const struct opt *opts;
	const struct opt_alias *aliases;   /* NULL or ended by OPT_ALIAS_END */
	/* Returns 0 or a negative errno (after logging why). */
	int (*handle)(int key, const char *arg, void *ctx);
	void *ctx;
};

/* Parses argv; --help and --version are built in (print, exit 0, or 1
 * when stdout could not take them: outfile_exit_printed).  Returns
 * the index of the first operand, or a negative errno on bad usage (the
 * reason is already logged). */
int opt_parse(const struct opt_spec *spec, int argc, char **argv);

/* key's entry in a table (NULL: none). */
const struct opt *opt_find(const struct opt *opts, int key);
/* Parses arg by o's type and stores it into ctx; 0, or a negative errno
 * after logging "--name: why".  -ENOTSUP for an OPT_CUSTOM entry. */
int opt_store(const struct opt *o, const char *arg, void *ctx);

/* Strict number parsing: whole string, range checked, suffixes k/M/G for
 * sizes.  Return 0 or -EINVAL/-ERANGE after logging "--name: why". */
int opt_u64(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
int opt_size(const char *name, const char *arg, uint64_t *out);
int opt_double(const char *name, const char *arg, double min, double max, double *out);

#endif
