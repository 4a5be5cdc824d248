/* The calls of a capture, as the replay engine reads them
 * (replay_trace.c): arguments, chunks, and the recorded replies. */
#ifndef NFSRDMA_REPLAY_TRACE_H
#define NFSRDMA_REPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/rpcrdma.h"
#include "src/xprt/xdr_enc.h"

#define TC_MAXSEG 8
#define REPLAY_NO_REPLY 0xffffu
#define REPLAY_UNDECODED 0xfffeu

/* One call of the trace. */
struct tcall {
	uint32_t conn, xid, prog, vers, proc;
	uint64_t t_call, t_reply, frame;
	uint32_t flavor, uid, gid;
	uint8_t *args;                 /* arguments as sent inline (after the RPC header) */
	uint32_t args_len;
	/* Read chunk (position > 0) data, gathered from the server's RDMA READs */
	uint8_t *ddp;
	uint32_t ddp_len, ddp_got;
	uint32_t rpos;                 /* its XDR position, relative to args (0: none) */
	struct rpcrdma_seg rseg[TC_MAXSEG];
	uint32_t rseg_off[TC_MAXSEG];
	unsigned nrseg;
	/* Reply chunk reassembly */
	struct rpcrdma_seg rpseg[TC_MAXSEG];
	uint32_t rpseg_off[TC_MAXSEG];
	unsigned nrpseg;
	uint8_t *rcbuf;
	uint32_t rc_cap;
	bool has_read_chunk, has_write_chunk, has_reply_chunk;
	/* reply */
	bool replied, has_status, res_moved;
	uint32_t rpc_status, status;
	uint8_t *res;                  /* results (after the RPC header), kept for handle-naming procs */
	uint32_t res_len;
	uint32_t inflight;             /* trace calls outstanding when this one was sent (itself included) */
	/* NFSv4: the COMPOUND's minor version (prepass) */
	uint32_t v4minor;
	bool v4known;
	/* Its name as nfsrdma-dissect names the same XID (dissect/record_names.h:
	 * "NFSv3 READ", "NFSv4.1 LOOKUP_ROOT"), and its row in the report */
	char name[80];
	uint16_t row;
	/* The traced client that sent it: the connection's requester address,
	 * and (replay_clients.c) its replay client */
	uint8_t cfamily, caddr[16];
	uint16_t client;
};

/* A traced client as the replay sees one: an address with one NFS
 * version and minor version (each NFSv4 minor version has its own client
 * ID and session on the server, so its own on the target).  At most
 * TR_MAX_CLIENTS (tcall.client is 16 bits); the table grows as they come. */
#define TR_MAX_CLIENTS 4096
struct tclient {
	uint8_t family, addr[16];
	uint32_t vers, minor;
	uint64_t calls;
	uint32_t first_conn;
	char label[80];             /* "10.9.0.2 NFSv4.1" */
};

struct trace {
	struct tcall *calls;
	size_t n, cap;
	uint64_t frames, other_calls, retransmits, long_calls;
	/* what the capture held, for a trace with no call to replay: RPC
	 * messages over RDMA (RPC-over-RDMA version 1) and over TCP/UDP, and
	 * the messages the replay could not decode (a SEND of another RDMA
	 * application or RPC-over-RDMA version, a broken header) */
	uint64_t rdma_msgs, net_msgs, undecodable;
	uint64_t not_rpcrdma;          /* of undecodable: SENDs not RPC-over-RDMA at all */
	uint64_t rpcrdma_v2;           /* of undecodable: RPC-over-RDMA version 2 messages */
	bool have_root;                /* from a MOUNT reply in the capture */
	struct nfs_fh root;
	char export_path[256];
	struct tclient *clients;       /* replay_clients (trace_free frees it) */
	unsigned nclients, clients_cap;
	uint64_t clients_merged;       /* calls of clients past TR_MAX_CLIENTS, in the last one */
};

int trace_load(struct trace *t, const char *path, char *err, size_t errlen);
void trace_free(struct trace *t);

/* trace_idle.c: every idle stretch of the trace (no traced call in
 * flight, on any connection) longer than max_ns cut to max_ns, by moving
 * the later calls and replies earlier; a busy stretch keeps its timing to
 * the nanosecond.  The stretches cut and their removed time in *cut. */
struct trace_idle_cut {
	uint64_t stretches, removed_ns;
};
void trace_cut_idle(struct trace *t, uint64_t max_ns, struct trace_idle_cut *cut);

#endif
