#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/join/join_files.h"
#include "src/join/rec_json.h"

/* a record line is ~2 KB; anything this long is not one */
#define LINE_MAX_BYTES (1u << 20)
#define BAD_SHOWN 20

static FILE *open_in(const char *path)
{
	return strcmp(path, "-") ? fopen(path, "r") : stdin;
}

int join_file_vantage(const char *path)
{
	FILE *f = open_in(path);
	char *line = NULL, err[160];
	size_t cap = 0;
	ssize_t n;
	int v = 0;
	struct nfsrdma_record *r = malloc(sizeof(*r));

	if (!f || !r) {
		int e = f ? ENOMEM : errno;
		if (f && f != stdin)
			fclose(f);
		free(r);
		return -e;
	}
	while (!v && (n = getline(&line, &cap, f)) >= 0)
		if ((size_t)n < LINE_MAX_BYTES && rec_json_parse(line, (size_t)n, r, err, sizeof(err)) == 0)
			v = (int)rec_vantages(r);
	free(line);
	free(r);
	if (f != stdin)
		fclose(f);
	return v;
}

int join_read_file(struct join *j, const char *path, unsigned host, struct join_file_stats *st)
{
	FILE *f = open_in(path);
	char *line = NULL, err[200];
	size_t cap = 0;
	ssize_t n;
	struct nfsrdma_record *r = malloc(sizeof(*r));

	if (!f || !r) {
		int e = f ? ENOMEM : errno;
		if (f && f != stdin)
			fclose(f);
		free(r);
		return -e;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		st->lines++;
		if (n == 0 || (n == 1 && line[0] == '\n'))
			continue;
		int rc = (size_t)n >= LINE_MAX_BYTES ? -E2BIG : rec_json_parse(line, (size_t)n, r, err, sizeof(err));
		if (rc == 1) {
			/* a host's clock line goes to the join; other non-records are skipped */
			rc = join_clock_line(j, host, line, (size_t)n, err, sizeof(err));
			if (rc >= 0) {
				st->clock_lines += rc == 0;
				st->skipped += rc == 1;
				continue;
			}
		} else if (rc == 0 && (rc = join_add(j, r, host)) < 0) {
			snprintf(err, sizeof(err), "a record of no single vantage (source %u)", r->source);
		}
		if (rc < 0) {
			/* each bad line named, up to a point: a file of junk
			 * is one screen of errors and a count, not a flood */
			if (++st->bad <= BAD_SHOWN)
				log_error("%s:%llu: %s", path, (unsigned long long)st->lines,
					  rc == -E2BIG ? "a line of 1 MiB or more: not a record" : err);
			else if (st->bad == BAD_SHOWN + 1)
				log_error("%s:%llu: more bad lines: counted, not shown", path,
					  (unsigned long long)st->lines);
			continue;
		}
		st->records++;
	}
	int e = ferror(f) ? EIO : 0;
	free(line);
	free(r);
	if (f != stdin)
		fclose(f);
	return -e;
}
