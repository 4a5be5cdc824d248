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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

bool outfile_same(const char *out, const char *in)
{
	struct stat a, b;

	if (!strcmp(in, "-") || stat(out, &a) < 0 || stat(in, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* An output name may be a symbolic link: what is written, and what a
 * rename may replace, is what it leads to, never the link itself.  A
 * dangling link leads to a name that does not exist yet.  Returns a
 * malloc'd path, or NULL with errno (ELOOP past 40 links). */
static char *follow_links(const char *path)
{
	char *p = strdup(path);

	for (int hops = 0; p && hops < 40; hops++) {
		struct stat st;
		char buf[4096];
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			return p;
		ssize_t n = readlink(p, buf, sizeof(buf) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		buf[n] = 0;
		const char *slash = strrchr(p, '/');
		size_t len = strlen(buf) + (slash ? (size_t)(slash - p) : 0) + 2;
		char *next = malloc(len);
		if (next && (buf[0] == '/' || !slash))
			snprintf(next, len, "%s", buf);
		else if (next)   /* relative to the link's own directory */
			snprintf(next, len, "%.*s/%s", (int)(slash - p), p, buf);
		free(p);
		p = next;
	}
	if (p)
		errno = ELOOP;
	free(p);
	return NULL;
}

enum out_kind {
	OUT_FILE,     /* a regular file, or nothing yet: temporary, then rename */
	OUT_STREAM,   /* a character device or a FIFO: written through in place */
	OUT_SOCKET,   /* a Unix socket: connected to and written through */
	OUT_REFUSED,  /* a directory, a block device: never written */
};

/* What path leads to (stat follows the links, /proc/self/fd/N's too,
 * which readlink cannot: "pipe:[N]"); for OUT_REFUSED, why in why. */
static enum out_kind out_kind(const char *path, const char **why)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return OUT_FILE;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return OUT_STREAM;
	if (S_ISSOCK(st.st_mode))
		return OUT_SOCKET;
	*why = S_ISDIR(st.st_mode) ? "is a directory; name a file"
	     : S_ISBLK(st.st_mode) ? "is a block device; name a file, a character device or a FIFO"
	     : "is neither a file, a character device nor a FIFO";
	return OUT_REFUSED;
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
	const char *why = NULL;
	enum out_kind k = out_kind(out, &why);
	char *dest = k == OUT_FILE ? follow_links(out) : strdup(out);
	if (!dest) {
		int e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "%s %s: %s", what, out, strerror(e));
		return -e;
	}
	int rc = 0;
	switch (k) {
	case OUT_REFUSED:
		snprintf(err, errlen, "%s %s: %s", what, out, why);
		rc = -ENOTSUP;
		break;
	case OUT_STREAM:
		if (access(dest, W_OK) < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s %s: %s", what, out, strerror(-rc));
		}
		break;
	case OUT_SOCKET:
		break;
	case OUT_FILE: {
		/* the temporary is made beside what the name leads to */
		const char *slash = strrchr(dest, '/');
		char dir[4096];
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", slash == dest ? 1 : (int)(slash - dest), dest);
		if (access(dir, W_OK | X_OK) < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s %s: cannot be written in %s: %s", what, out, dir, strerror(-rc));
		}
		break;
	}
	}
	free(dest);
	return rc;
}

/* A FIFO is opened without waiting: one with no reader would hold the
 * run forever at its end, so it fails (ENXIO) and is said plainly. */
static int open_in_place(const char *dest, enum out_kind k)
{
	int fd;

	if (k == OUT_SOCKET) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		if (strlen(dest) >= sizeof(sa.sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(sa.sun_path, dest, strlen(dest));
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		return fd;
	}
	/* no O_CREAT, no O_TRUNC: the node stays what it is; O_NOCTTY: a
	 * terminal named as the output does not become ours */
	if ((fd = open(dest, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);   /* writes wait for the reader */
	return fd;
}

int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
	const char *why = NULL;
	int fd = -1, e;

	memset(o, 0, sizeof(*o));
	if (!(o->path = strdup(path))) {
		e = ENOMEM;
		goto fail;
	}
	/* a device or FIFO is opened by its name (the links followed by
	 * open); a file's links are followed here, to rename onto the end */
	enum out_kind k = out_kind(path, &why);
	if (!(o->dest = k == OUT_FILE ? follow_links(path) : strdup(path))) {
		e = errno ? errno : ENOMEM;
		goto fail;
	}
	if (k == OUT_REFUSED) {
		snprintf(err, errlen, "%s: %s", path, why);
		outfile_abort(o);
		return -ENOTSUP;
	}
	if (k != OUT_FILE) {
		if ((fd = open_in_place(o->dest, k)) < 0) {
			e = errno;
			if (e == ENXIO && k == OUT_STREAM) {
				snprintf(err, errlen, "%s: a FIFO with no reader (start the reader first)", path);
				outfile_abort(o);
				return -e;
			}
			goto fail;
		}
	} else {
		size_t n = strlen(o->dest) + 32;
		if (!(o->tmp = malloc(n))) {
			e = ENOMEM;
			goto fail;
		}
		snprintf(o->tmp, n, "%s.tmp-%ld", o->dest, (long)getpid());
		/* O_EXCL: never write through a name someone else made (a link) */
		if ((fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
			e = errno;
			free(o->tmp);
			o->tmp = NULL;
			goto fail;
		}
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
	int e = 0, rc = 0;

	errno = 0;
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
	/* only a regular file (or a new name) is ever renamed over */
	if (o->tmp && rename(o->tmp, o->dest) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", o->path, strerror(-rc));
		unlink(o->tmp);
	}
	free(o->tmp);
	o->tmp = NULL;
	outfile_abort(o);
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
	free(o->dest);
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
