#include "dissect/check.h"
#include "src/out/out.h"

void out_finding(FILE *f, const struct dissect_finding *fd)
{
	char text[400];

	finding_format(text, sizeof(text), fd->id, fd->a, fd->b);
	fprintf(f, "check: frame %llu conn %u xid 0x%08x: %s\n", (unsigned long long)fd->frame,
		fd->conn_id, fd->xid, text);
}

/* The keys of a record's "findings" entries (id, section, text), with
 * where it was found: a finding line stands alone (-q, or none of a
 * record's). */
void out_finding_json(FILE *f, const struct dissect_finding *fd)
{
	const struct finding_info *fi = finding_info(fd->id);
	char text[400];

	finding_format(text, sizeof(text), fd->id, fd->a, fd->b);
	fprintf(f, "{\"type\":\"finding\",\"frame\":%llu,\"conn\":%u,\"xid\":\"0x%08x\",\"id\":",
		(unsigned long long)fd->frame, fd->conn_id, fd->xid);
	out_json_str(f, fi ? fi->name : "?");
	fputs(",\"section\":", f);
	out_json_str(f, finding_section(fd->id, fd->b));
	fputs(",\"text\":", f);
	out_json_str(f, text);
	fputs("}\n", f);
}

void out_check_json(FILE *f, unsigned long long findings, unsigned long long rpcs)
{
	fprintf(f, "{\"type\":\"check\",\"findings\":%llu,\"rpcs\":%llu}\n", findings, rpcs);
}
