/* Output files written beside their destination and renamed into place
 * (see outfile.h for why). */
#include "src/base/outfile.h"
#include "src/base/exit.h"
#include "src/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool outfile_same(const char *out, const char *in)
{
	struct stat a, b;

	if (!strcmp(in, "-") || stat(out, &a) < 0 || stat(in, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int outfile_check(const char *what, const char *out, const char *const *in, size_t n,
		  char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		if (in[i] && outfile_same(out, in[i])) {
			snprintf(err, errlen, "%s %s: is the input %s; refusing to overwrite it", what, out,
				 in[i]);
			return -EEXIST;
		}
	}
	/* where it goes, now: a run of minutes would otherwise end in
	 * "No such file or directory" with nothing written */
	struct stat st;
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s %s: is a directory; name a file", what, out);
		return -EISDIR;
	}
	const char *slash = strrchr(out, '/');
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == out ? 1 : (int)(slash - out), out);
	if (access(dir, W_OK | X_OK) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s %s: cannot be written in %s: %s", what, out, dir, strerror(e));
		return -e;
	}
	return 0;
}

char *outfile_tmpname(const char *path)
{
	size_t n = strlen(path) + 32;
	char *t = malloc(n);

	if (t)
		snprintf(t, n, "%s.tmp-%ld", path, (long)getpid());
	return t;
}

int outfile_rename(const char *tmp, const char *path, char *err, size_t errlen)
{
	if (rename(tmp, path) == 0)
		return 0;
	int e = errno;
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	unlink(tmp);
	return -e;
}

int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
	int fd, e;

	memset(o, 0, sizeof(*o));
	if (!(o->tmp = outfile_tmpname(path)) || !(o->path = strdup(path))) {
		e = ENOMEM;
		goto fail;
	}
	/* O_EXCL: never write through a name someone else made (a link) */
	if ((fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
		e = errno;
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	if (!(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	outfile_abort(o);
	return -e;
}

int outfile_close(struct outfile *o, char *err, size_t errlen)
{
	int e = 0;

	if (o->f && (ferror(o->f) | fflush(o->f)))
		e = errno ? errno : EIO;
	if (o->f && fclose(o->f) != 0 && !e)
		e = errno;
	o->f = NULL;
	if (e) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(e));
		outfile_abort(o);
		return -e;
	}
	int rc = outfile_rename(o->tmp, o->path, err, errlen);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return rc;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

void outfile_stdout_lines(bool force)
{
	struct stat st;

	if (force || isatty(STDOUT_FILENO) ||
	    (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))))
		setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Why earlier writes to stdout failed, when the final flush had nothing
 * left to write and so no errno to give: a pipe whose reader is gone
 * polls POLLERR; anything else is asked with a write of nothing (a full
 * device refuses even that). */
static int stdout_past_error(void)
{
	struct stat st;
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) && poll(&p, 1, 0) == 1 &&
	    (p.revents & POLLERR))
		return EPIPE;
	if (write(STDOUT_FILENO, "", 0) < 0)
		return errno;
	return EIO;
}

int outfile_close_stdout(void)
{
	int e = 0;
	bool failed = ferror(stdout);

	errno = 0;
	if (fflush(stdout) != 0)
		e = errno ? errno : EIO;
	else if (failed)
		e = stdout_past_error();
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e || e == EPIPE)
		return 0;
	log_error("stdout: %s", strerror(e));
	return -e;
}

void outfile_exit_printed(void)
{
	exit(outfile_close_stdout() < 0 ? EXIT_FAILED : EXIT_DONE);
}

void outfile_ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

bool outfile_stdout_done(void)
{
	return ferror(stdout) != 0;
}
