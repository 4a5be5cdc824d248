/* rpcbind / portmapper (RFC 1833), ONC RPC program 100000: portmap v2
 * maps (program, version, protocol) to a port, rpcbind v3 and v4 map
 * (program, version, netid) to a universal address.  The decoder is
 * prog_portmap (programs.h); this is what it shares with its tests and
 * the outputs: what its status values mean and how an address names a
 * port.
 *
 * What a record of this program holds (docs/record.md):
 *   name       the mapping asked or set: "MOUNTv3 tcp", "NFSv3 tcp 2049"
 *              (SET v2), "NFSv3 tcp 0.0.0.0.8.1" (SET v3/v4), the call of
 *              CALLIT/INDIRECT/BCAST ("NFSv3 NULL"), UADDR2TADDR's address
 *   res_count  the port answered (GETPORT, GETADDR, GETVERSADDR, CALLIT,
 *              INDIRECT, BCAST) or the entries listed (DUMP, GETADDRLIST)
 *   status     enum rpcb_status */
#ifndef NFSRDMA_RPCBIND_H
#define NFSRDMA_RPCBIND_H

#include <stdbool.h>
#include <stdint.h>

/* mapping.prot of portmap v2 */
#define RPCB_IPPROTO_TCP 6u
#define RPCB_IPPROTO_UDP 17u

/* The program has no status of its own: these say what a result means. */
enum rpcb_status {
	RPCB_ST_OK = 0,
	RPCB_ST_FALSE = 1,         /* SET / UNSET answered FALSE */
	RPCB_ST_UNREGISTERED = 2,  /* port 0 / empty address: nothing registered */
};
/* "OK", "FALSE", "UNREGISTERED"; NULL for another value. */
const char *rpcb_status_name(uint32_t st);

/* The port a universal address names: its last two dot-separated parts
 * are the port's high and low bytes, decimal 0-255 ("10.9.0.1.8.1" and
 * "fe80::1.8.1" are port 2049).  False when it is not one. */
bool rpcb_uaddr_port(const char *uaddr, uint32_t *port);

#endif
