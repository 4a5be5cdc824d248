/* NFSv4 COMPOUND results, one operation at a time: each op's status and
 * key fields (filehandle hash, offset, count, stateid seqid) into its
 * record slot; false for an op whose XDR we cannot walk. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/nfs4_int.h"
#include "dissect/pnfs_rdma.h"

/* ---- per-op results ------------------------------------------------ */

bool nfs4_op_res(struct pdec *d, uint32_t op, uint32_t st, struct rec_op *o)
{
	bool moved;

	if (op == NFS4_OP_SETATTR) { /* attrsset comes back whatever the status */
		nfs4_bitmap4(d, NULL, NULL);
		return true;
	}
	if (st != 0) {
		switch (op) {
		case NFS4_OP_LOCK: case NFS4_OP_LOCKT:
			if (st == 10010) { /* NFS4ERR_DENIED: lock4denied */
				xdr_skip(d, 20, "lock4denied");
				nfs4_lock_owner4(d);
			}
			break;
		case NFS4_OP_SETCLIENTID:
			if (st == 10017)
				nfs4_netaddr4(d);
			break;
		case NFS4_OP_GETDEVICEINFO:
			if (st == 10005)
				xdr_u32(d, "gdir_mincount");
			break;
		case NFS4_OP_LAYOUTGET:
			if (st == 10058)
				xdr_bool(d, "logr_will_signal_layout_avail");
			break;
		case NFS4_OP_COPY:
			if (st == 10094)
				xdr_skip(d, 8, "copy_requirements4");
			break;
		default:
			break;
		}
		return true;
	}
	switch (op) {
	case NFS4_OP_ACCESS: xdr_skip(d, 8, "access"); break;
	case NFS4_OP_CLOSE: case NFS4_OP_LOCKU: case NFS4_OP_OPEN_CONFIRM: case NFS4_OP_OPEN_DOWNGRADE: case NFS4_OP_LOCK:
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	case NFS4_OP_COMMIT: xdr_skip(d, 8, "writeverf"); break;
	case NFS4_OP_CREATE: nfs4_change_info4(d); nfs4_bitmap4(d, NULL, NULL); break;
	case NFS4_OP_GETATTR: nfs4_fattr4(d); break;
	case NFS4_OP_GETFH:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "nfs_fh4");
		o->flags |= REC_OPF_FH;
		break;
	case NFS4_OP_LINK: case NFS4_OP_REMOVE: case NFS4_OP_SETXATTR: case NFS4_OP_REMOVEXATTR: nfs4_change_info4(d); break;
	case NFS4_OP_OPEN:
		o->seqid = nfs4_stateid4_dt(d, "open stateid");
		o->flags |= REC_OPF_SEQID;
		nfs4_change_info4(d);
		xdr_u32(d, "rflags");
		nfs4_bitmap4(d, NULL, NULL);
		nfs4_open_delegation4(d);
		break;
	case NFS4_OP_READ: {
		bool eof = xdr_bool(d, "eof");
		uint32_t n = xdr_ddp_opaque(d, BIG * 64, &moved, "read data");
		if (!d->rec->res_count)
			d->rec->res_count = n;
		if (moved)
			o->flags |= REC_OPF_DDP;
		DT(d->tree, "READ: eof %d data %u bytes%s", eof, n, moved ? " (Write chunk)" : " (inline)");
		break;
	}
	case NFS4_OP_READDIR: {
		xdr_skip(d, 8, "cookieverf");
		unsigned guard = 0;
		while (xdr_ok(d) && xdr_bool(d, "entry4 follows")) {
			xdr_skip(d, 8, "cookie");
			nfs4_component(d, NULL, 0);
			nfs4_fattr4(d);
			if (++guard > BIG)
				break;
		}
		xdr_bool(d, "eof");
		break;
	}
	case NFS4_OP_READLINK:
		xdr_ddp_opaque(d, NFS4_OPAQUE * 4, &moved, "linktext");
		break;
	case NFS4_OP_RENAME: nfs4_change_info4(d); nfs4_change_info4(d); break;
	case NFS4_OP_SECINFO: case NFS4_OP_SECINFO_NO_NAME: {
		uint32_t n = xdr_u32(d, "secinfo4 count");
		if (n > 64) {
			xdr_bad_u32(d, "secinfo4 count");
			break;
		}
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			if (xdr_u32(d, "flavor") == 6) {
				xdr_skip_opaque(d, NFS4_OPAQUE, "oid");
				xdr_skip(d, 8, "qop service");
			}
		break;
	}
	case NFS4_OP_SETCLIENTID: xdr_skip(d, 16, "clientid verifier"); break;
	case NFS4_OP_WRITE:
		o->count = xdr_u32(d, "count");
		if (!d->rec->res_count)
			d->rec->res_count = o->count;
		xdr_skip(d, 12, "committed verifier");
		break;
	case NFS4_OP_EXCHANGE_ID: {
		xdr_skip(d, 16, "clientid sequenceid flags");
		uint32_t how = xdr_u32(d, "state_protect_how4");
		if (how == 1)
			nfs4_state_protect_ops4(d);
		else if (how == 2) {
			nfs4_state_protect_ops4(d);
			xdr_skip(d, 16, "ssv_prot_info4");
			uint32_t n = nfs4_array_count(d, 64, "spi_handles count");
			for (uint32_t i = 0; i < n && xdr_ok(d); i++)
				xdr_skip_opaque(d, NFS4_OPAQUE, "spi_handle");
		}
		xdr_u64(d, "so_minor_id");
		xdr_skip_opaque(d, NFS4_OPAQUE, "so_major_id");
		xdr_skip_opaque(d, NFS4_OPAQUE, "server_scope");
		nfs4_impl_id(d);
		break;
	}
	case NFS4_OP_CREATE_SESSION:
		xdr_skip(d, 24, "sessionid sequence flags");
		nfs4_channel_attrs4(d);
		nfs4_channel_attrs4(d);
		break;
	case NFS4_OP_BIND_CONN_TO_SESSION: {
		xdr_skip(d, 16, "bctsr_sessid");
		uint32_t dir = xdr_u32(d, "bctsr_dir");
		bool rdma = xdr_bool(d, "bctsr_use_conn_in_rdma_mode");
		DT(d->tree, "bound: %s rdma_mode: %s", dir == 1 ? "FORE" : dir == 2 ? "BACK" : dir == 3 ? "BOTH" : "?",
		   rdma ? "true" : "false");
		break;
	}
	case NFS4_OP_GET_DIR_DELEGATION: {
		uint32_t s = xdr_u32(d, "gddrnf4_status");
		if (s == 0) {
			xdr_skip(d, 8, "cookieverf");
			nfs4_stateid4(d);
			nfs4_bitmap4(d, NULL, NULL);
			nfs4_bitmap4(d, NULL, NULL);
			nfs4_bitmap4(d, NULL, NULL);
		} else {
			xdr_bool(d, "will_signal");
		}
		break;
	}
	case NFS4_OP_GETDEVICEINFO: {
		uint32_t lt = xdr_u32(d, "layout_type");
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &n, "da_addr_body");
		if (p && lt == LAYOUT4_RDMA)
			pnfs_rdma_device_addr(d, p, n);
		nfs4_bitmap4(d, NULL, NULL);
		break;
	}
	case NFS4_OP_GETDEVICELIST:
		xdr_skip(d, 16, "cookie verifier");
		xdr_skip_array(d, 16, BIG, "deviceid list");
		xdr_bool(d, "eof");
		break;
	case NFS4_OP_LAYOUTCOMMIT:
		if (xdr_bool(d, "ns_sizechanged"))
			xdr_u64(d, "ns_size");
		break;
	case NFS4_OP_LAYOUTGET: {
		xdr_bool(d, "return_on_close");
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_SEQID;
		uint32_t n = xdr_u32(d, "layouts count");
		if (n > 1024) {
			xdr_bad_u32(d, "layouts count");
			break;
		}
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			xdr_skip(d, 20, "lo_offset lo_length lo_iomode");
			uint32_t lt = xdr_u32(d, "layout_type");
			uint32_t len;
			const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &len, "loc_body");
			if (p && lt == LAYOUT4_RDMA)
				pnfs_rdma_layout(d, p, len);
		}
		break;
	}
	case NFS4_OP_LAYOUTRETURN:
		if (xdr_bool(d, "lrs_present"))
			nfs4_stateid4(d);
		break;
	case NFS4_OP_SEQUENCE:
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		xdr_skip(d, 12, "slotid highest target");
		nfs4_seq4_status_flags(d, xdr_u32(d, "sr_status_flags"));
		break;
	case NFS4_OP_SET_SSV: xdr_skip_opaque(d, NFS4_OPAQUE, "digest"); break;
	case NFS4_OP_TEST_STATEID: xdr_skip_array(d, 4, NFS4_MAXOPS, "status codes"); break;
	case NFS4_OP_WANT_DELEGATION: nfs4_open_delegation4(d); break;
	case NFS4_OP_COPY: nfs4_write_response4(d); xdr_skip(d, 8, "copy_requirements4"); break;
	case NFS4_OP_COPY_NOTIFY: {
		nfs4_nfstime4(d);
		nfs4_stateid4(d);
		uint32_t n = nfs4_array_count(d, 64, "source_server count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			nfs4_netloc4(d);
		break;
	}
	case NFS4_OP_IO_ADVISE: nfs4_bitmap4(d, NULL, NULL); break;
	case NFS4_OP_OFFLOAD_STATUS: xdr_u64(d, "count"); xdr_skip_array(d, 4, 1, "complete"); break;
	case NFS4_OP_READ_PLUS: {
		xdr_bool(d, "eof");
		uint32_t n = nfs4_array_count(d, BIG, "contents count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			uint32_t t = xdr_u32(d, "data_content4");
			xdr_u64(d, "offset");
			if (t == 0)
				xdr_skip_opaque(d, BIG * 64, "data");
			else
				xdr_u64(d, "length");
		}
		break;
	}
	case NFS4_OP_SEEK: xdr_bool(d, "eof"); xdr_u64(d, "offset"); break;
	case NFS4_OP_WRITE_SAME: nfs4_write_response4(d); break;
	case NFS4_OP_GETXATTR: xdr_skip_opaque(d, BIG, "xattrvalue4"); break;
	case NFS4_OP_LISTXATTRS: {
		xdr_u64(d, "cookie");
		uint32_t n = nfs4_array_count(d, BIG, "names count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			nfs4_component(d, NULL, 0);
		xdr_bool(d, "eof");
		break;
	}
	case NFS4_OP_DELEGPURGE: case NFS4_OP_DELEGRETURN: case NFS4_OP_LOOKUP: case NFS4_OP_LOOKUPP:
	case NFS4_OP_NVERIFY: case NFS4_OP_VERIFY: case NFS4_OP_OPENATTR: case NFS4_OP_PUTFH: case NFS4_OP_PUTPUBFH:
	case NFS4_OP_PUTROOTFH: case NFS4_OP_RENEW: case NFS4_OP_RESTOREFH: case NFS4_OP_SAVEFH:
	case NFS4_OP_SETCLIENTID_CONFIRM: case NFS4_OP_RELEASE_LOCKOWNER: case NFS4_OP_BACKCHANNEL_CTL:
	case NFS4_OP_DESTROY_SESSION: case NFS4_OP_FREE_STATEID: case NFS4_OP_DESTROY_CLIENTID:
	case NFS4_OP_RECLAIM_COMPLETE: case NFS4_OP_ALLOCATE: case NFS4_OP_DEALLOCATE: case NFS4_OP_OFFLOAD_CANCEL:
	case NFS4_OP_CLONE: case NFS4_OP_LAYOUTERROR: case NFS4_OP_LAYOUTSTATS: case NFS4_OP_LOCKT:
		break;
	default:
		return false;
	}
	return true;
}
