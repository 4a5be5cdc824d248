/* Packets in, RC messages out: picks the link-layer parser for the
 * capture's link type, decodes the BTH, routes RC packets to the
 * connection table and CM MADs (UD to QP1) to the CM handler, and turns
 * every malformed frame into one diagnostic and a counter -- the run always
 * continues with the next frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/conn.h"
#include "dissect/erf.h"
#include "dissect/ib.h"
#include "dissect/ib_cm.h"
#include "dissect/ipoib.h"
#include "dissect/roce.h"
#include "dissect/rpc_net.h"
#include "dissect/transport.h"

#define GSI_QPN 1

/* Does the capture keep the ICRC after each RoCE packet?  Real captures
 * (rxe, ibdump, port mirrors) do; some capture paths drop it, and then
 * every length would be 4 bytes short.  Decided on the first RoCE packets:
 * a matching ICRC says present; a header-only packet that fits exactly
 * without one says absent; 32 packets without evidence leave it present. */
enum icrc_state { ICRC_UNKNOWN = 0, ICRC_PRESENT, ICRC_ABSENT };
#define ICRC_PROBE_MAX 32

struct transport {
	int linktype;
	bool track;            /* frame tracking */
	bool cm_frame;         /* the current frame was a CM MAD */
	rdma_event_fn fn;
	uint8_t icrc;          /* enum icrc_state */
	uint8_t icrc_probes;
	diag_fn diag;
	void *ctx;
	struct transport_stats st;
	struct conn_table *ct;
	struct rpc_net *rn;
	uint32_t next_conn_id;  /* RDMA connections and RPC streams alike */
	bool rn_used;          /* the current frame went to an RPC message */
	char msg[192];
};

struct transport *transport_new(rdma_event_fn fn, diag_fn diag, void *ctx)
{
	struct transport *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->diag = diag;
	t->ctx = ctx;
	t->fn = fn;
	t->linktype = -1;
	t->next_conn_id = 1;
	t->ct = conn_table_new(fn, diag, ctx, &t->st);
	t->rn = rpc_net_new(fn, diag, ctx, &t->st, &t->next_conn_id);
	if (!t->ct || !t->rn) {
		conn_table_free(t->ct);
		rpc_net_free(t->rn);
		free(t);
		return NULL;
	}
	conn_set_id_counter(t->ct, &t->next_conn_id);
	return t;
}

const char *transport_linktype_name(int linktype)
{
	switch (linktype) {
	case 0:   return "BSD loopback (NULL)";
	case LINKTYPE_ETHERNET: return "Ethernet";
	case 101: return "raw IP";
	case 105: return "IEEE 802.11";
	case 108: return "OpenBSD loopback";
	case LINKTYPE_LINUX_SLL: return "Linux cooked (SLL)";
	case 127: return "802.11 radiotap";
	case LINKTYPE_ERF: return "Endace ERF";
	case 228: return "raw IPv4";
	case 229: return "raw IPv6";
	case LINKTYPE_IPOIB: return "IP over InfiniBand";
	case LINKTYPE_INFINIBAND: return "InfiniBand";
	case 249: return "USB Linux mmapped";
	case 253: return "netlink";
	case LINKTYPE_LINUX_SLL2: return "Linux cooked v2 (SLL2)";
	default:  return "unknown link type";
	}
}

int transport_set_linktype(struct transport *t, int linktype)
{
	switch (linktype) {
	case LINKTYPE_ETHERNET:
	case LINKTYPE_LINUX_SLL:
	case LINKTYPE_ERF:
	case LINKTYPE_INFINIBAND:
	case LINKTYPE_LINUX_SLL2:
	case LINKTYPE_IPOIB:
		t->linktype = linktype;
		return 0;
	default:
		return -EPROTONOSUPPORT;
	}
}

void transport_set_data_cap(struct transport *t, size_t cap)
{
	conn_set_data_cap(t->ct, cap);
}

void transport_set_data_filter(struct transport *t, rdma_data_filter_fn fn)
{
	conn_set_data_filter(t->ct, fn);
}

void transport_set_frame_tracking(struct transport *t, bool on)
{
	t->track = on;
	conn_set_frame_tracking(t->ct, on);
	rpc_net_set_frame_tracking(t->rn, on);
}

int transport_add_rpc_port(struct transport *t, uint16_t port)
{
	return rpc_net_add_port(t->rn, port);
}

void transport_set_rpc_net(struct transport *t, bool on)
{
	rpc_net_set_enabled(t->rn, on);
}

/* Frame tracking: a frame that went into no event gets one of its own. */
static void frame_event(struct transport *t, uint64_t ts, uint64_t frame, uint8_t kind)
{
	struct rdma_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = RDMA_EV_FRAME;
	ev.ts_first_ns = ev.ts_last_ns = ts;
	ev.frame_first = ev.frame_last = frame;
	ev.npkts = 1;
	ev.frames = &frame;
	ev.nframes = 1;
	ev.frame_kind = kind;
	if (t->fn)
		t->fn(&ev, t->ctx);
}

/* One diagnostic per bad frame, from the cursor's sticky error. */
static void report(struct transport *t, uint64_t frame, const struct cursor *c,
		   const char *layer, size_t caplen, size_t wirelen)
{
	enum cur_err kind = c->err ? c->err : CUR_INVALID;
	const char *what = c->err_what ? c->err_what : "malformed";

	if (kind == CUR_TRUNCATED)
		t->st.truncated++;
	else
		t->st.invalid++;
	if (!t->diag)
		return;
	if (kind == CUR_TRUNCATED)
		snprintf(t->msg, sizeof(t->msg), "truncated in %s (%zu of %zu bytes captured)",
			 what, caplen, wirelen);
	else
		snprintf(t->msg, sizeof(t->msg), "%s", what);
	struct diag d = { frame, c->err_off, layer ? layer : "transport", kind, t->msg };
	t->diag(&d, t->ctx);
}

/* ERF record: Ethernet-family records go to the RoCE parser, InfiniBand
 * records to the same LRH path as DLT_INFINIBAND. */
static int erf_frame(struct transport *t, struct cursor *c, struct ib_frame *f, uint8_t icrc_len)
{
	struct erf_hdr h;

	f->layer = "erf";
	if (erf_parse(c, &h) < 0)
		return -EBADMSG;
	if (h.flags & (ERF_FLAG_RXERR | ERF_FLAG_DSERR))
		t->st.erf_errors++;
	/* The record may be padded past the packet (rlen > 16 + wlen). */
	cur_clip(c, h.wlen);
	if (h.type == ERF_TYPE_INFINIBAND)
		return ib_parse_lrh_frame(c, h.wlen, f);
	if (erf_type_is_eth(h.type))
		return roce_parse_eth_icrc(c, c->off + h.wlen, f, icrc_len);
	if (h.type == ERF_TYPE_IPV4 || h.type == ERF_TYPE_IPV6)
		return roce_parse_ip_icrc(c, c->off + h.wlen, f, icrc_len);
	return 0;
}

/* IPoIB in datagram mode: a UD SEND to any QP but the GSI's whose
 * payload is the encapsulation header and IP.  The IP packet goes where
 * an Ethernet frame's would. */
static void ud_ipoib(struct transport *t, uint64_t ts, uint64_t frame, struct ib_frame *f,
		     const struct ib_pkt *p, size_t caplen, size_t wirelen)
{
	struct cursor pc = f->bth;
	if (!p->payload_cap || !cur_seek(&pc, p->payload_off, "IPoIB"))
		return;
	cur_clip(&pc, p->payload_cap);
	size_t wire_end = p->payload_off + p->payload_len;
	int rc = ipoib_parse_ud(&pc, wire_end, f);
	if (rc < 0) {
		report(t, frame, &pc, f->layer, caplen, wirelen);
		return;
	}
	if (!f->ip_ver)
		return;
	t->st.ipoib++;
	size_t cap_end = p->payload_off + p->payload_cap;
	if (f->net_off < cap_end)
		t->rn_used = rpc_net_packet(t->rn, ts, frame, f->bth.base + f->net_off, cap_end - f->net_off,
					    wire_end - f->net_off, f->net_off);
}

static void ud_packet(struct transport *t, uint64_t ts, uint64_t frame, struct ib_frame *f,
		      const struct ib_pkt *p, size_t caplen, size_t wirelen)
{
	t->st.ud_packets++;
	if (p->dqpn != GSI_QPN && p->op->kind == IBK_SEND_ONLY) {
		ud_ipoib(t, ts, frame, f, p, caplen, wirelen);
		return;
	}
	if (p->dqpn != GSI_QPN || !p->payload_len)
		return;
	/* The MAD is the UD payload; read it with a frame-relative cursor so
	 * a diagnostic points into the frame. */
	struct cursor mc = f->bth;
	if (!cur_seek(&mc, p->payload_off, "MAD"))
		return;
	cur_clip(&mc, p->payload_cap);
	struct cm_msg m;
	int rc = ib_cm_parse(&mc, &m);
	if (rc < 0) {
		if (p->payload_cap < p->payload_len)
			mc.err = CUR_TRUNCATED;
		report(t, frame, &mc, "cm", caplen, wirelen);
		return;
	}
	if (rc == 0)
		return;   /* another management class (SA, PerfMgt, ...) */
	t->st.cm_mads++;
	t->cm_frame = true;
	conn_cm(t->ct, ts, frame, f, &m);
}

static int parse_link(struct transport *t, struct cursor *c, size_t wirelen, struct ib_frame *f,
		      uint8_t icrc_len)
{
	f->layer = "transport";
	f->icrc_len = icrc_len;
	f->net_off = 0;
	f->ip_ver = 0;
	switch (t->linktype) {
	case LINKTYPE_ETHERNET:   return roce_parse_eth_icrc(c, wirelen, f, icrc_len);
	case LINKTYPE_LINUX_SLL:  return roce_parse_sll_icrc(c, wirelen, f, icrc_len);
	case LINKTYPE_LINUX_SLL2: return roce_parse_sll2_icrc(c, wirelen, f, icrc_len);
	case LINKTYPE_INFINIBAND: return ib_parse_lrh_frame(c, wirelen, f);
	case LINKTYPE_ERF:        return erf_frame(t, c, f, icrc_len);
	case LINKTYPE_IPOIB:      return ipoib_parse_frame(c, wirelen, f);
	default:
		/* transport_set_linktype refused it, or was never called */
		cur_fail(c, CUR_INVALID, "link type not set or not supported");
		return -EPROTONOSUPPORT;
	}
}

/* Bytes of extended headers an opcode carries. */
static size_t ext_hdr_len(uint16_t h)
{
	static const uint8_t len[] = { 4, 8, 4, 4, 16, 28, 4, 8, 4, 4 };
	size_t n = 0;
	for (unsigned i = 0; i < sizeof(len); i++)
		if (h & (1u << i))
			n += len[i];
	return n;
}

/* While the ICRC question is open: look at one RoCE packet (parsed as if
 * it had an ICRC).  Returns true when the packet was re-parsed into *f
 * because the capture turned out to have none. */
static bool icrc_learn(struct transport *t, const uint8_t *data, size_t caplen, size_t wirelen,
		       struct cursor *c, struct ib_frame *f, int *rc)
{
	if (*rc == 1 && roce_icrc_matches(data, caplen, f)) {
		t->icrc = ICRC_PRESENT;
		return false;
	}
	struct cursor c2 = cur_make(data, caplen);
	struct ib_frame f2;
	if (parse_link(t, &c2, wirelen, &f2, 0) == 1 &&
	    (f2.kind == IBF_ROCE_V2 || f2.kind == IBF_ROCE_V1) && f2.wire_len >= IB_BTH_LEN &&
	    cur_left(&f2.bth) >= 1) {
		const struct ib_opinfo *op = ib_opinfo(f2.bth.base[f2.bth.off]);
		size_t hdrs = IB_BTH_LEN + ext_hdr_len(op->hdrs);
		bool exact = op->kind != IBK_INVALID &&
			     ((!(op->hdrs & IBH_PAYLOAD) && f2.wire_len == hdrs) ||
			      (op->service == IBS_UD && f2.wire_len == hdrs + MAD_LEN));
		if (exact) {
			t->icrc = ICRC_ABSENT;
			t->st.icrc_absent = 1;
			t->st.icrc_absent_from = t->st.frames;
			*c = c2;
			*f = f2;
			*rc = 1;
			return true;
		}
	}
	if (++t->icrc_probes >= ICRC_PROBE_MAX)
		t->icrc = ICRC_PRESENT;
	return false;
}

static void packet_body(struct transport *t, uint64_t ts_ns, uint64_t frame_no,
			const uint8_t *data, size_t caplen, size_t wirelen);

void transport_packet(struct transport *t, uint64_t ts_ns, uint64_t frame_no,
		      const uint8_t *data, size_t caplen, size_t wirelen)
{
	if (!t->track) {
		packet_body(t, ts_ns, frame_no, data, caplen, wirelen);
		return;
	}
	conn_frame_used(t->ct, true);
	t->cm_frame = false;
	t->rn_used = false;
	packet_body(t, ts_ns, frame_no, data, caplen, wirelen);
	if (!conn_frame_used(t->ct, true) && !t->rn_used)
		frame_event(t, ts_ns, frame_no, t->cm_frame ? 1 : 2);
}

static void packet_body(struct transport *t, uint64_t ts_ns, uint64_t frame_no,
			const uint8_t *data, size_t caplen, size_t wirelen)
{
	struct cursor c = cur_make(data, caplen);
	struct ib_frame f;
	int rc;

	t->st.frames++;
	t->st.bytes += wirelen;
	if (wirelen < caplen)
		wirelen = caplen;
	rc = parse_link(t, &c, wirelen, &f, t->icrc == ICRC_ABSENT ? 0 : IB_ICRC_LEN);
	if (t->icrc == ICRC_UNKNOWN && t->linktype != LINKTYPE_INFINIBAND && t->linktype != LINKTYPE_IPOIB &&
	    (rc < 0 || (rc == 1 && (f.kind == IBF_ROCE_V2 || f.kind == IBF_ROCE_V1))))
		icrc_learn(t, data, caplen, wirelen, &c, &f, &rc);
	if (rc < 0) {
		report(t, frame_no, &c, f.layer, caplen, wirelen);
		return;
	}
	if (rc == 0) {
		t->st.non_rdma++;
		if (f.ip_ver && t->linktype == LINKTYPE_IPOIB)
			t->st.ipoib++;
		if (f.ip_ver && f.net_off < caplen)
			t->rn_used = rpc_net_packet(t->rn, ts_ns, frame_no, data + f.net_off, caplen - f.net_off,
						    wirelen - f.net_off, f.net_off);
		return;
	}

	struct ib_pkt p;
	if (ib_parse_bth(&f, &p) < 0) {
		report(t, frame_no, &f.bth, f.layer, caplen, wirelen);
		return;
	}
	switch (f.kind) {
	case IBF_ROCE_V2: t->st.roce_v2++; break;
	case IBF_ROCE_V1: t->st.roce_v1++; break;
	default:          t->st.ib_native++; break;
	}
	if (f.kind != IBF_IB && f.ecn == 3)
		t->st.ecn_ce++;

	switch (p.op->service) {
	case IBS_RC:
		t->st.rc_packets++;
		conn_rc(t->ct, ts_ns, frame_no, &f, &p);
		break;
	case IBS_UD:
		ud_packet(t, ts_ns, frame_no, &f, &p, caplen, wirelen);
		break;
	case IBS_UC:  t->st.uc_packets++; break;
	case IBS_RD:  t->st.rd_packets++; break;
	case IBS_XRC: t->st.xrc_packets++; break;
	case IBS_CNP: t->st.cnp_packets++; break;
	default: break;
	}
}

void transport_flush(struct transport *t)
{
	conn_flush(t->ct);
	rpc_net_flush(t->rn);
}

const struct transport_stats *transport_stats(const struct transport *t)
{
	return &t->st;
}

size_t transport_conn_count(const struct transport *t)
{
	return conn_count(t->ct);
}

const struct rdma_conn *transport_conn(const struct transport *t, size_t i)
{
	return conn_get(t->ct, i);
}

void transport_free(struct transport *t)
{
	if (!t)
		return;
	conn_table_free(t->ct);
	rpc_net_free(t->rn);
	free(t);
}
