/* Config files for nfsrdmad: "name = value" lines whose names are the
 * long command-line options (so the two never disagree); flags take
 * yes/no/true/false/1/0; '#' starts a comment. */
#ifndef NFSRDMA_DAEMON_CONF_H
#define NFSRDMA_DAEMON_CONF_H

#include "src/base/opt.h"

/* Feeds every setting of path to spec->handle.  Bad lines are reported
 * ("path:line: why") and skipped.  Returns the number of bad lines, or a
 * negative errno if the file cannot be read. */
int conf_load(const char *path, const struct opt_spec *spec);
/* Frees the values conf_load handed to the handler (done at exit; a
 * caller that loads many files in one process, like the fuzzer, calls it
 * once it is done with them). */
void conf_release(void);

#endif
