/* InfiniBand Communication Management MADs (IBA vol. 1 ch. 12), carried
 * in UD SEND Only packets to QP1: REQ/REP/RTU set a connection up,
 * DREQ/DREP tear it down, REJ refuses it.  We take what pairing needs
 * (comm IDs, QPNs, starting PSNs, path MTU) and the RFC 8797 RPC-over-RDMA
 * connection parameters from the private data. */
#ifndef NFSRDMA_IB_CM_H
#define NFSRDMA_IB_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"

#define MAD_LEN          256
#define MAD_HDR_LEN      24
#define MAD_CLASS_CM     0x07

enum cm_attr {
	CM_ATTR_CLASSPORTINFO = 0x0001,
	CM_ATTR_REQ = 0x0010, CM_ATTR_MRA = 0x0011, CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013, CM_ATTR_RTU = 0x0014, CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016, CM_ATTR_SIDR_REQ = 0x0017, CM_ATTR_SIDR_REP = 0x0018,
	CM_ATTR_LAP = 0x0019, CM_ATTR_APR = 0x001a,
};

#define RPCRDMA_CM_MAGIC   0xf6ab0e18u   /* RFC 8797 cp_magic */
#define RPCRDMA_CM_VERSION 1
#define RPCRDMA_CM_REMOTE_INV 0x01
/* librdmacm / kernel cma header in front of the ULP data of a REQ made
 * for an IP-based service ID (struct cma_hdr). */
#define CMA_HDR_LEN 36

struct cm_msg {
	uint8_t  mgmt_class, class_version, method;
	uint16_t attr;
	uint64_t tid;
	uint32_t local_comm_id, remote_comm_id;
	/* REQ */
	uint64_t service_id;
	uint8_t  path_mtu;         /* enum 1..5 (256..4096) */
	uint16_t prim_local_lid, prim_remote_lid;
	uint8_t  prim_local_gid[16], prim_remote_gid[16];
	/* REQ / REP */
	uint32_t local_qpn;
	uint32_t start_psn;
	/* DREQ */
	uint32_t remote_qpn;
	/* REJ */
	uint16_t rej_reason;
	/* rdma_cm IP header (REQ with an IP-based service ID) */
	bool     has_cma_hdr;
	uint8_t  cma_ipver;        /* 4 or 6 */
	uint16_t cma_sport;
	uint8_t  cma_src[16], cma_dst[16]; /* IPv4 in the first 4 bytes */
	/* private data for the ULP (after the cma header if any) */
	const uint8_t *priv;
	size_t   priv_len;         /* captured bytes */
	size_t   priv_off;         /* frame offset */
	/* RFC 8797 connection parameters */
	bool     has_rpcrdma;      /* magic matched */
	uint8_t  rr_version, rr_flags;
	uint32_t rr_send_size, rr_recv_size; /* bytes, decoded */
};

/* Parses a MAD at the cursor.  Returns 1 for a CM MAD (m filled), 0 for a
 * MAD of another management class (m->mgmt_class set), negative errno
 * when malformed (cursor error set). */
int ib_cm_parse(struct cursor *c, struct cm_msg *m);
const char *ib_cm_attr_name(uint16_t attr);
/* Reads RFC 8797 parameters from ULP private data; true if the magic
 * matched (then version/flags/sizes are filled, whatever the version). */
bool ib_cm_rpcrdma_params(const uint8_t *priv, size_t len, struct cm_msg *m);

#endif
