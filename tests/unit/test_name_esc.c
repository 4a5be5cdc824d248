/* Names are the wire's bytes, escaped at the output (docs/record.md,
 * "Names"): the record's bound (name_keep), the text convention
 * (name_text), the CSV one (out_csv_esc), JSON's C1 controls, and a
 * record's name through nfsrdmad's JSON and back (rec_json), byte for
 * byte.  Expected strings are written out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dissect/name_text.h"
#include "src/join/rec_json.h"
#include "src/out/out.h"

static void keep(const char *in, size_t n, size_t cap, size_t want, int want_cut, const char *what)
{
	bool cut = false;
	size_t k = name_keep((const uint8_t *)in, n, cap, &cut);

	CHECK(k == want && cut == (bool)want_cut, "%s: kept %zu cut %d, expected %zu cut %d", what, k, cut, want,
	      want_cut);
}

static void text(const char *in, const char *want, const char *what)
{
	char buf[256];

	CHECK_EQ_STR(name_text(in, (size_t)-1, buf, sizeof(buf)), want);
	(void)what;
}

static void csv(const char *in, const char *want)
{
	char buf[256];

	CHECK_EQ_STR(out_csv_esc(in, (size_t)-1, buf, sizeof(buf)), want);
}

static void json(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_json_str(f, in);
	fclose(f);
	CHECK_EQ_STR(buf, want);
	free(buf);
}

/* nfsrdmad --json writes a record, the join reads it back */
static void round_trip(const char *name)
{
	struct nfsrdma_record a, b;
	char err[200], *out = NULL;
	size_t olen = 0;

	memset(&a, 0, sizeof(a));
	a.rec_version = NFSRDMA_RECORD_VERSION;
	a.source = REC_SRC_WIRE;
	a.status = REC_STATUS_NONE;
	a.call_rdma_proc = a.reply_rdma_proc = 0xff;
	snprintf(a.name, sizeof(a.name), "%s", name);
	FILE *m = open_memstream(&out, &olen);
	out_json(m, &a);
	fclose(m);
	CHECK(rec_json_parse(out, olen, &b, err, sizeof(err)) == 0, "record back: %s", err);
	CHECK(!strcmp(a.name, b.name), "name %s back as %s", a.name, b.name);
	free(out);
}

int main(void)
{
	/* the bound: never half a character, never past a NUL */
	keep("abc", 3, 47, 3, 0, "short");
	keep("abcdef", 6, 4, 4, 1, "ASCII cut");
	keep("ab\xc3\xa9", 4, 3, 2, 1, "e-acute split by the bound goes whole");
	keep("a\xe6\x97\xa5", 4, 3, 1, 1, "3-byte character split after 2");
	keep("a\xe6\x97\xa5", 4, 2, 1, 1, "3-byte character split after 1");
	keep("a\xf0\x9f\x98\x80z", 6, 4, 1, 1, "4-byte character split after 3");
	keep("ab\xc3\xa9z", 5, 4, 4, 1, "bound right after a character");
	keep("ab\xff\xfe", 4, 3, 3, 1, "invalid bytes are not a character: cut where the bound is");
	keep("nul\0after", 9, 47, 3, 1, "NUL ends it");

	/* text: printable UTF-8 kept, the rest visible */
	text("caf\xc3\xa9", "caf\xc3\xa9", "UTF-8 kept");
	text("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac", "CJK kept");
	text("a\"b\\c d", "a\\\"b\\\\c d", "quote, backslash, space");
	text("\x1b[31m", "\\x1b[31m", "ESC");
	text("\t\n\r\x7f", "\\x09\\x0a\\x0d\\x7f", "C0 and DEL");
	text("c1\xc2\x9b", "c1\\xc2\\x9b", "C1 CSI: both its bytes");
	text("\xc2\xa0", "\xc2\xa0", "U+00A0 is no control");
	text("\xff\xe2\x82", "\\xff\\xe2\\x82", "invalid and cut sequences");

	/* CSV: JSON's escapes, the quote left to RFC 4180 */
	csv("a\"b,c", "a\"b,c");
	csv("back\\slash", "back\\\\slash");
	csv("\x1b\n\x7f", "\\u001b\\u000a\\u007f");
	csv("c1\xc2\x9b", "c1\\u009b");
	csv("inv\xff", "inv\\udcff");
	csv("caf\xc3\xa9", "caf\xc3\xa9");

	/* JSON: C1 controls escaped as the code point they are */
	json("\xc2\x85\xc2\x9f\xc2\xa0", "\"\\u0085\\u009f\xc2\xa0\"");

	round_trip("caf\xc3\xa9");
	round_trip("inv\xff\xfe" "end");
	round_trip("esc\x1b[0m \"q\" \\ \xc2\x9b");
	round_trip("\xe6\x97\xa5\xf0\x9f\x98\x80");
	return check_summary("name-esc");
}
