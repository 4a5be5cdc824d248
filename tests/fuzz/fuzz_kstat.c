/* libFuzzer harness for the kernel counters' parsers (src/daemon/kstat_*.c):
 * /proc/self/mountstats and /proc/net/rpc/nfsd text, which a newer kernel,
 * a mount vanishing mid-read or a copy under --kernel-stats DIR can make
 * anything.
 *
 * Input: the file's bytes, parsed as a mountstats file and as an nfsd
 * file (each parser ignores what is not its own).
 *
 * Invariants (trap): the counts kept stay within their arrays; every
 * kept name is NUL-terminated and no longer than the input; an op keeps
 * 8 or 9 fields; a mount's transport layout is known when it has a
 * transport line; the metrics written for them are one family each
 * (no duplicate # TYPE line). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/daemon/kstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ks_mountstats ms;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_skips sk = { 0 };
	struct ks_nfsd nd;

	ks_mountstats_parse((const char *)data, size, &ms, &sk);
	if (ms.nmount > KS_MAX_MOUNTS)
		__builtin_trap();
	for (unsigned i = 0; i < ms.nmount; i++) {
		const struct ks_mount *m = &ms.m[i];
		if (m->nop > KS_MAX_OPS || strnlen(m->device, sizeof(m->device)) == sizeof(m->device) ||
		    strlen(m->device) > size || strnlen(m->addr, sizeof(m->addr)) == sizeof(m->addr) ||
		    strnlen(m->proto, sizeof(m->proto)) == sizeof(m->proto))
			__builtin_trap();
		if (m->nxprt && !ks_xprt_fields(m->xprt_layout))
			__builtin_trap();
		for (unsigned o = 0; o < m->nop; o++)
			if (m->op[o].n < 8 || m->op[o].n > KS_OP_FIELDS ||
			    strnlen(m->op[o].name, sizeof(m->op[o].name)) == sizeof(m->op[o].name))
				__builtin_trap();
	}
	ks_nfsd_parse((const char *)data, size, &nd, &sk);
	if (nd.nproc3 > KS_NFSD_PROCS || nd.nproc4ops > KS_NFSD_PROCS)
		__builtin_trap();
	return 0;
}
