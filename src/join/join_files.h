/* Record files into the join: JSON Lines of any record version, one
 * host (clock) per file.  A bad line is one error naming file:line (the
 * first 20 of a file; the rest are counted), and the file goes on. */
#ifndef NFSRDMA_JOIN_FILES_H
#define NFSRDMA_JOIN_FILES_H

#include <stdint.h>

#include "src/join/join.h"

struct join_file_stats {
	uint64_t lines, records, skipped, bad;   /* skipped: JSON lines that are not records */
	uint64_t clock_lines;                    /* the host's {"type":"clock"} lines */
};

/* The vantage (REC_VT_*) of the file's first record, 0 if it has none;
 * -errno if it cannot be read. */
int join_file_vantage(const char *path);
/* Every record of path into j as host; 0 or -errno (open/read failed). */
int join_read_file(struct join *j, const char *path, unsigned host, struct join_file_stats *st);

#endif
