/* The -V decode tree: decoders append indented "field value" lines here
 * only when a tree is attached (tree == NULL costs one test), so the fast
 * path never formats strings.  The tool prints the text. */
#ifndef NFSRDMA_DTREE_H
#define NFSRDMA_DTREE_H

#include <stddef.h>

struct dtree {
	char  *buf;
	size_t len, cap;
	int    depth;
	size_t limit;     /* stop growing past this many bytes */
};

void dt_init(struct dtree *t, size_t limit);
void dt_reset(struct dtree *t);
void dt_free(struct dtree *t);
void dt_add(struct dtree *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void dt_push(struct dtree *t) { if (t) t->depth++; }
static inline void dt_pop(struct dtree *t) { if (t && t->depth > 0) t->depth--; }

#define DT(tree, ...) do { if (tree) dt_add((tree), __VA_ARGS__); } while (0)

#endif
