/* nfsrdmad's core: sources on their own threads feed a bounded queue; the
 * main thread aggregates, serves the control socket (nfsrdma-top) and the
 * Prometheus endpoint, prints JSON Lines / summaries, and rotates pcapng
 * exports.  cli/nfsrdmad.c fills the config from options and the config
 * file. */
#ifndef NFSRDMA_DAEMON_H
#define NFSRDMA_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#include "src/stats/agg.h"
#include "pcap/source.h"
#include "src/daemon/fwd_link.h"

#define DAEMON_MAX_SOURCES 16

struct daemon_cfg {
	const char *sources[DAEMON_MAX_SOURCES];
	unsigned nsources;
	struct source_opts sopts;
	bool json;                   /* JSON Lines of records + summaries on stdout */
	double summary_interval;     /* seconds; 0: none */
	const char *metrics;         /* "127.0.0.1:9464"; NULL or "none": off */
	const char *kstat_root;      /* the kernel's counters under this procfs (kstat.h); NULL: off */
	const char *socket_path;     /* NULL or "none": off */
	unsigned socket_mode;        /* default 0660 */
	const char *socket_group;    /* group owning the socket (NULL: the user's) */
	const char *export_dir;      /* rotating pcapng exports (capture sources) */
	uint64_t rotate_ns, rotate_bytes;
	unsigned export_keep;
	const char *user;            /* drop to this user once sources are attached; NULL: stay */
	size_t queue;                /* records between sources and aggregation (0: the default) */
	bool exit_at_end;            /* exit once every source has ended */
	double stall_after;          /* kernel sources: seconds in flight before an RPC is stalled */
	double abandon_after;        /* ...before its slot is abandoned (0: never) */
	struct agg_config agg;
	struct fwd_cfg fwd;          /* --forward / --collect (fwd_link.h) */
};

/* Runs until SIGINT/SIGTERM (or the end, with exit_at_end).  Returns the
 * process exit status: 0 clean stop, 1 runtime error (a bind on a valid
 * address fails, a source cannot be attached), 2 configuration error
 * (a source spec that does not parse or names no file, a socket path too
 * long or taken by a non-socket, an unknown user or group). */
int daemon_run(const struct daemon_cfg *c);

/* "127.0.0.1:9464", "[::1]:9464", ":9464" (loopback).  Returns a bound,
 * listening TCP socket or a negative errno with the reason in err:
 * -EINVAL when spec is not such an address (a configuration error), the
 * errno of bind/listen otherwise (a runtime one). */
int daemon_listen_tcp(const char *spec, char *err, size_t errlen);
/* Parses spec as daemon_listen_tcp does, without binding: 0 or -EINVAL. */
int daemon_check_tcp(const char *spec, char *err, size_t errlen);
/* UNIX stream socket at path (a stale socket there is replaced; any other
 * file is not), mode applied.  Returns the fd or a negative errno. */
int daemon_listen_unix(const char *path, unsigned mode, char *err, size_t errlen);

/* The host's clocks beside its live records, for a join elsewhere
 * (docs/record.md, "Host clocks"): when on, one {"type":"clock"} line on
 * stdout (json; under mu), to the collector (fw) and to this daemon's
 * own join (cj).  Returns when the next is due (0: never). */
#define DAEMON_CLOCK_LINE_NS (5ull * 1000000000ull)
struct forwarder;
struct coll_join;
uint64_t daemon_clock_line(bool on, bool json, struct forwarder *fw, struct coll_join *cj, pthread_mutex_t *mu,
			   uint64_t mono_now);

#endif
