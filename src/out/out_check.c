#include "dissect/check.h"
#include "src/out/out.h"

void out_finding(FILE *f, const struct dissect_finding *fd)
{
	char text[400];

	finding_format(text, sizeof(text), fd->id, fd->a, fd->b);
	fprintf(f, "check: frame %llu conn %u xid 0x%08x: %s\n", (unsigned long long)fd->frame,
		fd->conn_id, fd->xid, text);
}
