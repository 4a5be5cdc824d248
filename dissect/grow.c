/* Growable arrays (grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "dissect/grow.h"

void *grow_array(void *p, size_t *cap, size_t need, size_t elem, size_t min, size_t max)
{
	size_t c = *cap ? *cap : (min ? min : 1);
	void *q;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (c > max) {
		/* the doubling overshoots: the type's largest still holds need */
		if (need > max)
			return NULL;
		c = max;
	}
	if (elem && c > SIZE_MAX / elem)
		return NULL;
	q = realloc(p, c * elem);
	if (q)
		*cap = c;
	return q;
}
