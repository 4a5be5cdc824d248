/* Tracepoint format files (tracefs events/SYS/EVENT/format): where each
 * field of a tracepoint record lives in the running kernel.  The kernel
 * probes read fields at these offsets, so a kernel whose events are laid
 * out differently still works, and a field that is gone is reported by
 * name instead of read as garbage. */
#ifndef NFSRDMA_PROBE_FORMAT_H
#define NFSRDMA_PROBE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_FORMAT_MAX 16384   /* format files are ~1-3 KB; bigger is hostile */

struct tp_field {
	uint16_t off;
	uint16_t size;
	bool     is_signed;
	bool     data_loc;       /* __data_loc: u32 (len << 16 | offset) */
};

/* tracefs mount point: /sys/kernel/tracing, else /sys/kernel/debug/tracing;
 * NULL if neither has events/. */
const char *tp_tracefs_root(void);

/* Reads ROOT/events/SYS/EVENT/format into buf (NUL-terminated).  Returns
 * its length or a negative errno (-ENOENT: no such event). */
int tp_format_load(const char *root, const char *sys, const char *event, char *buf, size_t len);

/* Finds field name in the text of a format file.  Returns 0, -ENOENT if
 * absent, -EINVAL for a malformed line that names it. */
int tp_format_field(const char *text, const char *name, struct tp_field *out);

#endif
