/* One logging module for every tool: levels, a program name prefix, and the
 * one-line "where: what" error format used for hostile input. */
#ifndef NFSRDMA_LOG_H
#define NFSRDMA_LOG_H

#include <stdarg.h>

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Count of LOG_ERROR/LOG_WARN lines emitted, so mains can set exit status. */
unsigned long log_error_count(void);

/* Where the input being handled comes from ("nfsrdmad.conf:3"), put before
 * every message until cleared with NULL, so a setting's error is one line
 * that names its file and line. */
void log_set_context(const char *where);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) do { if (log_get_level() >= LOG_DEBUG) log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
