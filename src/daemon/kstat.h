/* The kernel's own NFS and RPC/RDMA counters, read from procfs at each
 * scrape and exported beside the probes' (docs/nfsrdmad.8, KERNEL
 * COUNTERS): the client's /proc/self/mountstats (per mount: events,
 * bytes, the transport line by name for each kernel's layout, per-op
 * counts and times), the server's /proc/net/rpc/nfsd and
 * /proc/sys/sunrpc/svc_rdma/.  Every line is hostile: a format not seen
 * before, a truncated line, a mount gone between reads is counted by
 * file and reason, never fatal. */
#ifndef NFSRDMA_KSTAT_H
#define NFSRDMA_KSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define KS_MAX_MOUNTS   64
#define KS_MAX_OPS      96      /* NFSv4.2 has 70-odd */
#define KS_OP_FIELDS    9       /* statvers 1.1: ... execute, errors */
#define KS_XPRT_FIELDS  32
#define KS_EVENTS       27
#define KS_BYTES        8

/* why a line or file was not taken */
enum ks_why {
	KS_WHY_SHORT,        /* fewer fields than its kind has */
	KS_WHY_NUMBER,       /* a field that is not a decimal count */
	KS_WHY_XPRT_LAYOUT,  /* a transport line of a protocol or field count not known */
	KS_WHY_UNKNOWN,      /* a line or file of a kind not known (a newer kernel's) */
	KS_WHY_FULL,         /* more mounts or ops than kept */
	KS_WHY_TOO_LARGE,    /* a file past the read limit: its tail */
	KS_WHY_READ,         /* the file vanished or failed between open and read */
	KS_WHY_N
};
const char *ks_why_name(enum ks_why w);

enum ks_file { KS_F_MOUNTSTATS, KS_F_NFSD, KS_F_SVC_RDMA, KS_F_N };

struct ks_skips {
	uint64_t n[KS_F_N][KS_WHY_N];
	uint32_t logged[KS_F_N];      /* reasons already logged once */
};

struct ks_op {
	char name[32];
	unsigned n;                          /* fields given (8 before statvers 1.1) */
	uint64_t v[KS_OP_FIELDS];
};

struct ks_mount {
	char device[256], mountpoint[256], fstype[16], addr[64], proto[16];
	bool has_age, has_events, has_bytes;
	uint64_t age;
	uint64_t events[KS_EVENTS];
	uint64_t bytes[KS_BYTES];
	unsigned nxprt;                      /* transport lines summed (nconnect) */
	int xprt_layout;                     /* enum in kstat_mountstats.c; -1 none */
	uint64_t xprt[KS_XPRT_FIELDS];
	unsigned nop;
	struct ks_op op[KS_MAX_OPS];
};

struct ks_mountstats {
	unsigned nmount;
	struct ks_mount m[KS_MAX_MOUNTS];
};

/* Parses the text of a mountstats file (NFS mounts only; others are
 * skipped silently: they are not NFS's).  Never fails: what it cannot
 * take it counts in sk. */
void ks_mountstats_parse(const char *text, size_t len, struct ks_mountstats *out, struct ks_skips *sk);

/* The transport fields of a layout: names (NULL-terminated order of the
 * line's fields after the protocol), NULL for an unknown layout. */
const char *const *ks_xprt_fields(int layout);
const char *ks_xprt_proto(int layout);

/* /proc/net/rpc/nfsd */
#define KS_NFSD_PROCS 80
struct ks_nfsd {
	bool has_rc, has_fh, has_io, has_th, has_net, has_rpc;
	uint64_t rc[3], fh_stale, io[2], threads, net[4], rpc[5];
	unsigned nproc3, nproc4ops;
	uint64_t proc3[KS_NFSD_PROCS], proc4ops[KS_NFSD_PROCS];
	bool has_proc3, has_proc4ops;
};
void ks_nfsd_parse(const char *text, size_t len, struct ks_nfsd *out, struct ks_skips *sk);

/* /proc/sys/sunrpc/svc_rdma/: one number a file */
#define KS_SVCRDMA_MAX 32
struct ks_svcrdma {
	unsigned n;
	struct { char name[40]; uint64_t v; } e[KS_SVCRDMA_MAX];
};

/* Reads a whole procfs file into buf (NUL-terminated, at most cap - 1
 * bytes; the rest counted as KS_WHY_TOO_LARGE): its length, or a
 * negative errno. */
ssize_t ks_read_file(const char *path, char *buf, size_t cap, enum ks_file f, struct ks_skips *sk);

/* Reads what exists under root (normally "/proc") and writes the
 * metrics, each family once: nfsrdma_mountstats_nfs_* (node_exporter's
 * node_mountstats_nfs_* names and labels, plus mountpoint), nfsrdma_nfsd_*,
 * nfsrdma_svcrdma_*, and nfsrdma_kstat_skipped_total{file,why} (kept
 * across scrapes in sk). */
void ks_write_metrics(FILE *f, const char *root, struct ks_skips *sk);

#endif
