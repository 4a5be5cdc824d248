/* The ncurses view of nfsrdma-top (top_screen.c). */
#ifndef NFSRDMA_TOP_SCREEN_H
#define NFSRDMA_TOP_SCREEN_H

#include <signal.h>

#include "src/top/top_feed.h"
#include "src/top/top_view.h"

/* Draws snapshots of f every `delay` seconds until the user quits or *quit
 * is set (by a signal handler).  Returns 0, or 1 when the terminal cannot
 * be started. */
int top_screen_run(struct top_view *v, struct top_feed *f, double delay, volatile sig_atomic_t *quit);

#endif
