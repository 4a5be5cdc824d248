/* The xdp:IFACE record source (pcap/source.h): bpf/xdp_roce.bpf.c attached
 * to a network interface, its ring buffer read and turned into per-XID
 * records through the dissector (pcap/xdp_feed.h).
 *
 *   xdp:IFACE[,OPTION...]
 *     native | generic      attach mode (default: native, falling back to
 *                           generic with a message saying so)
 *     snap=N                frame bytes kept per record (default from
 *                           --snaplen, clamped to 64..4352)
 *     sample=N              1 frame in N recorded (default from --sample)
 *     rb=BYTES              ring buffer size (default 16M; power of 2)
 *     capture=FILE          also write every recorded frame (its first
 *                           snap bytes) to FILE, classic pcap with ns stamps
 *
 * The program is attached for the lifetime of the source and detached on
 * close (only if it is still ours).  It returns XDP_PASS for every frame. */
#ifndef NFSRDMA_SOURCE_XDP_H
#define NFSRDMA_SOURCE_XDP_H

#include <stdint.h>

#include "pcap/source.h"

extern const struct source_type source_type_xdp;

/* "native" or "generic". */
const char *source_xdp_mode(const struct source *s);
/* Frames the program has seen since attach (all frames, not only RoCE). */
uint64_t source_xdp_frames_seen(const struct source *s);
/* One of the program's counters (enum xdp_stat in bpf/xdp_roce.h), summed
 * over CPUs. */
uint64_t source_xdp_counter(const struct source *s, unsigned slot);
/* Emits what is still pending (partial messages, unanswered calls, as the
 * dissector does at the end of a capture).  Returns records delivered. */
int source_xdp_flush(struct source *s);

#endif
