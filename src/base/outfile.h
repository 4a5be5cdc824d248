/* Output files that never destroy an input: a file is written under a
 * temporary name beside its destination and renamed into place only when
 * it is complete, and a destination that is one of the run's inputs (the
 * same file, also through a link) is refused before anything is read. */
#ifndef NFSRDMA_OUTFILE_H
#define NFSRDMA_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	char *path;            /* the destination */
	char *tmp;             /* where it is written until outfile_close */
};

/* True when out and in name the same existing file (same device and
 * inode: hard links, symbolic links and other spellings included). */
bool outfile_same(const char *out, const char *in);

/* Refuses (-EEXIST, one line in err naming both) an output that is one of
 * the n inputs ("-" inputs are stdin and never match), and one that cannot
 * be made where it is named (a directory, or in a directory that does not
 * exist or is not writable: -errno), before the run. */
int outfile_check(const char *what, const char *out, const char *const *in, size_t n,
		  char *err, size_t errlen);

/* Creates path's temporary twin ("PATH.tmp-PID" in the same directory,
 * so the rename stays on one file system).  Returns 0 or a negative errno
 * with the reason in err. */
int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen);
/* Flushes, closes and renames into place; on any error the temporary file
 * is removed and the destination left as it was.  Returns 0 or -errno. */
int outfile_close(struct outfile *o, char *err, size_t errlen);
/* Gives up: removes the temporary file. */
void outfile_abort(struct outfile *o);

/* The temporary name of a file some other writer creates (PATH.tmp-PID),
 * for outfile_rename.  Returns a malloc'd string or NULL. */
char *outfile_tmpname(const char *path);
/* Renames tmp to path; 0 or -errno. */
int outfile_rename(const char *tmp, const char *path, char *err, size_t errlen);

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
