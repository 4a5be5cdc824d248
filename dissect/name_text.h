/* Names from the wire are bytes, not text: a record keeps them as they
 * were (bounded), and each output escapes them its own way at the end.
 * This is the UTF-8 check every output shares and the text outputs'
 * convention (docs/record.md, "Names"); JSON and CSV have theirs in
 * src/out.  libc only, never prints: it fills the caller's buffer. */
#ifndef NFSRDMA_NAME_TEXT_H
#define NFSRDMA_NAME_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is not one;
 * n is what is left of the input. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* A two-byte sequence that encodes a C1 control (U+0080..U+009F):
 * terminals act on it as on ESC [, so no output shows it raw. */
static inline bool utf8_is_c1(const unsigned char *s, size_t len)
{
	return len == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

/* How many of the n bytes at p a bounded copy of at most cap bytes keeps:
 * never more than cap, never past a NUL (a C string cannot hold it), and
 * never half a valid UTF-8 character (the cut goes back to its first
 * byte).  *cut says whether bytes were left out. */
size_t name_keep(const uint8_t *p, size_t n, size_t cap, bool *cut);

/* The text convention, like ls -b: valid printable UTF-8 as it is; '"'
 * and '\' as \" and \\; every byte of a C0 control, DEL, a C1 control or
 * invalid UTF-8 as \xHH (lowercase).  At most max bytes of s, up to a
 * NUL; into buf (len bytes, NUL-terminated, cut only between whole
 * escapes).  4 * max + 1 bytes always suffice.  Returns buf. */
const char *name_text(const char *s, size_t max, char *buf, size_t len);
/* The same with '"' and '\' left as they are: a line already formatted
 * around its strings (the -V tree's), made safe for a terminal. */
const char *text_safe(const char *s, size_t max, char *buf, size_t len);

#endif
