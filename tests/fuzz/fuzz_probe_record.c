/* libFuzzer harness for the user-space side of the kernel probes: the
 * probe_events read from the BPF ring buffers of bpf/rpc_client.bpf.c and
 * bpf/rpc_server.bpf.c (layout in bpf/probe.h), turned into records and
 * JSON by src/probe/probe_record.c; the tracefs format files src/probe/probe_format.c
 * parses to find where each tracepoint field lives; and the per-op
 * histogram rows of the summary.  The ring buffer and maps are memory
 * other programs with the map fd can write, and a format file can come
 * from --tracefs DIR: all of it is hostile input.
 *
 * Input: byte 0 % 3 picks the path, the rest is its input.
 *   0  a ring buffer sample, as probe_load.c's handle_rb gets it (shorter
 *      than struct probe_event: rejected, as handle_rb does); an
 *      exactly-sized heap copy, so ASan sees a read past the sample.
 *      -> probe_to_record, out_json of the record, probe_event_json.
 *   1  byte 1 picks a field name the loader asks for (0xff: the name is
 *      the text up to the first '\n'), the rest is a format file (a
 *      NUL-terminated heap copy of exactly its length, as tp_format_load
 *      leaves it).  -> tp_format_field.
 *   2  histogram rows, sizeof(struct probe_hist_row) bytes each, fixed up
 *      as hist_read_map leaves them (names NUL-terminated, count = sum of
 *      the buckets); then probe_summary_json.
 *
 * Invariants (trap): JSON output is one line, balanced, with no raw
 * control or non-ASCII byte inside a string; the record's name is
 * NUL-terminated and its source matches the event's side; a field found
 * in a format file is named in it, with offset <= 0xfff0 and size
 * 1..0x7fff; p50 <= p99. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/out/out.h"
#include "src/probe/probe_format.h"
#include "src/probe/probe_load.h"
#include "src/probe/probe_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

/* Bytes of the well-formed UTF-8 sequence (RFC 3629) at s, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4 || n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* One JSON Lines line, structurally: strings closed, brackets balanced,
 * inside a string only printable ASCII and well-formed UTF-8 (JSON text is
 * UTF-8; bytes that are not become \udcXX escapes), one '\n' at the end. */
static void check_json_line(const char *s, size_t n)
{
	int depth = 0;
	bool str = false, esc = false;

	if (!n || s[n - 1] != '\n' || s[0] != '{')
		__builtin_trap();
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (str) {
			if (ch >= 0x80) {
				size_t len = utf8_seq((const unsigned char *)s + i, n - 1 - i);
				if (!len)
					__builtin_trap();
				i += len - 1;
				continue;
			}
			if (ch < 0x20 || ch == 0x7f)
				__builtin_trap();
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"')
				str = false;
			continue;
		}
		if (ch == '"')
			str = true;
		else if (ch == '{' || ch == '[')
			depth++;
		else if ((ch == '}' || ch == ']') && --depth < 0)
			__builtin_trap();
		else if (ch == '\n' || ch < 0x20)
			__builtin_trap();
		if (depth == 0 && i + 2 < n)
			__builtin_trap();   /* one object per line */
	}
	if (str || depth)
		__builtin_trap();
}

typedef void (*json_fn)(FILE *f, const void *arg);

static void json_checked(json_fn fn, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	fn(f, arg);
	if (fclose(f) == 0)
		check_json_line(buf, len);
	free(buf);
}

static void rec_json(FILE *f, const void *r) { out_json(f, r); }
static void ev_json(FILE *f, const void *e) { probe_event_json(f, e); }

static void event(const uint8_t *data, size_t size)
{
	static struct nfsrdma_record r;

	if (size < sizeof(struct probe_event))
		return;   /* handle_rb: "not ours" */
	struct probe_event *e = malloc(size);
	if (!e)
		return;
	memcpy(e, data, size);
	probe_to_record(e, &r);
	if (strnlen(r.name, sizeof(r.name)) == sizeof(r.name))
		__builtin_trap();
	if (r.source != (e->side == PROBE_SIDE_CLIENT ? REC_SRC_CLIENT_PROBE : REC_SRC_SERVER_PROBE))
		__builtin_trap();
	if (r.xid != e->xid)
		__builtin_trap();
	json_checked(rec_json, &r);
	json_checked(ev_json, e);
	free(e);
}

/* Every name the loader looks up (src/probe/probe_plan.c's table). */
static const char *const field_names[] = {
	"task_id", "client_id", "pos", "length", "xid", "hdrlen", "headlen", "pagelen", "taillen",
	"rtype", "wtype", "credits", "addr", "version", "progname", "procname", "backlog", "rtt",
	"execute", "vers", "proc", "cq_id", "completion_id", "read_latency", "totalbytes", "service",
	"procedure", "client", "xprt_id",
};

static void format(const uint8_t *data, size_t size)
{
	char name[80];
	struct tp_field tf;

	if (size < 1)
		return;
	uint8_t pick = data[0];
	data++;
	size--;
	if (size > TP_FORMAT_MAX - 1)
		size = TP_FORMAT_MAX - 1;   /* tp_format_load refuses bigger files */
	char *text = malloc(size + 1);
	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = 0;
	if (pick == 0xff) {
		const char *nl = memchr(text, '\n', size);
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, text, n);
		name[n] = 0;
	} else {
		snprintf(name, sizeof(name), "%s", field_names[pick % (sizeof(field_names) / sizeof(field_names[0]))]);
	}
	memset(&tf, 0, sizeof(tf));
	int rc = tp_format_field(text, name, &tf);
	if (rc == 0) {
		if (!*name || !strstr(text, name) || tf.off > 0xfff0 || tf.size < 1 || tf.size > 0x7fff)
			__builtin_trap();
	} else if (rc != -ENOENT && rc != -EINVAL) {
		__builtin_trap();
	}
	sink += tf.off + tf.size;
	free(text);
}

struct summary_args {
	const struct probe_hist_row *rows;
	int n;
	const uint64_t *counters;
	const char *unavailable;
};

static void summary_json(FILE *f, const void *arg)
{
	const struct summary_args *a = arg;
	probe_summary_json(f, a->rows, a->n, a->counters, a->unavailable);
}

static void hist(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct probe_hist_row);
	uint64_t counters[PST_MAX] = { 0 };
	struct probe_hist_row *rows = malloc(n ? n * sizeof(*rows) : 1);

	if (!rows)
		return;
	memcpy(rows, data, n * sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		struct probe_hist_row *r = &rows[i];
		bool wrapped = false;
		r->prog[PROBE_PROG_MAX - 1] = 0;
		r->proc[PROBE_STR_MAX - 1] = 0;
		r->count = 0;
		for (int b = 0; b < PROBE_HIST_SLOTS; b++) {
			wrapped |= r->count + r->bucket[b] < r->count;
			r->count += r->bucket[b];
		}
		counters[i % PST_MAX] += r->count;
		if (!wrapped && probe_hist_quantile(r, 0.5) > probe_hist_quantile(r, 0.99))
			__builtin_trap();
	}
	/* the rest of the input: the "unavailable" list, as probe_load builds it */
	size_t ul = size - n * sizeof(*rows);
	char *un = malloc(ul + 1);
	if (un) {
		memcpy(un, data + n * sizeof(*rows), ul);
		un[ul] = 0;
		struct summary_args a = { rows, (int)n, counters, un };
		json_checked(summary_json, &a);
		free(un);
	}
	free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: event(data + 1, size - 1); break;
	case 1: format(data + 1, size - 1); break;
	default: hist(data + 1, size - 1); break;
	}
	return 0;
}
