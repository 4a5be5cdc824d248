/* The source table: the one place that names every record source (see
 * pcap/source.h).  Add a source by adding one line to `types`. */
#include "src/probe/source_table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pcap/source_pcap.h"
#include "pcap/source_xdp.h"
#include "src/join/source_jsonl.h"
#include "src/probe/source_kernel.h"

static const struct source_type *const types[] = {
	&source_type_pcap,
	&source_type_live,
	&source_type_kernel,
	&source_type_xdp,
	&source_type_jsonl,
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

int source_open(struct source **out, const char *spec, const struct source_opts *o,
		source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	static const struct source_opts defaults = { .speed = 0, .snaplen = 65535, .sample = 1 };

	*out = NULL;
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty source spec");
		return -EINVAL;
	}
	if (!o)
		o = &defaults;
	const char *colon = strchr(spec, ':');
	size_t plen = colon ? (size_t)(colon - spec) : strlen(spec);
	for (size_t i = 0; i < NTYPES; i++) {
		if (strlen(types[i]->prefix) == plen && !strncmp(types[i]->prefix, spec, plen))
			return types[i]->open(out, colon ? colon + 1 : "", o, cb, ctx, err, errlen);
	}
	/* No known prefix: a bare capture file name (which may contain ':'). */
	int rc = source_type_pcap.open(out, spec, o, cb, ctx, err, errlen);
	/* not there, and what goes before its ':' is a word: a source kind
	 * misspelt (a spec that does not parse: nfsrdmad's 2), not a capture
	 * still to come (an input missing: 1) */
	if (rc == -ENOENT && colon && plen && strspn(spec, "abcdefghijklmnopqrstuvwxyz") == plen) {
		size_t n = (size_t)snprintf(err, errlen, "%s: no such file, and '%.*s' is no kind of source (",
					    spec, (int)plen, spec);
		for (size_t i = 0; i < NTYPES && n < errlen; i++)
			n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? ", " : "", types[i]->prefix);
		if (n < errlen)
			snprintf(err + n, errlen - n, ")");
		return -EINVAL;
	}
	return rc;
}

bool source_flat_out(const struct source *s)
{
	return source_pcap_flat_out(s) || (s && s->type == &source_type_jsonl);
}

