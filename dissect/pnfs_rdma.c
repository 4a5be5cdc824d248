#include "dissect/pnfs_rdma.h"

#include <inttypes.h>
#include <string.h>

static void fail_into(struct pdec *d, const struct cursor *c)
{
	if (!cur_ok(c))
		cur_fail(&d->c, c->err, c->err_what);
}

const char *pnfs_rdma_state_name(uint32_t s)
{
	static const char *const n[] = { "READ_WRITE", "READ", "INVALID", "NONE" };
	return s < 4 ? n[s] : "?";
}

static void extent(struct cursor *c, struct pnfs_rdma_extent *e)
{
	const uint8_t *id = cur_bytes(c, 16, "re_device_id");
	if (id)
		memcpy(e->device_id, id, 16);
	e->file_offset = cur_be64(c, "re_file_offset");
	e->handle = cur_be32(c, "re_handle");
	e->length = cur_be64(c, "re_length");
	e->storage_offset = cur_be64(c, "re_storage_offset");
	e->state = cur_be32(c, "re_state");
	if (cur_ok(c) && e->state > 3) {
		c->off -= 4;
		cur_fail(c, CUR_INVALID, "re_state");
	}
}

int pnfs_rdma_extents(const uint8_t *body, size_t len, struct pnfs_rdma_extent *out, size_t max)
{
	struct cursor c = cur_make(body, len);
	uint32_t n = cur_be32(&c, "extents count");

	if (!cur_ok(&c) || (size_t)n * 48 > cur_left(&c))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct pnfs_rdma_extent e;
		extent(&c, &e);
		if (!cur_ok(&c))
			return -1;
		if (i < max)
			out[i] = e;
	}
	return (int)n;
}

void pnfs_rdma_layout(struct pdec *d, const uint8_t *body, size_t len)
{
	struct cursor c = cur_make(body, len);
	uint32_t n = cur_be32(&c, "pnfs_rdma_layout4 extents count");

	if (cur_ok(&c) && (size_t)n * 48 > cur_left(&c))
		cur_fail(&c, CUR_TRUNCATED, "pnfs_rdma_layout4 extents");
	DT(d->tree, "pnfs_rdma_layout4: %u extent(s)", n);
	for (uint32_t i = 0; i < n && cur_ok(&c); i++) {
		struct pnfs_rdma_extent e;
		extent(&c, &e);
		if (!cur_ok(&c))
			break;
		DT(d->tree, "  extent: file offset %" PRIu64 " length %" PRIu64 " handle 0x%08x storage offset 0x%" PRIx64 " state %s",
		   e.file_offset, e.length, e.handle, e.storage_offset, pnfs_rdma_state_name(e.state));
		if (i == 0 && !d->rec->offset)
			d->rec->offset = e.file_offset;
	}
	fail_into(d, &c);
}

void pnfs_rdma_device_addr(struct pdec *d, const uint8_t *body, size_t len)
{
	struct cursor c = cur_make(body, len);
	uint32_t nl, al;
	const uint8_t *netid = cur_xdr_opaque(&c, 1024, &nl, "pnfs_rdma_device_addr4 netid");
	const uint8_t *addr = cur_xdr_opaque(&c, 1024, &al, "pnfs_rdma_device_addr4 addr");

	if (netid && addr)
		DT(d->tree, "pnfs_rdma_device_addr4: netid \"%.*s\" addr \"%.*s\"", (int)(nl > 32 ? 32 : nl),
		   (const char *)netid, (int)(al > 64 ? 64 : al), (const char *)addr);
	fail_into(d, &c);
}

void pnfs_rdma_layoutupdate(struct pdec *d, const uint8_t *body, size_t len)
{
	struct cursor c = cur_make(body, len);
	uint32_t n = cur_be32(&c, "pnfs_rdma_layoutupdate4 commit_list count");

	if (cur_ok(&c) && (size_t)n * 16 > cur_left(&c))
		cur_fail(&c, CUR_TRUNCATED, "pnfs_rdma_layoutupdate4 commit_list");
	DT(d->tree, "pnfs_rdma_layoutupdate4: %u range(s)", n);
	for (uint32_t i = 0; i < n && cur_ok(&c); i++) {
		uint64_t off = cur_be64(&c, "range4 offset"), l = cur_be64(&c, "range4 length");
		DT(d->tree, "  range: offset %" PRIu64 " length %" PRIu64, off, l);
	}
	fail_into(d, &c);
}
