#include "src/base/opt.h"
#include "src/base/log.h"
#include "src/base/outfile.h"
#include "src/base/version.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_KEY_HELP = 0x10000, OPT_KEY_VERSION, OPT_KEY_COMPLETION, OPT_KEY_ALIAS };

static size_t opt_count(const struct opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

/* -V is --version in every tool whose table does not give the letter
 * another meaning (nfsrdma-dissect: the decode tree, as tshark's -V). */
static int version_short(const struct opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (opts[i].shortc == 'V')
			return 0;
	return 'V';
}

static void opt_usage(const struct opt_spec *spec, FILE *out)
{
	size_t n = opt_count(spec->opts);

	fprintf(out, "Usage: %s %s\n", spec->prog, spec->synopsis);
	if (spec->summary)
		fprintf(out, "%s\n", spec->summary);
	fprintf(out, "\nOptions:\n");
	for (size_t i = 0; i <= n + 2; i++) {
		const struct opt *o = i < n ? &spec->opts[i] : NULL;
		static const struct opt builtin[] = {
			{ "help", 'h', NULL, "show this help and exit", 0, OPT_UNTYPED },
			{ "version", 0, NULL, "show the version and exit", 0, OPT_UNTYPED },
			{ "completion", 0, "bash", "print this tool's bash completion (from this table) and exit", 0, OPT_UNTYPED },
		};
		struct opt b;
		if (!o) {
			b = builtin[i - n];
			if (i == n + 1)
				b.shortc = version_short(spec->opts);
			o = &b;
		}
		char left[64];
		int len = snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
				   o->shortc ? "-" : "  ", o->shortc ? o->shortc : ' ',
				   o->shortc ? ", " : "  ", o->name,
				   o->arg ? " " : "", o->arg ? o->arg : "");
		/* two spaces at least between an option and its help: readers split there */
		if (len >= 27)
			fprintf(out, "  %s\n%30s%s\n", left, "", o->help);
		else
			fprintf(out, "  %-28s%s\n", left, o->help);
	}
	for (size_t i = 0; spec->aliases && (spec->aliases[i].name || spec->aliases[i].shortc); i++) {
		const struct opt_alias *a = &spec->aliases[i];
		const struct opt *o = opt_find(spec->opts, a->key);
		if (!i)
			fprintf(out, "\nRenamed (the old spelling works, with a warning, until the next release):");
		if (a->shortc)
			fprintf(out, "%s -%c is --%s", i ? "," : "", a->shortc, o ? o->name : "?");
		else
			fprintf(out, "%s --%s is --%s", i ? "," : "", a->name, o ? o->name : "?");
	}
	if (spec->aliases && (spec->aliases[0].name || spec->aliases[0].shortc))
		fputc('\n', out);
}

static size_t alias_count(const struct opt_alias *a)
{
	size_t n = 0;

	while (a && (a[n].name || a[n].shortc))
		n++;
	return n;
}

/* The alias getopt just matched (li: its long index, -1 for a short
 * letter), warned about; NULL when c is no alias. */
static const struct opt_alias *alias_hit(const struct opt_spec *spec, size_t nopts, int c, int li)
{
	const struct opt_alias *a = NULL;

	/* the long aliases follow the builtins in getopt's table, those with a name */
	for (size_t i = 0, k = nopts + 3; !a && li >= 0 && i < alias_count(spec->aliases); i++)
		if (spec->aliases[i].name && k++ == (size_t)li)
			a = &spec->aliases[i];
	for (size_t i = 0; !a && li < 0 && i < alias_count(spec->aliases); i++)
		if (spec->aliases[i].shortc && spec->aliases[i].shortc == c)
			a = &spec->aliases[i];
	if (!a)
		return NULL;
	const struct opt *o = opt_find(spec->opts, a->key);
	char old[64];
	if (li < 0)
		snprintf(old, sizeof(old), "-%c", a->shortc);
	else
		snprintf(old, sizeof(old), "--%s", a->name);
	log_warn("%s is renamed --%s; the old spelling goes in the next release%s%s",
		 old, o ? o->name : "?", a->why ? ": " : "", a->why ? a->why : "");
	return a;
}

/* What a placeholder completes to: files (FILE, PATH, TRACE, SPEC's
 * FILE forms), directories (DIR), the words of a choice ("rdma|tcp"), or
 * nothing (a number, a host). */
static void complete_arg(FILE *out, const char *arg)
{
	if (strstr(arg, "DIR") && !strstr(arg, "FILE")) {
		fputs("COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", out);
	} else if (strstr(arg, "FILE") || strstr(arg, "PATH") || strstr(arg, "TRACE") || strstr(arg, "RECORDS")) {
		fputs("COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", out);
	} else if (strchr(arg, '|') && !strpbrk(arg, " [")) {
		fputs("COMPREPLY=($(compgen -W \"", out);
		for (const char *p = arg; *p; p++)
			fputc(*p == '|' ? ' ' : *p, out);
		fputs("\" -- \"$cur\")); return ;;\n", out);
	} else {
		fputs("return ;;\n", out);
	}
}

/* --completion bash: a completion function for the tool, from its table
 * (options, their short forms, what each argument completes to). */
static void opt_completion(const struct opt_spec *spec, FILE *out)
{
	char fn[64];
	size_t k = 0;

	for (const char *p = spec->prog; *p && k + 1 < sizeof(fn); p++)
		fn[k++] = (char)(*p == '-' ? '_' : *p);
	fn[k] = 0;
	fprintf(out, "# bash completion for %s, made by `%s --completion bash` from its option table\n",
		spec->prog, spec->prog);
	fprintf(out, "_%s() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\tcase $prev in\n", fn);
	for (size_t i = 0; spec->opts && spec->opts[i].name; i++) {
		const struct opt *o = &spec->opts[i];
		if (!o->arg)
			continue;
		fprintf(out, "\t--%s", o->name);
		if (o->shortc)
			fprintf(out, "|-%c", o->shortc);
		fputs(") ", out);
		complete_arg(out, o->arg);
	}
	fputs("\t--completion) COMPREPLY=($(compgen -W bash -- \"$cur\")); return ;;\n", out);
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"", out);
	for (size_t i = 0; spec->opts && spec->opts[i].name; i++) {
		fprintf(out, "--%s ", spec->opts[i].name);
		if (spec->opts[i].shortc)
			fprintf(out, "-%c ", spec->opts[i].shortc);
	}
	fprintf(out, "--help -h --version%s --completion\" -- \"$cur\"))\n\t\treturn\n\tfi\n",
		version_short(spec->opts) ? " -V" : "");
	fprintf(out, "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -F _%s %s\n", fn, spec->prog);
}

int opt_parse(const struct opt_spec *spec, int argc, char **argv)
{
	size_t n = opt_count(spec->opts), na = alias_count(spec->aliases);
	struct option *lopts = calloc(n + na + 4, sizeof(*lopts));
	char *sopts = calloc(2 * (n + na) + 4, 1);
	int ret = -ENOMEM;

	if (!lopts || !sopts)
		goto out;
	size_t s = 0;
	sopts[s++] = ':'; /* report missing arguments distinctly */
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &spec->opts[i];
		lopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					    NULL, o->shortc ? o->shortc : o->key };
		if (o->shortc) {
			sopts[s++] = (char)o->shortc;
			if (o->arg)
				sopts[s++] = ':';
		}
	}
	sopts[s++] = 'h';
	const int vshort = version_short(spec->opts);
	if (vshort)
		sopts[s++] = (char)vshort;
	lopts[n] = (struct option){ "help", no_argument, NULL, OPT_KEY_HELP };
	lopts[n + 1] = (struct option){ "version", no_argument, NULL, OPT_KEY_VERSION };
	lopts[n + 2] = (struct option){ "completion", required_argument, NULL, OPT_KEY_COMPLETION };
	for (size_t i = 0, k = n + 3; i < na; i++) {
		const struct opt_alias *a = &spec->aliases[i];
		const struct opt *o = opt_find(spec->opts, a->key);
		if (!o)
			continue;
		if (a->name)
			lopts[k++] = (struct option){ a->name, o->arg ? required_argument : no_argument,
						      NULL, OPT_KEY_ALIAS };
		if (a->shortc) {
			sopts[s++] = (char)a->shortc;
			if (o->arg)
				sopts[s++] = ':';
		}
	}

	optind = 0;   /* 0, not 1: glibc then resets its state too (a second parse in one process) */
	opterr = 0;
	for (;;) {
		int li = -1;
		int c = getopt_long(argc, argv, sopts, lopts, &li);
		if (c == -1)
			break;
		/* both exit: the tables are freed first, so nothing is left
		 * for the leak checker (a pointer kept only in a register is
		 * no root for it) */
		if (c == 'h' || c == OPT_KEY_HELP) {
			free(lopts);
			free(sopts);
			opt_usage(spec, stdout);
			outfile_exit_printed();
		}
		if (c == OPT_KEY_VERSION || (vshort && c == vshort)) {
			free(lopts);
			free(sopts);
			printf("%s %s\n", spec->prog, NFSRDMA_VERSION);
			outfile_exit_printed();
		}
		if (c == OPT_KEY_COMPLETION) {
			if (strcmp(optarg, "bash")) {
				log_error("--completion: bash is the shell it knows, not \"%s\"", optarg);
				ret = -EINVAL;
				goto out;
			}
			free(lopts);
			free(sopts);
			opt_completion(spec, stdout);
			outfile_exit_printed();
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1] ? argv[optind - 1] : "?";
			if (c == ':')
				log_error("option %s needs an argument (see --help)", what);
			else
				log_error("unknown option %s (see --help)", what);
			ret = -EINVAL;
			goto out;
		}
		/* a renamed spelling: what getopt gives for the new one */
		const struct opt_alias *a = alias_hit(spec, n, c, li);
		const struct opt *to = a ? opt_find(spec->opts, a->key) : NULL;
		if (to)
			c = to->shortc ? to->shortc : to->key;
		ret = spec->handle(c, optarg, spec->ctx);
		if (ret < 0)
			goto out;
	}
	ret = optind;
out:
	free(lopts);
	free(sopts);
	return ret;
}

const struct opt *opt_find(const struct opt *opts, int key)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (opts[i].key == key || (opts[i].shortc && opts[i].shortc == key))
			return &opts[i];
	return NULL;
}

/* v into an unsigned field of width bytes (the range check kept it in) */
static int store_uint(void *field, size_t width, uint64_t v)
{
	switch (width) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(field, &x, 1); return 0; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(field, &x, 2); return 0; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(field, &x, 4); return 0; }
	case 8: memcpy(field, &v, 8); return 0;
	default: return -EINVAL;
	}
}

int opt_store(const struct opt *o, const char *arg, void *ctx)
{
	void *field = (char *)ctx + o->off;
	uint64_t v;
	double x;
	int ret;

	switch (o->type) {
	case OPT_FLAG:
		return store_uint(field, o->width, 1);
	case OPT_STR:
		if (o->width != sizeof(arg))
			return -EINVAL;
		memcpy(field, &arg, sizeof(arg));
		return 0;
	case OPT_UINT:
		if ((ret = opt_u64(o->name, arg, (uint64_t)o->min, (uint64_t)o->max, &v)) < 0)
			return ret;
		return store_uint(field, o->width, v);
	case OPT_SIZE:
		if ((ret = opt_size(o->name, arg, &v)) < 0)
			return ret;
		if (o->max > 0 && (double)v > o->max) {
			log_error("--%s: %s is more than %.0f bytes", o->name, arg, o->max);
			return -ERANGE;
		}
		return store_uint(field, o->width, v);
	case OPT_DOUBLE:
		if ((ret = opt_double(o->name, arg, o->min, o->max, &x)) < 0)
			return ret;
		if (o->width != sizeof(x))
			return -EINVAL;
		memcpy(field, &x, sizeof(x));
		return 0;
	case OPT_CUSTOM:
	default:
		return -ENOTSUP;
	}
}

int opt_u64(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	if (!arg || !*arg || *arg == '-') {
		log_error("--%s: '%s' is not a non-negative number", name, arg ? arg : "");
		return -EINVAL;
	}
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 0);
	if (errno || *end) {
		log_error("--%s: '%s' is not a number", name, arg);
		return -EINVAL;
	}
	if (v < min || v > max) {
		log_error("--%s: %llu is out of range [%llu, %llu]", name, v,
			  (unsigned long long)min, (unsigned long long)max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int opt_size(const char *name, const char *arg, uint64_t *out)
{
	char *end;

	if (!arg || !*arg || *arg == '-') {
		log_error("--%s: '%s' is not a size", name, arg ? arg : "");
		return -EINVAL;
	}
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (errno || *end || end == arg || (shift && v > (~0ULL >> shift))) {
		log_error("--%s: '%s' is not a size (N, Nk, NM or NG)", name, arg);
		return -EINVAL;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

int opt_double(const char *name, const char *arg, double min, double max, double *out)
{
	char *end;

	if (!arg || !*arg) {
		log_error("--%s: empty value", name);
		return -EINVAL;
	}
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || *end || isnan(v)) {
		log_error("--%s: '%s' is not a number", name, arg);
		return -EINVAL;
	}
	if (v < min || v > max) {
		log_error("--%s: %g is out of range [%g, %g]", name, v, min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}
