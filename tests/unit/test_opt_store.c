/* Typed options (src/base/opt.c, opt_find and opt_store): each type
 * parsed and stored into its field at its width, ranges and malformed
 * values refused with the field left as it was, a custom entry left to
 * its handler; renamed spellings (struct opt_alias) parsed as the
 * option they now spell, short and long, with and without an argument.
 * Closing line: "opt-store: N passed, N failed". */
#include "check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/base/opt.h"

struct cfg {
	bool flag;
	int iflag;
	const char *path;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	size_t sz;
	double secs;
};

enum { K_FLAG = 256, K_IFLAG, K_PATH, K_U8, K_U16, K_U32, K_U64, K_SIZE, K_SECS, K_OWN };

static const struct opt opts[] = {
	{ "flag", 'f', NULL, "a flag", K_FLAG, OPT_FLAG, OPT_AT(struct cfg, flag), 0, 0 },
	{ "iflag", 0, NULL, "a flag in an int", K_IFLAG, OPT_FLAG, OPT_AT(struct cfg, iflag), 0, 0 },
	{ "path", 'p', "FILE", "a string", K_PATH, OPT_STR, OPT_AT(struct cfg, path), 0, 0 },
	{ "u8", 0, "N", "1..200", K_U8, OPT_UINT, OPT_AT(struct cfg, u8), 1, 200 },
	{ "u16", 0, "N", "0..65535", K_U16, OPT_UINT, OPT_AT(struct cfg, u16), 0, 65535 },
	{ "u32", 0, "N", "64..262144", K_U32, OPT_UINT, OPT_AT(struct cfg, u32), 64, 262144 },
	{ "u64", 0, "N", "any", K_U64, OPT_UINT, OPT_AT(struct cfg, u64), 0, 1e15 },
	{ "size", 0, "SIZE", "at most 1G", K_SIZE, OPT_SIZE, OPT_AT(struct cfg, sz), 0, 1 << 30 },
	{ "secs", 0, "S", "0..86400", K_SECS, OPT_DOUBLE, OPT_AT(struct cfg, secs), 0, 86400 },
	{ "own", 0, "X", "the handler's", K_OWN, OPT_UNTYPED },
	OPT_END
};

static const struct opt_alias aliases[] = {
	{ NULL, 'o', K_OWN, "-o is something else elsewhere" },
	{ "old-path", 0, K_PATH, NULL },
	{ "old-flag", 'g', K_FLAG, NULL },
	OPT_ALIAS_END,
};

/* what the handler saw, in order */
static int seen_key[8];
static const char *seen_arg[8];
static unsigned nseen;

static int record(int key, const char *arg, void *ctx)
{
	(void)ctx;
	if (nseen < 8) {
		seen_key[nseen] = key;
		seen_arg[nseen++] = arg;
	}
	return 0;
}

static int parse(char **argv, int argc)
{
	struct opt_spec spec = { .prog = "t", .synopsis = "", .opts = opts, .aliases = aliases,
				 .handle = record, .ctx = NULL };
	nseen = 0;
	return opt_parse(&spec, argc, argv);
}

static int put(struct cfg *c, int key, const char *arg)
{
	const struct opt *o = opt_find(opts, key);
	return o ? opt_store(o, arg, c) : -ENOENT;
}

int main(void)
{
	struct cfg c = { 0 };

	CHECK(opt_find(opts, 'f') == &opts[0] && opt_find(opts, K_PATH) == &opts[2] && !opt_find(opts, 'z'),
	      "found by key and by short letter; none for an unknown key");
	CHECK(put(&c, K_FLAG, NULL) == 0 && c.flag, "flag into a bool");
	CHECK(put(&c, K_IFLAG, NULL) == 0 && c.iflag == 1, "flag into an int");
	const char *arg = "/tmp/x";
	CHECK(put(&c, K_PATH, arg) == 0 && c.path == arg, "the argument itself, not a copy");
	CHECK(put(&c, K_U8, "200") == 0 && c.u8 == 200, "u8 at its maximum");
	CHECK(put(&c, K_U8, "201") == -ERANGE && c.u8 == 200, "u8 over its range refused, field kept");
	CHECK(put(&c, K_U8, "0") == -ERANGE && c.u8 == 200, "u8 under its range refused");
	CHECK(put(&c, K_U16, "0xffff") == 0 && c.u16 == 65535, "u16 in hex");
	CHECK(put(&c, K_U32, "262144") == 0 && c.u32 == 262144, "u32 at its maximum");
	CHECK(put(&c, K_U32, "63") == -ERANGE && c.u32 == 262144, "u32 under its minimum");
	CHECK(put(&c, K_U32, "12x") == -EINVAL && c.u32 == 262144, "trailing junk refused");
	CHECK(put(&c, K_U32, "-5") == -EINVAL, "a negative number refused");
	CHECK(put(&c, K_U32, "") == -EINVAL, "an empty value refused");
	CHECK(put(&c, K_U64, "1000000000000") == 0 && c.u64 == 1000000000000ull, "u64, past 32 bits");
	CHECK(put(&c, K_SIZE, "64k") == 0 && c.sz == 65536, "size with k");
	CHECK(put(&c, K_SIZE, "1G") == 0 && c.sz == 1u << 30, "size at its maximum");
	CHECK(put(&c, K_SIZE, "2G") == -ERANGE && c.sz == 1u << 30, "size over its maximum refused");
	CHECK(put(&c, K_SIZE, "3T") == -EINVAL, "an unknown suffix refused");
	CHECK(put(&c, K_SECS, "2.5") == 0 && c.secs == 2.5, "seconds");
	CHECK(put(&c, K_SECS, "nan") == -EINVAL && c.secs == 2.5, "NaN refused");
	CHECK(put(&c, K_SECS, "86401") == -ERANGE && c.secs == 2.5, "seconds over the range refused");
	CHECK(put(&c, K_OWN, "x") == -ENOTSUP, "an untyped entry is its handler's");
	CHECK(c.flag && c.iflag == 1 && c.u8 == 200 && c.u16 == 65535 && c.u64 == 1000000000000ull,
	      "no store spilled into its neighbours");

	char a0[] = "t", a1[] = "-o", a2[] = "v1", a3[] = "--old-path", a4[] = "/p", a5[] = "-g",
	     a6[] = "--old-flag", a7[] = "--path", a8[] = "/q", a9[] = "rest";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL };
	int first = parse(argv, 10);
	CHECK(first == 9 && nseen == 5, "five options and an operand (first %d, %u seen)", first, nseen);
	CHECK(seen_key[0] == K_OWN && seen_arg[0] == a2, "a renamed short letter with its argument: the new key");
	CHECK(seen_key[4] == 'p' && seen_arg[4] == a8, "the new spelling still its own (its short letter)");
	CHECK(seen_key[1] == seen_key[4] && seen_arg[1] == a4,
	      "a renamed long name with its argument: what the new spelling gives");
	CHECK(seen_key[2] == 'f' && seen_key[3] == 'f', "a renamed flag, short and long: the new one's letter");
	char b0[] = "t", b1[] = "--old-path";
	char *argv2[] = { b0, b1, NULL };
	CHECK(parse(argv2, 2) < 0 && nseen == 0, "a renamed option missing its argument refused");
	return check_summary("opt-store");
}
