/* The numbers the aggregation engine keys a record by, per dimension: the
 * operation (program, version, procedure, minor version, NFSv4 main-op
 * name), binary addresses, QPs and the connection id; and a bounded map
 * from those keys to entries.  Building a key formats nothing, so the hot
 * path (agg_add) makes no string; names and address strings are made once
 * per new key (agg.c) and for the slowest-RPC list at snapshot time. */
#ifndef NFSRDMA_AGG_KEY_H
#define NFSRDMA_AGG_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

#define AGG_KEY_WORDS 10

struct agg_key {
	uint64_t w[AGG_KEY_WORDS];
	uint64_t hash;
	unsigned n;                 /* words in use */
};

/* What an operation's name depends on (rec_prog_str / rec_proc_str). */
struct agg_op_id {
	uint32_t prog, vers, proc;          /* all 0: no call seen or no program */
	uint16_t minor;
	uint16_t transport;                 /* enum rec_transport: the same op over RDMA and TCP are two keys */
	const char *name;                   /* NFSv4 COMPOUND: nfs4_compound_name(), a static string */
};

/* The address part of an endpoint, as dissect_addr_str shows it, and
 * with the QP (rec_ep_str); and the record's transport, so that one
 * client over RDMA and over TCP are two keys, as its operations are. */
struct agg_ep_id {
	uint8_t family;
	uint8_t transport;                  /* enum rec_transport */
	uint16_t lid;
	uint32_t qpn;
	uint8_t addr[16];
};

void agg_op_id(const struct nfsrdma_record *r, struct agg_op_id *id);
void agg_ep_id(const struct rec_endpoint *e, unsigned transport, bool with_qp, struct agg_ep_id *id);
/* "NFSv3" / "READ" from an id, as rec_prog_str / rec_proc_str would;
 * "10.9.0.2" from an endpoint's (the transport is not in them:
 * agg_op_suffix). */
void agg_op_id_str(const struct agg_op_id *id, char *prog, size_t plen, char *op, size_t olen);
void agg_ep_id_str(const struct agg_ep_id *id, char *buf, size_t len);
/* What follows an operation's name, a client's or a server's address in
 * keys and lists, as in the dissector's -z summaries: "" over RDMA,
 * " tcp", " udp". */
const char *agg_op_suffix(unsigned transport);

/* A key part: three words and their hash, made once per record and
 * shared by the keys that contain it. */
struct agg_key_part {
	uint64_t w[3];
	uint64_t hash;
};
void agg_part_op(struct agg_key_part *p, const struct agg_op_id *id);
void agg_part_ep(struct agg_key_part *p, const struct agg_ep_id *id);
/* Key of the given parts (any may be NULL) and a connection id. */
void agg_key_make(struct agg_key *k, uint32_t conn, const struct agg_key_part *op, const struct agg_key_part *a,
		  const struct agg_key_part *b);

/* Keys read straight from a record, finer than the dimension keys (they
 * keep fields those ignore), so that records of one such key share their
 * entries: ops, the operation and both endpoints' addresses (the
 * operation, client, server and series entries); conn, the connection
 * and both endpoints with their QPs (the connection's entry).  Made
 * together: they share the endpoints' words and their hash.  Both are
 * zero past their words up to AGG_ROUTE_WORDS, so that two route keys
 * compare in a fixed count of words. */
#define AGG_ROUTE_WORDS 8
void agg_route_keys(const struct nfsrdma_record *r, struct agg_key *ops, struct agg_key *conn);

/* Open-addressing map key -> pointer, fixed capacity (no growth, no
 * deletion): once full, agg_map_put refuses and the caller takes its slow
 * path, so memory stays bounded whatever the input. */
struct agg_map;
struct agg_map *agg_map_new(size_t max_entries);
/* The same in memory of the caller's (agg_map_bytes of it, zeroed),
 * which agg_map_free must then not be given. */
size_t agg_map_bytes(size_t max_entries);
struct agg_map *agg_map_in(void *zeroed, size_t max_entries);
void agg_map_free(struct agg_map *m);
void *agg_map_get(const struct agg_map *m, const struct agg_key *k);
/* 0, or -ENOSPC when full. */
int agg_map_put(struct agg_map *m, const struct agg_key *k, void *v);
size_t agg_map_memory(const struct agg_map *m);

#endif
