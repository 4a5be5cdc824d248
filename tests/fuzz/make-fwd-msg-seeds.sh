#!/usr/bin/env bash
# Seeds of fuzz_fwd_msg (tests/fuzz/seeds/fwd_msg/v4-*.bin): forwarded
# messages of this build's record version, encoded by fwd_msg_encode from
# records of the lab captures: a wire NFSv4.1 COMPOUND (ops), a wire NFSv3
# WRITE and READ (chunks, RDMA operations), an XDP one, client and server
# probe records as version 4 (vantages, each vantage's times) and as
# version 3 (what nfsrdmad wrote before: a message may carry an older
# record), and an END.  The older seeds
# (record version 3 in the header: refused as another version) stay.
#   O=build tests/fuzz/make-fwd-msg-seeds.sh [OUTDIR]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
case "$O" in /*) ;; *) O=$SRC/$O ;; esac
OUT=${1:-$SRC/tests/fuzz/seeds/fwd_msg}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
[ -r "$O/libnfsrdma.a" ] && [ -x "$O/bin/nfsrdma-dissect" ] || { echo "$0: build first (make O=$O)"; exit 1; }
cat >"$TMP/gen.c" <<'EOF'
/* gen OUT NAME KIND < one JSON record line: KIND v4 (as read), probe4 (a
 * v3 probe record given its version 4 vantage fields), xdp, end */
#include <stdio.h>
#include <string.h>

#include "src/daemon/fwd_msg.h"
#include "src/join/fuse.h"
#include "src/join/rec_json.h"

int main(int argc, char **argv)
{
	static char line[1 << 20];
	static struct nfsrdma_record r;
	static uint8_t buf[FWD_MSG_MAX];
	char err[200], path[4096];
	struct fwd_meta m = { .kind = FWD_KIND_RECORD, .session = 0x5eed5eed12345678ull, .seq = 41,
			      .dropped = 2, .realtime_ns = 1795302772000000000ull, .mono_ns = 12867571000ull };
	size_t n;

	if (argc != 4)
		return 2;
	snprintf(m.host, sizeof(m.host), "%s", strstr(argv[2], "server") ? "nfs-server" : "nfs-client");
	if (!strcmp(argv[3], "end")) {
		m.kind = FWD_KIND_END;
		m.vantage = REC_SRC_CLIENT_PROBE;
		n = fwd_msg_encode_end(buf, &m);
	} else {
		if (!fgets(line, sizeof(line), stdin) || rec_json_parse(line, strlen(line), &r, err, sizeof(err))) {
			fprintf(stderr, "gen %s: %s\n", argv[2], err);
			return 1;
		}
		if (!strcmp(argv[3], "probe4")) {
			r.rec_version = NFSRDMA_RECORD_VERSION;
			if (r.source == REC_SRC_CLIENT_PROBE) {
				r.vantages = REC_VT_CLIENT;
				fuse_client_times(&r, r.vt_client);
			} else {
				r.vantages = REC_VT_SERVER;
				fuse_server_times(&r, r.vt_server);
			}
		}
		if (!strcmp(argv[3], "xdp"))
			r.source = REC_SRC_XDP;
		m.vantage = r.source;
		n = fwd_msg_encode(buf, &m, &r);
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], argv[2]);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
		return 1;
	/* a seed must decode: else it tests the version check alone */
	struct fwd_meta m2;
	size_t off;
	return fwd_msg_decode(buf, n, &m2, &r, &off) == 0 ? 0 : 3;
}
EOF
cc -std=gnu11 -O1 -D_GNU_SOURCE -I"$SRC" "$TMP/gen.c" -o "$TMP/gen" "$O/libnfsrdma.a" \
	$(make -s --no-print-directory -C "$SRC" print-ldlibs)
mkdir -p "$OUT"
D="$O/bin/nfsrdma-dissect"
T="$SRC/tests/captures"
pick() { python3 -c 'import json,sys
for l in sys.stdin:
    o = json.loads(l)
    if "v" in o and eval(sys.argv[1]):
        print(l, end=""); break' "$1"; }
"$D" "$T/nfs41.pcap" --json 2>/dev/null | pick 'len(o.get("ops", [])) >= 4' | "$TMP/gen" "$OUT" v4-wire-compound.bin v4
"$D" "$T/nfs3-read-write.pcap" --json 2>/dev/null | pick 'o.get("procedure") == "WRITE" and o["chunks"]["rdma_reads"]' |
	"$TMP/gen" "$OUT" v4-wire-write-read-chunk.bin v4
"$D" "$T/nfs3-read-write.pcap" --json 2>/dev/null | pick 'o.get("procedure") == "READ" and o["chunks"]["rdma_writes"]' |
	"$TMP/gen" "$OUT" v4-xdp-read-write-chunk.bin xdp
for side in client server; do
	python3 "$SRC/tests/join/trace2records.py" $side "$T/nfs3-read-write.truth/$side.trace" > "$TMP/$side.jsonl"
	pick 'o.get("name") == "WRITE"' < "$TMP/$side.jsonl" | "$TMP/gen" "$OUT" "v4-$side-probe.bin" probe4
	pick 'o.get("name") == "READ"' < "$TMP/$side.jsonl" | "$TMP/gen" "$OUT" "v4-$side-probe-record-v3.bin" v4
done
"$TMP/gen" "$OUT" v4-end.bin end </dev/null
ls -l "$OUT"
