#include "src/base/log.h"

#include <stdio.h>
#include <string.h>

static const char *log_prog = "nfsrdma";
static enum log_level log_level_cur = LOG_WARN;
static unsigned long log_errors, log_warns;
static const char *log_where;

void log_init(const char *progname, enum log_level level)
{
	const char *slash = progname ? strrchr(progname, '/') : NULL;

	if (progname)
		log_prog = slash ? slash + 1 : progname;
	log_level_cur = level;
}

void log_set_level(enum log_level level) { log_level_cur = level; }
enum log_level log_get_level(void) { return log_level_cur; }
void log_set_context(const char *where) { log_where = where; }
unsigned long log_error_count(void) { return log_errors; }
static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	if (level == LOG_ERROR)
		log_errors++;
	else if (level == LOG_WARN)
		log_warns++;
	if (level > log_level_cur)
		return;
	/* One line per message, written in one call so concurrent tools'
	 * stderr lines do not interleave mid-line. */
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s: %s: %s%s", log_prog, names[level], log_where ? log_where : "",
			 log_where ? ": " : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	size_t len = (m < 0) ? (size_t)n : (size_t)n + (size_t)m;
	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len++] = '\n';
	fwrite(buf, 1, len, stderr);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
