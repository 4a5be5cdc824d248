/* The exit statuses every nfsrdma tool shares (each man page's EXIT
 * STATUS, the same table; tests/unit/exit_status.sh holds the tools and
 * the pages to it).  A script tells "could not" from "found nothing" from
 * "asked wrongly" by the number alone, whichever tool it ran; the
 * daemon's unit leaves EXIT_USAGE stopped, since no restart cures it.
 * nfsrdma-replay adds its own above these (src/replay/replay.h). */
#ifndef NFSRDMA_EXIT_H
#define NFSRDMA_EXIT_H

#define EXIT_DONE 0
/* input missing or unreadable, output not written, a failure at run time */
#define EXIT_FAILED 1
/* bad usage or configuration */
#define EXIT_USAGE 2
/* the input was read to its end and held nothing to show */
#define EXIT_NOTHING_FOUND 3

#endif
