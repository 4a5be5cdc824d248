/* libFuzzer harness for the nfsrdmad control protocol as nfsrdma-top reads
 * it (src/stats/ctl_proto.c; src/top/top_feed.c does the socket part).  Whatever
 * answers on the daemon socket is hostile input to the viewer.
 *
 * Input: the byte stream the daemon sends, cut at '\n' as top_feed's
 * read_line does (a line longer than CTL_LINE_MAX ends the session).  The
 * first line goes to ctl_parse_greeting, the following ones to
 * ctl_read_line_fused (the fused split's FT and F lines too) until it
 * completes the snapshot or rejects a line.  Each
 * line is an exactly-sized heap copy, so ASan sees any overread.
 *
 * Invariants (trap): row counts within the reader's capacity, at most
 * AGG_SLOW_MAX slow XIDs, every key NUL-terminated, fused rows within
 * their capacity and of a fused dimension; and a snapshot that parsed
 * writes back (ctl_write_snap_fused) into lines that parse to the same
 * integers and keys. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/ctl_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_fused(const struct fsplit_snap *fs)
{
	if (fs->n > fs->cap || (fs->n && !fs->rows))
		__builtin_trap();
	for (size_t i = 0; i < fs->n; i++)
		if (strnlen(fs->rows[i].key, AGG_KEY_MAX) == AGG_KEY_MAX || !fsplit_dim_ok(fs->rows[i].dim) ||
		    fs->rows[i].tail_n > fs->rows[i].n)
			__builtin_trap();
}

static void check_snap(const struct ctl_reader *rd, const struct agg_snap *s)
{
	if (s->nslow > AGG_SLOW_MAX)
		__builtin_trap();
	for (int d = 0; d < AGG_NDIM; d++) {
		if (s->nrows[d] > rd->cap[d] || (s->nrows[d] && !s->rows[d]))
			__builtin_trap();
		for (size_t i = 0; i < s->nrows[d]; i++)
			if (strnlen(s->rows[d][i].key, AGG_KEY_MAX) == AGG_KEY_MAX)
				__builtin_trap();
	}
	for (size_t i = 0; i < s->nslow; i++) {
		const struct agg_slow *w = &s->slow[i];
		if (strnlen(w->op, AGG_LABEL_MAX) == AGG_LABEL_MAX ||
		    strnlen(w->client, AGG_LABEL_MAX) == AGG_LABEL_MAX ||
		    strnlen(w->server, AGG_LABEL_MAX) == AGG_LABEL_MAX)
			__builtin_trap();
	}
}

/* Feeds [p, p+n) line by line; returns 1 (snapshot complete), 0 (input
 * ended first) or a negative errno. */
static int feed(const char *p, size_t n, bool greeting, struct ctl_reader *rd, struct agg_snap *s,
		struct fsplit_snap *fs)
{
	char err[128];

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t ll = nl ? (size_t)(nl - p) : n;
		if (ll > CTL_LINE_MAX)
			return -71;   /* read_line: longer than the protocol allows */
		char *line = malloc(ll + 1);
		if (!line)
			return -12;
		memcpy(line, p, ll);
		line[ll] = 0;
		int rc;
		if (greeting) {
			rc = ctl_parse_greeting(line);
			if (rc > 0 && rc != CTL_PROTO_VERSION)
				rc = -71;   /* top_feed refuses other versions */
			rc = rc < 0 ? rc : 0;
			greeting = false;
		} else {
			err[0] = 0;
			rc = ctl_read_line_fused(rd, s, fs, line, err, sizeof(err));
			if (rc < 0 && rc != -12 && !err[0])
				__builtin_trap();   /* a rejected line always says why */
		}
		free(line);
		check_snap(rd, s);
		check_fused(fs);
		if (rc != 0)
			return rc;
		p += ll + (nl ? 1 : 0);
		n -= ll + (nl ? 1 : 0);
	}
	return 0;
}

static bool same_counts(const struct agg_counts *a, const struct agg_counts *b)
{
	return !memcmp(a, b, sizeof(*a));   /* all uint64_t: no padding */
}

/* Keys as put_key writes them: tab, CR, LF and 0x1f become spaces. */
static bool same_key(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i], y = b[i];
		if (x == '\t' || x == '\n' || x == '\r' || x == '\x1f')
			x = ' ';
		if (x != y)
			return false;
		if (!x)
			return true;
	}
	return true;
}

static void round_trip(const struct agg_snap *s, const struct fsplit_snap *fs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ctl_reader rd = { { 0 } };
	static struct agg_snap t;
	struct fsplit_snap u;

	if (!f)
		return;
	ctl_write_snap_fused(f, s, fs->have ? fs : NULL);
	if (fclose(f)) {
		free(buf);
		return;
	}
	memset(&t, 0, sizeof(t));
	memset(&u, 0, sizeof(u));
	int rc = feed(buf, len, false, &rd, &t, &u);
	if (rc == -12)
		goto out;
	if (rc != 1)
		__builtin_trap();   /* our own output must parse */
	if (t.now_ns != s->now_ns || t.start_ns != s->start_ns || !same_counts(&t.t.tot, &s->t.tot) ||
	    t.t.drops_queue != s->t.drops_queue || t.t.drops_source != s->t.drops_source ||
	    t.t.source_events != s->t.source_events || t.t.source_errors != s->t.source_errors ||
	    t.nslow != s->nslow)
		__builtin_trap();
	for (int d = 0; d < AGG_NDIM; d++) {
		if (t.nrows[d] != s->nrows[d])
			__builtin_trap();
		for (size_t i = 0; i < s->nrows[d]; i++) {
			const struct agg_row *a = &s->rows[d][i], *b = &t.rows[d][i];
			if (!same_key(a->key, b->key, AGG_KEY_MAX) || !same_counts(&a->tot, &b->tot) ||
			    a->p50 != b->p50 || a->p99 != b->p99 || a->max != b->max || a->wp99 != b->wp99 ||
			    memcmp(a->phase_mean, b->phase_mean, sizeof(a->phase_mean)) || a->credits != b->credits ||
			    a->phase_mask != b->phase_mask)
				__builtin_trap();
		}
	}
	if (u.have != fs->have || u.n != fs->n || u.rpcs != fs->rpcs || u.unsplit != fs->unsplit ||
	    u.overflow != fs->overflow)
		__builtin_trap();
	for (size_t i = 0; i < fs->n; i++) {
		const struct fsplit_row *a = &fs->rows[i], *b = &u.rows[i];
		if (!same_key(a->key, b->key, AGG_KEY_MAX) || a->dim != b->dim || a->transport != b->transport ||
		    a->vantages != b->vantages || a->merged != b->merged || a->mask != b->mask || a->n != b->n ||
		    a->sum != b->sum || a->p99 != b->p99 || a->tail_n != b->tail_n || a->tail_sum != b->tail_sum ||
		    memcmp(a->phase, b->phase, sizeof(a->phase)) || memcmp(a->tail, b->tail, sizeof(a->tail)))
			__builtin_trap();
	}
	for (size_t i = 0; i < s->nslow; i++) {
		const struct agg_slow *a = &s->slow[i], *b = &t.slow[i];
		if (a->xid != b->xid || a->conn != b->conn || a->t_ns != b->t_ns || a->total != b->total ||
		    memcmp(a->phase, b->phase, sizeof(a->phase)) || !same_key(a->op, b->op, AGG_LABEL_MAX) ||
		    !same_key(a->client, b->client, AGG_LABEL_MAX) ||
		    !same_key(a->server, b->server, AGG_LABEL_MAX))
			__builtin_trap();
	}
out:
	fsplit_snap_free(&u);
	agg_snap_free(&t);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agg_snap s;   /* ~13 KB of slow XIDs: off the stack */
	struct ctl_reader rd = { { 0 } };
	struct fsplit_snap fs;

	memset(&s, 0, sizeof(s));
	memset(&fs, 0, sizeof(fs));
	if (feed((const char *)data, size, true, &rd, &s, &fs) == 1)
		round_trip(&s, &fs);
	fsplit_snap_free(&fs);
	agg_snap_free(&s);
	return 0;
}
