#include "dissect/check.h"
#include "src/base/json.h"
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
	struct jw j;
	char text[400];

	finding_format(text, sizeof(text), fd->id, fd->a, fd->b);
	jw_init(&j, f);
	jw_lit(&j, "{\"type\":\"finding\"");
	JW_KEY(&j, "frame");
	jw_u(&j, fd->frame);
	JW_KEY(&j, "conn");
	jw_u(&j, fd->conn_id);
	JW_KEY(&j, "xid");
	jw_c(&j, '"');
	jw_hex8(&j, fd->xid);
	jw_c(&j, '"');
	JW_KEY(&j, "id");
	jw_str(&j, fi ? fi->name : "?");
	JW_KEY(&j, "section");
	jw_str(&j, finding_section(fd->id, fd->b));
	JW_KEY(&j, "text");
	jw_str(&j, text);
	jw_lit(&j, "}\n");
	jw_flush(&j);
}

void out_check_json(FILE *f, unsigned long long findings, unsigned long long rpcs)
{
	struct jw j;

	jw_init(&j, f);
	jw_lit(&j, "{\"type\":\"check\"");
	JW_KEY(&j, "findings");
	jw_u(&j, findings);
	JW_KEY(&j, "rpcs");
	jw_u(&j, rpcs);
	jw_lit(&j, "}\n");
	jw_flush(&j);
}
