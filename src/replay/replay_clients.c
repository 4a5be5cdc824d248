/* The traced clients: each call's sender becomes a replay client of its
 * own, keyed by the requester's address, NFS version and NFSv4 minor
 * version.  A Linux client that mounts v4.1 and then v4.2 from one address
 * holds two client IDs and two sessions on the server; so does the replay. */
#include "dissect/grow.h"
#include "src/replay/replay_engine.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/base/log.h"
#include "src/clnt/nfs3.h"

static void addr_str(uint8_t family, const uint8_t addr[16], char *buf, size_t len)
{
	if (family == 4 && inet_ntop(AF_INET, addr, buf, (socklen_t)len))
		return;
	if ((family == 6 || family == 'G') && inet_ntop(AF_INET6, addr, buf, (socklen_t)len))
		return;
	snprintf(buf, len, "?");
}

/* The minor version an NFSv4 NULL belongs with: the next COMPOUND on the
 * same connection (a mount's NULL ping comes first), else the previous. */
static uint32_t null_minor(const struct trace *t, size_t i)
{
	for (size_t k = i + 1; k < t->n; k++)
		if (t->calls[k].conn == t->calls[i].conn && t->calls[k].vers == 4 && t->calls[k].v4known)
			return t->calls[k].v4minor;
	for (size_t k = i; k-- > 0;)
		if (t->calls[k].conn == t->calls[i].conn && t->calls[k].vers == 4 && t->calls[k].v4known)
			return t->calls[k].v4minor;
	return 1;
}

static bool same_client(const struct tclient *c, const struct tcall *tc, uint32_t vers, uint32_t minor)
{
	return c->family == tc->cfamily && !memcmp(c->addr, tc->caddr, 16) && c->vers == vers && c->minor == minor;
}

int replay_clients(struct trace *t)
{
	unsigned last = 0;
	t->nclients = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct tcall *tc = &t->calls[i];
		uint32_t vers = tc->prog == PROG_NFS ? tc->vers : 3;   /* NFSACLv3 goes with NFSv3 */
		uint32_t minor = vers != 4 ? 0 : tc->v4known ? tc->v4minor : null_minor(t, i);
		unsigned k;
		/* most calls are their previous call's client's */
		if (t->nclients && same_client(&t->clients[last], tc, vers, minor))
			k = last;
		else
			for (k = 0; k < t->nclients && !same_client(&t->clients[k], tc, vers, minor); k++)
				;
		if (k == t->nclients && k < TR_MAX_CLIENTS && ARR_RESERVE(t->clients, t->clients_cap, k + 1, 16) < 0)
			return -ENOMEM;
		if (k == t->nclients) {
			if (k == TR_MAX_CLIENTS) {
				k = TR_MAX_CLIENTS - 1;
				if (!t->clients_merged)
					log_error("replay: more than %u traced clients; the rest replay as the last",
						  TR_MAX_CLIENTS);
				t->clients_merged++;
			} else {
				struct tclient *c = &t->clients[t->nclients++];
				char a[64];
				memset(c, 0, sizeof(*c));
				c->family = tc->cfamily;
				memcpy(c->addr, tc->caddr, 16);
				c->vers = vers;
				c->minor = minor;
				c->first_conn = tc->conn;
				addr_str(c->family, c->addr, a, sizeof(a));
				if (vers == 4)
					snprintf(c->label, sizeof(c->label), "%s NFSv4.%u", a, minor);
				else
					snprintf(c->label, sizeof(c->label), "%s NFSv3", a);
			}
		}
		tc->client = (uint16_t)k;
		t->clients[k].calls++;
		last = k;
	}
	return 0;
}
