/* Minimal unit-test harness: every CHECK counts as one assertion; a test
 * binary ends with `return check_summary("name");`, which prints the
 * closing line "name: N passed, N failed" and returns the exit status. */
#ifndef NFSRDMA_CHECK_H
#define NFSRDMA_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned check_passed_, check_failed_, check_skipped_;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (cond) {                                                   \
			check_passed_++;                                      \
		} else {                                                      \
			check_failed_++;                                      \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
		}                                                             \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                    \
	do {                                                                  \
		uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);  \
		CHECK(check_a_ == check_b_, "%s = %" PRIu64 " (0x%" PRIx64 "), expected %" PRIu64 " (0x%" PRIx64 ")", \
		      #a, check_a_, check_a_, check_b_, check_b_);            \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                    \
	do {                                                                  \
		const char *check_a_ = (a), *check_b_ = (b);                  \
		CHECK(check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0,\
		      "%s = \"%s\", expected \"%s\"", #a,                     \
		      check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
	} while (0)

/* For tests that need files outside the repo (e.g. ../shared/captures):
 * say so on one line; it is not counted as a pass, the closing line counts
 * it, and under CI=true tests/run-tiers.sh fails it unless
 * tests/skips-allowed names it. */
#define CHECK_SKIP(...)                                                       \
	do {                                                                  \
		check_skipped_++;                                             \
		fprintf(stdout, "SKIP: ");                                    \
		fprintf(stdout, __VA_ARGS__);                                 \
		fputc('\n', stdout);                                          \
	} while (0)

static inline int check_summary(const char *name)
{
	if (check_skipped_)
		printf("%s: %u passed, %u failed, %u skipped\n", name, check_passed_, check_failed_,
		       check_skipped_);
	else
		printf("%s: %u passed, %u failed\n", name, check_passed_, check_failed_);
	if (check_passed_ + check_failed_ == 0) {
		printf("%s: no assertion ran\n", name);
		return 1;
	}
	return check_failed_ ? 1 : 0;
}

/* Whether a JSON text's braces and brackets pair up outside its strings
 * (escapes honoured) and no string is left open. */
static inline bool check_json_balanced(const char *s)
{
	int depth = 0;
	bool in_str = false;
	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				in_str = false;
			continue;
		}
		in_str = *s == '"';
		depth += (*s == '{') + (*s == '[');
		depth -= (*s == '}') + (*s == ']');
		if (depth < 0)
			return false;
	}
	return depth == 0 && !in_str;
}

/* Path of a repo file, honouring $NFSRDMA_SRCDIR when run from elsewhere. */
static inline const char *check_path(const char *rel, char *buf, size_t len)
{
	const char *top = getenv("NFSRDMA_SRCDIR");
	snprintf(buf, len, "%s/%s", top ? top : ".", rel);
	return buf;
}

#endif
