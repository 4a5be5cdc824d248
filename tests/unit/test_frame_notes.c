/* dissect_cbs.frame_note on real and generated captures: every frame of
 * the capture is noted exactly once; an RPC's frames come right after its
 * record, in frame order, with the record's connection and XID; the call's
 * and the reply's first frames have those roles; RDMA READ / WRITE frames
 * and ACKs are where the record says; and the records are the same with
 * and without notes (frame tracking changes nothing else). */
#include "check.h"

#include <unistd.h>

#include "dissect/dissect.h"
#include "dissect/transport.h"
#include "pcap/dissect_run.h"

#define MAXF 400000

static uint8_t seen[MAXF];
static uint64_t nnotes, twice, nrec, in_rec_order_bad, rec_mismatch;
static uint64_t roles[16];
static uint64_t last_rec_frame, acks_tied;
static struct nfsrdma_record last;
static bool have_last, call_ok, reply_ok, bad_call_role, bad_reply_role;
static uint64_t rpc_reads, rpc_writes, note_reads, note_writes;

static void check_last(void)
{
	if (!have_last)
		return;
	if (last.flags & 1 /* RECF_CALL */ && !call_ok)
		bad_call_role = true;
	if (last.flags & 2 /* RECF_REPLY */ && !reply_ok)
		bad_reply_role = true;
	have_last = false;
}

static void on_rec(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	check_last();
	nrec++;
	last = *r;
	have_last = true;
	call_ok = reply_ok = false;
	last_rec_frame = 0;
	rpc_reads += r->n_rdma_reads;
	rpc_writes += r->n_rdma_writes;
}

static void on_note(const struct dissect_frame_note *n, void *ctx)
{
	nnotes++;
	if (n->frame < MAXF) {
		if (seen[n->frame])
			twice++;
		seen[n->frame] = 1;
	}
	if (n->role < 16)
		roles[n->role]++;
	if (n->rec) {
		if (!have_last || n->rec->xid != last.xid || n->rec->conn_id != last.conn_id ||
		    n->xid != n->rec->xid || n->conn_id != n->rec->conn_id)
			rec_mismatch++;
		if (n->frame < last_rec_frame)
			in_rec_order_bad++;
		last_rec_frame = n->frame;
		if (n->role == DFR_CALL && n->frame == n->rec->frame_call)
			call_ok = true;
		if (n->role == DFR_REPLY && n->frame == n->rec->frame_reply)
			reply_ok = true;
		if (n->role == DFR_READ_REQ)
			note_reads++;
		if (n->role == DFR_ACK)
			acks_tied++;
	} else if (n->role == DFR_ACK && n->xid) {
		acks_tied++;
	}
	if (n->role == DFR_WRITE && n->rec)
		note_writes++;
}

static uint64_t records_without_notes(const char *path)
{
	struct count { uint64_t n; } c = { 0 };
	struct dissect_cbs cbs = { NULL, NULL, NULL, &c, NULL };
	struct dissect *d = dissect_new(NULL, &cbs);
	char err[256];
	dissect_file(d, path, err, sizeof(err));
	uint64_t n = dissect_stats(d)->records;
	dissect_free(d);
	return n;
}

static void run(const char *path, bool has_acks)
{
	memset(seen, 0, sizeof(seen));
	memset(roles, 0, sizeof(roles));
	nnotes = twice = nrec = in_rec_order_bad = rec_mismatch = acks_tied = 0;
	rpc_reads = rpc_writes = note_reads = note_writes = 0;
	have_last = bad_call_role = bad_reply_role = false;
	struct dissect_cbs cbs = { on_rec, NULL, NULL, NULL, on_note };
	struct dissect *d = dissect_new(NULL, &cbs);
	char err[256];
	if (!d || dissect_file(d, path, err, sizeof(err)) < 0) {
		CHECK(0, "%s: cannot dissect", path);
		dissect_free(d);
		return;
	}
	check_last();
	const struct transport_stats *ts = dissect_transport_stats(d);
	uint64_t frames = ts ? ts->frames : 0, missing = 0;
	for (uint64_t f = 1; f <= frames && f < MAXF; f++)
		missing += !seen[f];
	CHECK(frames > 0 && frames < MAXF, "%s: %llu frames", path, (unsigned long long)frames);
	CHECK(nnotes == frames && !twice && !missing, "%s: %llu notes for %llu frames (%llu twice, %llu never)",
	      path, (unsigned long long)nnotes, (unsigned long long)frames, (unsigned long long)twice,
	      (unsigned long long)missing);
	CHECK(!rec_mismatch, "%s: %llu notes name another RPC than the record just delivered", path,
	      (unsigned long long)rec_mismatch);
	CHECK(!in_rec_order_bad, "%s: an RPC's notes are not in frame order", path);
	CHECK(!bad_call_role && !bad_reply_role, "%s: a record's call/reply frame is not noted as such", path);
	CHECK(note_reads == rpc_reads, "%s: %llu READ requests noted, records count %llu", path,
	      (unsigned long long)note_reads, (unsigned long long)rpc_reads);
	CHECK(note_writes >= rpc_writes, "%s: %llu WRITE frames noted, records count %llu WRITEs", path,
	      (unsigned long long)note_writes, (unsigned long long)rpc_writes);
	CHECK(roles[DFR_ACK] == (ts ? ts->acks + ts->naks : 0), "%s: %llu ACK notes, %llu ACK/NAK packets", path,
	      (unsigned long long)roles[DFR_ACK], (unsigned long long)(ts ? ts->acks + ts->naks : 0));
	if (has_acks)
		CHECK(acks_tied * 10 >= roles[DFR_ACK] * 9, "%s: only %llu of %llu ACKs tied to an RPC", path,
		      (unsigned long long)acks_tied, (unsigned long long)roles[DFR_ACK]);
	CHECK(roles[DFR_CM] == (ts ? ts->cm_mads : 0), "%s: %llu CM notes, %llu CM MADs", path,
	      (unsigned long long)roles[DFR_CM], (unsigned long long)(ts ? ts->cm_mads : 0));
	uint64_t plain = records_without_notes(path);
	CHECK(plain == nrec, "%s: %llu records with notes, %llu without", path, (unsigned long long)nrec,
	      (unsigned long long)plain);
	dissect_free(d);
}

int main(int argc, char **argv)
{
	const char *top = getenv("NFSRDMA_SRCDIR");
	char p[1024];
	static const char *const lab[] = { "smoke", "nfs3-read-write", "nfs3-symlink", "nfs3-readdirplus",
					   "parallel", "midconn", "nfs41", "server-restart", "perftest" };
	for (size_t i = 0; i < sizeof(lab) / sizeof(lab[0]); i++) {
		snprintf(p, sizeof(p), "%s/tests/captures/%s.pcap", top ? top : ".", lab[i]);
		if (access(p, R_OK) == 0)
			run(p, strcmp(lab[i], "perftest") != 0);
	}
	static const char *const gen[] = { "xdr-v2-draft07", "xdr-v2-draft00", "conv-ib-grh", "conv-erf-ib",
					   "xdr-f-rdma-unmatched", "xdr-nfs41-callback" };
	for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
		snprintf(p, sizeof(p), "%s/tests/gen/out/%s.pcap", top ? top : ".", gen[i]);
		if (access(p, R_OK) == 0)
			run(p, false);
	}
	/* real NFSv4.1 backchannel (CB_RECALL on the client's connection) */
	snprintf(p, sizeof(p), "%s/tests/gen/real/nfs41-recall.pcap", top ? top : ".");
	if (access(p, R_OK) == 0)
		run(p, true);
	(void)argc;
	(void)argv;
	return check_summary("test_frame_notes");
}
