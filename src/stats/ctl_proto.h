/* The nfsrdmad <-> nfsrdma-top protocol over the daemon's UNIX socket,
 * version 2.4.  Line-based text, tab-separated fields; docs/daemon-protocol.md
 * is the reference.  The daemon greets with "NFSRDMA-CTL 2.4"; the client
 * sends "SNAPSHOT" and reads lines up to "END".  A minor version only adds
 * line types, which older clients skip: 1 added the fused split (FT, F). */
#ifndef NFSRDMA_CTL_PROTO_H
#define NFSRDMA_CTL_PROTO_H

#include <stddef.h>
#include <stdio.h>

#include "src/stats/agg.h"
#include "src/stats/fsplit.h"

#define CTL_PROTO_VERSION 2   /* 2: eight phases that add up to the total */
#define CTL_PROTO_MINOR 6     /* 1: the fused split (FT and F lines); 2: SP lines; 3: RP lines; 4: FV lines; 5: PC line;
                               * 6: IF lines */
#define CTL_GREETING "NFSRDMA-CTL"
#define CTL_LINE_MAX 4096     /* longest line either side sends, its newline counted */

/* Writes s as protocol lines, "END" included. */
void ctl_write_snap(FILE *f, const struct agg_snap *s);
/* The same with the fused split (fs NULL: none, as ctl_write_snap). */
void ctl_write_snap_fused(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs);

/* Incremental reader: feed it lines (without the newline); returns 1 when
 * "END" completes the snapshot, 0 for more, -EPROTO for a bad line (the
 * reason in err).  s must start zeroed; rows are malloc'ed (agg_snap_free). */
struct ctl_reader {
	size_t cap[AGG_NDIM];
};
int ctl_read_line(struct ctl_reader *rd, struct agg_snap *s, char *line, char *err, size_t errlen);
/* The same, the FT, F and FV lines into fs (zeroed at the start, its rows
 * malloc'ed: fsplit_snap_free); ctl_read_line skips them. */
int ctl_read_line_fused(struct ctl_reader *rd, struct agg_snap *s, struct fsplit_snap *fs, char *line, char *err,
			size_t errlen);
/* The first line of buf[0, len): 1 and its length without the newline in
 * *n when it is whole; 0 when its newline has not come yet; -EMSGSIZE
 * when it is longer than CTL_LINE_MAX, newline included, whole or not.
 * The same limit whatever the reads cut the stream into. */
int ctl_next_line(const char *buf, size_t len, size_t *n);
/* Parses the greeting line; returns the (major) version or -EPROTO. */
int ctl_parse_greeting(const char *line);
/* The minor version of a greeting that parses ("NFSRDMA-CTL 2.1": 1;
 * "NFSRDMA-CTL 2", as daemons before 2.1 greet: 0). */
int ctl_greeting_minor(const char *line);

#endif
