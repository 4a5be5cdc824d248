/* JSON strings are valid UTF-8: well-formed sequences pass through as they
 * are, every other byte becomes U+DC00+byte (surrogateescape), so the
 * output parses and the original bytes can be recovered.  Expected strings
 * are written out by hand from RFC 3629's table of well-formed sequences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/out/out.h"

static char *render(const char *in, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_json_strn(f, in, max);
	fclose(f);
	return buf;
}

static void expect(const char *in, size_t max, const char *want, const char *what)
{
	char *got = render(in, max);

	CHECK(strcmp(got, want) == 0, "%s: got %s, expected %s", what, got, want);
	free(got);
}

int main(void)
{
	const size_t all = (size_t)-1;

	expect("plain", all, "\"plain\"", "ASCII");
	expect("a\"b\\c", all, "\"a\\\"b\\\\c\"", "quote and backslash");
	expect("\x01\x1f\x7f", all, "\"\\u0001\\u001f\\u007f\"", "controls and DEL");
	expect("\xc2\xa7", all, "\"\xc2\xa7\"", "U+00A7 kept as UTF-8 (was \\u00c2\\u00a7)");
	expect("\xe2\x82\xac", all, "\"\xe2\x82\xac\"", "U+20AC");
	expect("\xf0\x9f\x98\x80", all, "\"\xf0\x9f\x98\x80\"", "U+1F600");
	expect("\xef\xbf\xbf", all, "\"\xef\xbf\xbf\"", "U+FFFF");
	expect("\xf4\x8f\xbf\xbf", all, "\"\xf4\x8f\xbf\xbf\"", "U+10FFFF");
	/* invalid: lone continuation, overlong, surrogate, above U+10FFFF, cut */
	expect("\x80", all, "\"\\udc80\"", "lone continuation byte");
	expect("\xc0\xaf", all, "\"\\udcc0\\udcaf\"", "overlong '/'");
	expect("\xe0\x80\xaf", all, "\"\\udce0\\udc80\\udcaf\"", "overlong 3-byte");
	expect("\xed\xa0\x80", all, "\"\\udced\\udca0\\udc80\"", "UTF-16 surrogate D800");
	expect("\xf4\x90\x80\x80", all, "\"\\udcf4\\udc90\\udc80\\udc80\"", "U+110000");
	expect("\xff", all, "\"\\udcff\"", "0xFF");
	expect("x\xe2\x82", all, "\"x\\udce2\\udc82\"", "sequence cut by the end");
	expect("\xe2\x82\xac", 2, "\"\\udce2\\udc82\"", "sequence cut by max");
	expect("\xc2\xa7z", 3, "\"\xc2\xa7z\"", "max at the end of a sequence");
	expect("ab\0cd", all, "\"ab\"", "stops at NUL");
	return check_summary("json-utf8");
}
