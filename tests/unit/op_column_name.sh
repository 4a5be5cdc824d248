#!/usr/bin/env bash
# The column naming an RPC's procedure (NFSv4: the COMPOUND's main
# operation) reads "operation" in every table a person reads, in each
# table's case: nfsrdma-dissect -z proc (its header and its "== summary /
# diagnosis per" titles), --compare, --csv's header, nfsrdma-top -b
# (OPERATION, and the slowest list's operation).  -z and --csv said
# "procedure", top OPERATION and operation.  JSON keys stay ("procedure",
# the name, beside "proc", the number: docs/record.md).
# Closing line: "op-column-name: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
X=$O/bin/nfsrdma-dissect T=$O/bin/nfsrdma-top
NAME=op-column-name
CAP=tests/captures/nfs3-read-write.pcap
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); echo "ok   $d"; else fail=$((fail + 1)); echo "FAIL $d"; fi; }
if [ ! -x "$X" ] || [ ! -x "$T" ]; then
	echo "$NAME: cannot run: $X or $T not built"; echo "$NAME: 0 passed, 1 failed"; exit 1
fi
z=$("$X" -q -z proc "$CAP" 2>/dev/null)
check "-z proc: the table's first column is 'operation' ($(sed -n 2p <<<"$z" | cut -c1-20))" \
	bash -c '[ "$(sed -n 2p <<<"$1" | awk "{ print \$1 }")" = operation ]' _ "$z"
check "-z proc: '== summary per operation ==' and '== diagnosis per operation'" \
	bash -c 'grep -qx "== summary per operation ==" <<<"$1" && grep -q "^== diagnosis per operation " <<<"$1"' _ "$z"
check "-z proc: no 'procedure' in any title or header" bash -c '! grep -qi procedure <<<"$1"' _ "$z"
csvh=$("$X" --csv "$CAP" 2>/dev/null | head -1)
check "--csv: column 7 is 'operation' ($(cut -d, -f7 <<<"$csvh"))" [ "$(cut -d, -f7 <<<"$csvh")" = operation ]
check "--csv: no column 'procedure'" bash -c '! tr , "\n" <<<"$1" | grep -qx procedure' _ "$csvh"
cmp=$("$X" --compare tests/captures/smoke.pcap "$CAP" 2>/dev/null)
check "--compare: 'operation' heads the table" bash -c 'grep -q "^operation  *metric " <<<"$1"' _ "$cmp"
top=$("$T" -b -r "$CAP" 2>/dev/null)
check "top -b: the table's header starts OPERATION" bash -c 'grep -q "^OPERATION  *records " <<<"$1"' _ "$top"
check "top -b: the slowest list's header names 'operation'" bash -c 'grep -q "^xid  *conn operation  *client " <<<"$1"' _ "$top"
echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
