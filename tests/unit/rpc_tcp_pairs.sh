#!/usr/bin/env bash
# RPCs over TCP paired (call and reply both in one record) by
# nfsrdma-dissect against rpc_tcp_truth.py, which counts them from the
# TCP payload alone (sequence order, first copy of a byte wins, record
# marks from the SYN; no nfsrdma code): the bad-input capture whose
# replies come out before their calls, the lab's NFSv3/TCP capture and
# every third-party capture (skipped, saying so, when ../shared is
# absent).  Closing line: "rpc-tcp-pairs: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
pass=0 fail=0
caps=(tests/badinput/rpc_net/overlap-reply-first.pcap tests/captures/nfs3-tcp.pcap)
if [ -d ../shared/captures/third-party ]; then
	caps+=(../shared/captures/third-party/*.pcap)
else
	echo "rpc-tcp-pairs: ../shared/captures/third-party absent: its captures not checked"
fi
for f in "${caps[@]}"; do
	truth=$(python3 tests/unit/rpc_tcp_truth.py "$f")
	want=$(set -- $truth; echo "$2")
	unsynced=${truth##* }
	got=$("$BIN" --json "$f" 2>/dev/null | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if (lambda r: r.get("transport") == "tcp" and r["flags"] & 3 == 3)(json.loads(l))))')
	# a direction whose SYN is not in the capture is not counted by the
	# truth; its RPCs may be ours, so there we only ask for at least as many
	if [ "$got" = "$want" ] || { [ "$unsynced" != 0 ] && [ "$got" -ge "$want" ]; }; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL rpc-tcp-pairs: $f: $got paired, the payload says $want ($truth)"
	fi
done
echo "rpc-tcp-pairs: $pass passed, $fail failed"
[ $fail -eq 0 ]
