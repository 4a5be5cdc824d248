/* Config file reader (see daemon_conf.h).  Values are strdup'ed and kept
 * for the life of the process, as option arguments are. */
#include "dissect/grow.h"
#include "src/daemon/daemon_conf.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "src/base/log.h"

#define LINE_MAX_CONF 1024
#define PATH_MAX_CONF 4096

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* The handler logs why a value is bad; the context makes that one line
 * name the file and line.  A handler that fails without saying why still
 * gets a line. */
static int handle_at(const struct opt_spec *spec, const char *where, int key, const char *val)
{
	unsigned long errs = log_error_count();

	log_set_context(where);
	int rc = spec->handle(key, val, spec->ctx);
	log_set_context(NULL);
	if (rc < 0 && log_error_count() == errs)
		log_error("%s: bad value '%s'", where, val ? val : "");
	return rc;
}

/* Accepted values live as long as the process (the handler keeps the
 * pointers); they are freed at exit, so a run that stops early on a bad
 * line or option does not look like a leak to the sanitizers. */
static char **kept;
static size_t nkept, capkept;

void conf_release(void)
{
	for (size_t i = 0; i < nkept; i++)
		free(kept[i]);
	free(kept);
	kept = NULL;
	nkept = capkept = 0;
}

static void keep(char *v)
{
	if (nkept == capkept) {
		bool first = !kept;
		if (ARR_RESERVE(kept, capkept, nkept + 1, 16) < 0)
			return;   /* not freed at exit: harmless */
		if (first)
			atexit(conf_release);
	}
	kept[nkept++] = v;
}

int conf_load(const char *path, const struct opt_spec *spec)
{
	FILE *f = fopen(path, "r");
	char line[LINE_MAX_CONF + 2];
	int bad = 0;
	unsigned lineno = 0;

	if (!f) {
		int e = errno;
		log_error("%s: %s", path, strerror(e));
		return -e;
	}
	/* a directory opens and reads as no lines: every setting silently
	 * the default (a unit's --config pointing at /etc/nfsrdma/) */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		log_error("%s: is a directory; --config names a file of settings (nfsrdmad.conf(5))", path);
		fclose(f);
		return -EINVAL;
	}
	char where[PATH_MAX_CONF + 16];
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		size_t len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			log_error("%s:%u: line longer than %d bytes", path, lineno, LINE_MAX_CONF);
			bad++;
			continue;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *s = trim(line);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		char *name = s, *val = NULL;
		if (eq) {
			*eq = 0;
			val = trim(eq + 1);
		} else {
			/* "name value" or a bare flag name */
			char *sp = s + strcspn(s, " \t");
			if (*sp) {
				*sp = 0;
				val = trim(sp + 1);
			}
		}
		name = trim(name);
		const struct opt *o = spec->opts;
		while (o->name && strcmp(o->name, name))
			o++;
		if (!o->name || !strcmp(name, "config")) {
			log_error("%s:%u: unknown setting '%s'", path, lineno, name);
			bad++;
			continue;
		}
		int key = o->shortc ? o->shortc : o->key;
		if (!o->arg) {
			bool on = !val || !*val || !strcasecmp(val, "yes") || !strcasecmp(val, "true") ||
				  !strcmp(val, "1") || !strcasecmp(val, "on");
			bool off = val && (!strcasecmp(val, "no") || !strcasecmp(val, "false") ||
					   !strcmp(val, "0") || !strcasecmp(val, "off"));
			if (!on && !off) {
				log_error("%s:%u: %s takes yes or no", path, lineno, name);
				bad++;
			} else if (on && handle_at(spec, where, key, NULL) < 0) {
				bad++;
			}
			continue;
		}
		if (!val || !*val) {
			log_error("%s:%u: %s needs a value", path, lineno, name);
			bad++;
			continue;
		}
		char *v = strdup(val);
		if (!v) {
			log_error("%s:%u: out of memory", path, lineno);
			bad++;
		} else if (handle_at(spec, where, key, v) < 0) {
			free(v);
			bad++;
		} else {
			keep(v);
		}
	}
	fclose(f);
	return bad;
}
