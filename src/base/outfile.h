/* Output files, one rule for every file any tool writes (-w, --plot,
 * --svg, nfsrdmad's exports, an XDP source's capture=):
 *  - a regular file, or a name that does not exist yet, is written under a
 *    temporary name beside it and renamed into place only when complete,
 *    so a reader never sees half a file and a failed run leaves the old one;
 *  - a symbolic link is followed and the rule applies to what it leads to:
 *    the link itself is never replaced;
 *  - a character device or a FIFO is written through in place (never
 *    created, truncated or renamed over: /dev/null stays a device), and
 *    its write errors are the run's (ENOSPC from a full device); a FIFO
 *    with no reader fails at once instead of waiting forever; a Unix
 *    socket is connected to and written through;
 *  - anything else (a directory, a block device) is refused.
 * A destination that is one of the run's inputs (the same file, also
 * through a link) is refused before anything is read. */
#ifndef NFSRDMA_OUTFILE_H
#define NFSRDMA_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	char *path;            /* as named: what messages say */
	char *dest;            /* where the name leads, links followed */
	char *tmp;             /* written here until outfile_close; NULL: in place */
};

/* True when out and in name the same existing file (same device and
 * inode: hard links, symbolic links and other spellings included). */
bool outfile_same(const char *out, const char *in);

/* Refuses, before the run, with one line in err "WHAT OUT: why": an
 * output that is one of the n inputs (-EEXIST; "-" inputs are stdin and
 * never match), one the rule above refuses (a directory, a block device:
 * -ENOTSUP), a file that cannot be made where it is named (a directory
 * that does not exist or is not writable) and a device or FIFO that
 * cannot be written (-errno). */
int outfile_check(const char *what, const char *out, const char *const *in, size_t n,
		  char *err, size_t errlen);

/* Opens path by the rule above.  Returns 0 or a negative errno with the
 * reason in err ("PATH: why"). */
int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen);
/* Flushes and closes; a file is renamed into place, and on any error its
 * temporary is removed and the destination left as it was.  A write error
 * of a device or FIFO ("PATH: No space left on device") is returned as
 * -errno too. */
int outfile_close(struct outfile *o, char *err, size_t errlen);
/* Gives up: removes the temporary file. */
void outfile_abort(struct outfile *o);

/* stdout is flushed at each newline when it is a pipe or a terminal (so
 * `tool | grep` shows records as they happen) or when force is set (-l);
 * other outputs (files) keep full buffering.  Call before any output. */
void outfile_stdout_lines(bool force);

/* The end of every tool's main (coreutils' close_stdout): flushes and
 * closes stdout and reports a write error that stdio kept to itself (a
 * full disk, an I/O error) as one line "stdout: REASON"; returns 0 or
 * -errno.  A closed pipe (EPIPE: `tool | head`) is a reader that had
 * enough, not an error: quiet, 0. */
int outfile_close_stdout(void);

/* Exits after a tool printed what it was asked for and nothing else
 * (--help, --version, --fields help): EXIT_DONE when stdout took it all,
 * EXIT_FAILED after outfile_close_stdout's line when it did not (a help
 * text lost on a full disk is not a success). */
_Noreturn void outfile_exit_printed(void);

/* A tool writing records to stdout ignores SIGPIPE (a reader that closed
 * the pipe is done, not a crash: `tool | head -1` exits 0) and stops its
 * run once stdout_done says the writes fail, whatever the reason;
 * outfile_close_stdout then says which (quiet for EPIPE). */
void outfile_ignore_sigpipe(void);
bool outfile_stdout_done(void);

#endif
