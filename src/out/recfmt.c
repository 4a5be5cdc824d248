#include "src/out/recfmt.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dissect/check.h"
#include "dissect/dissect.h"
#include "dissect/nfs4.h"
#include "dissect/nfs_status.h"
#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma.h"
#include "dissect/rpcbind.h"
#include "dissect/rpcrdma2.h"

static bool is_nfs4(const struct nfsrdma_record *r)
{
	return (r->prog == PROG_NFS && r->vers == 4) || r->prog == PROG_NFS_CB;
}

const char *rec_status_str(const struct nfsrdma_record *r, char *buf, size_t len)
{
	if ((r->flags & RECF_RDMA_ERROR) && r->rpc_status >= REC_RPC_RDMA2_ERR) {
		snprintf(buf, len, "RDMA2_ERROR ERR_%s", rpcrdma2_err_name(r->rpc_status - REC_RPC_RDMA2_ERR));
	} else if (r->flags & RECF_RDMA_ERROR) {
		snprintf(buf, len, "RDMA_ERROR %s",
			 r->rpc_status == REC_RPC_RDMA_ERR_VERS ? "ERR_VERS" : "ERR_CHUNK");
	} else if (r->rpc_status == REC_RPC_NONE) {
		snprintf(buf, len, "no-reply");
	} else if (r->rpc_status == REC_RPC_DENIED_MISMATCH) {
		snprintf(buf, len, "DENIED RPC_MISMATCH");
	} else if (r->rpc_status == REC_RPC_DENIED_AUTH) {
		snprintf(buf, len, "DENIED AUTH_ERROR");
	} else if (r->rpc_status != 0) {
		snprintf(buf, len, "%s", rpc_accept_name(r->rpc_status));
	} else if (r->status == REC_STATUS_NONE) {
		snprintf(buf, len, "SUCCESS");
	} else if (r->prog == PROG_NFS || r->prog == PROG_NFS_CB) {
		snprintf(buf, len, "%s", nfs_stat_name(r->status));
	} else if (r->prog == PROG_PORTMAP && rpcb_status_name(r->status)) {
		snprintf(buf, len, "%s", rpcb_status_name(r->status));
	} else {
		snprintf(buf, len, r->status ? "status %u" : "OK", r->status);
	}
	return buf;
}

const char *rec_ops_str(const struct nfsrdma_record *r, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (!is_nfs4(r))
		return buf;
	for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS && n + 1 < len; i++) {
		const char *nm = r->prog == PROG_NFS_CB ? nfs4_cb_op_name(r->ops[i].op)
							: nfs4_op_name(r->ops[i].op);
		int k = snprintf(buf + n, len - n, "%s%s", i ? "," : "", nm);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	if (r->nops > REC_MAX_OPS && n + 5 < len)
		snprintf(buf + n, len - n, ",...");
	return buf;
}

const char *fmt_dur(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	return buf;
}

const char *fmt_dur0(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "0ns");
	else
		fmt_dur(ns, buf, len);
	return buf;
}

static uint64_t dur_unit(uint64_t total)
{
	return total < 1000 ? 1 : total < 1000000000 ? 1000 : 1000000;
}

uint64_t dur_split(uint64_t total, const uint64_t *span, unsigned n, uint64_t *out)
{
	return dur_split_unit(dur_unit(total), total, span, n, out);
}

uint64_t dur_split_unit(uint64_t q, uint64_t total, const uint64_t *span, unsigned n, uint64_t *out)
{
	uint64_t at = 0, prev = 0;

	for (unsigned i = 0; i < n; i++) {
		at += span[i];
		/* a span longer than the total (a record whose phases do not
		 * partition it) still ends at the total, never past it */
		uint64_t b = (at < total ? at : total) + q / 2;
		b -= b % q;
		out[i] = b - prev;
		prev = b;
	}
	uint64_t t = total + q / 2;
	return t - t % q;
}

uint64_t rec_phases_printed(const struct nfsrdma_record *r, const unsigned *ph, unsigned nph, uint64_t *out)
{
	uint64_t span[REC_PH_N], sum = 0;

	for (unsigned i = 0; i < nph && i < REC_PH_N; i++)
		sum += span[i] = rec_phase_seen(r, ph[i]) ? r->d_phase[ph[i]] : 0;
	/* no total (no reply): the phases seen are rounded as their sum */
	return dur_split(rec_total_known(r) ? r->d_total : sum, span, nph < REC_PH_N ? nph : REC_PH_N, out);
}

unsigned rec_phases_shown(const struct nfsrdma_record *r, unsigned ph[REC_PH_N])
{
	unsigned n = 0;

	ph[n++] = REC_PH_CALL;
	if (r->transport != REC_TR_RDMA) {
		/* no chunks: the server's time is all the wire shows between */
		ph[n++] = REC_PH_QUEUE_SERVER;
		ph[n++] = REC_PH_REPLY;
		return n;
	}
	if (rec_phase_seen(r, REC_PH_PULL)) {
		ph[n++] = REC_PH_QUEUE;
		ph[n++] = REC_PH_PULL;
		ph[n++] = REC_PH_SERVER;
	} else {
		ph[n++] = REC_PH_QUEUE_SERVER;
	}
	ph[n++] = REC_PH_PUSH;
	ph[n++] = REC_PH_WAIT;
	ph[n++] = REC_PH_REPLY;
	return n;
}

const char *fmt_ts(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06u", (unsigned)((ns % 1000000000ull) / 1000));
	return buf;
}

const char *fmt_tod(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06u", (unsigned)((ns % 1000000000ull) / 1000));
	return buf;
}

const char *rec_chunk_mix(const struct nfsrdma_record *r, char *buf, size_t len)
{
	size_t n = 0;
	unsigned reads = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) ? 1 : 0);

	buf[0] = 0;
#define ADD(s) do { int k_ = snprintf(buf + n, len - n, "%s%s", n ? "+" : "", s); \
		    if (k_ > 0 && (size_t)k_ < len - n) n += (size_t)k_; } while (0)
	if (r->flags & RECF_ARGS_DDP)
		ADD("p0");
	if (reads && r->n_read_chunks)
		ADD("read");
	if (r->n_write_chunks)
		ADD("write");
	if (r->n_reply_segs)
		ADD("reply");
	if (!n)
		ADD("inline");
#undef ADD
	return buf;
}

