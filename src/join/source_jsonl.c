/* jsonl:FILE — records back from JSON Lines (nfsrdmad --json,
 * nfsrdma-dissect --json, the probes' files) as a record source, so a
 * daemon can serve or forward what another run wrote.  Lines that are not
 * records (summaries, reports) are skipped; a bad line is named once
 * (file:line: why), counted in errors, and the file goes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/source.h"
#include "src/base/log.h"
#include "src/join/rec_json.h"
#include "src/join/source_jsonl.h"

#define JSONL_BATCH     256          /* records per poll: the daemon's loop stays responsive */
#define JSONL_LINE_MAX  (1u << 20)   /* a record line is ~2 KB; anything this long is not one */
#define JSONL_BAD_SHOWN 20

struct source_jsonl {
	struct source base;
	FILE *f;
	char *path, *line;
	size_t cap;
	unsigned long long lineno;
	source_record_fn cb;
	void *ctx;
	struct source_stats st;
	struct nfsrdma_record rec;
};

static int jsonl_open(struct source **out, const char *arg, const struct source_opts *o, source_record_fn cb,
		      void *ctx, char *err, size_t errlen)
{
	struct source_jsonl *s;

	(void)o;
	if (!*arg) {
		snprintf(err, errlen, "jsonl: needs a file (jsonl:FILE)");
		return -EINVAL;
	}
	if (!(s = calloc(1, sizeof(*s))) || !(s->path = strdup(arg))) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!(s->f = strcmp(arg, "-") ? fopen(arg, "r") : stdin)) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", arg, strerror(e));
		free(s->path);
		free(s);
		return -e;
	}
	s->base.type = &source_type_jsonl;
	s->cb = cb;
	s->ctx = ctx;
	*out = &s->base;
	return 0;
}

static int jsonl_poll(struct source *b, int timeout_ms)
{
	struct source_jsonl *s = (struct source_jsonl *)b;
	char err[200];
	ssize_t n;
	int got = 0;

	(void)timeout_ms;
	while (got < JSONL_BATCH && (n = getline(&s->line, &s->cap, s->f)) >= 0) {
		s->lineno++;
		s->st.events++;
		if (n == 0 || (n == 1 && s->line[0] == '\n'))
			continue;
		int rc = (size_t)n >= JSONL_LINE_MAX ? -E2BIG
						     : rec_json_parse(s->line, (size_t)n, &s->rec, err, sizeof(err));
		if (rc == 1)
			continue;
		if (rc < 0) {
			if (++s->st.errors <= JSONL_BAD_SHOWN)
				log_error("%s:%llu: %s", s->path, s->lineno,
					  rc == -E2BIG ? "a line of 1 MiB or more: not a record" : err);
			continue;
		}
		s->st.records++;
		s->cb(&s->rec, s->ctx);
		got++;
	}
	if (got == 0 && (feof(s->f) || ferror(s->f)))
		return ferror(s->f) ? -EIO : -ENODATA;
	return got;
}

static void jsonl_stats(const struct source *b, struct source_stats *st)
{
	*st = ((const struct source_jsonl *)b)->st;
}

static void jsonl_close(struct source *b)
{
	struct source_jsonl *s = (struct source_jsonl *)b;

	if (s->f && s->f != stdin)
		fclose(s->f);
	free(s->line);
	free(s->path);
	free(s);
}

const struct source_type source_type_jsonl = {
	.prefix = "jsonl",
	.help = "jsonl:FILE  records from JSON Lines (nfsrdmad/nfsrdma-dissect --json, probe files)",
	.open = jsonl_open,
	.fd = NULL,
	.poll = jsonl_poll,
	.stats = jsonl_stats,
	.close = jsonl_close,
};
