#!/usr/bin/env bash
# nfsrdma-top batch mode ends (nfsrdma-top(1)):
#  - on capture files (-r), it prints the final snapshot once the file has
#    ended and exits 0 (-n N still stops after N snapshots);
#  - without the daemon (socket missing or refused) it exits 1 after
#    --connect-timeout seconds with one error line, nothing on stdout;
#  - the client view has a row per client and transport, as
#    nfsrdma-dissect -z client;
#  - the slowest list shows a phase an RPC did not have as '-' (text) and
#    null (JSON), never as 0;
#  - without -b or --json and without a terminal it says so and exits 1.
# Expected record counts are the kernel client's own (lib.sh truth_ops)
# and tshark's count of the mount's rpcbind/MOUNT calls over TCP (tcp_ops).
# Tier: golden (no root).
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=top-batch
TOP=$BIN/nfsrdma-top
[ -x "$TOP" ] || cannot $NAME "$TOP not built"
CAP=$CAPS/nfs3-metadata.pcap
total=$({ truth_ops "$CAPS/nfs3-metadata.truth/client.trace"; tcp_ops "$CAP"; } | awk '{ s += $3 } END { print s + 0 }')
[ "${total:-0}" -gt 0 ] || cannot $NAME "no ground truth in nfs3-metadata.truth"

# run SECONDS OUT ERR ARGS...: runs nfsrdma-top with a hard limit; sets rc
# (124 when it had to be stopped) and elapsed (whole seconds)
run() {
	local lim=$1 out=$2 err=$3 t0; shift 3
	t0=$(date +%s.%N)
	timeout "$lim" "$TOP" "$@" >"$out" 2>"$err"; rc=$?
	elapsed=$(echo "$(date +%s.%N) - $t0" | bc)
}
snaps() { grep -c '^OPERATION ' "$1"; }
records() { awk '/^records /{ r = $2 } END { print r + 0 }' "$1"; }

# ---- capture files: the end of the file ends batch mode ----
run 20 "$TMP/b.txt" "$TMP/b.err" -b -r "$CAP"
check "-b -r: exits 0 by itself at the end of the file (exit $rc, ${elapsed}s)" [ "$rc" = 0 ]
check "-b -r: exactly one snapshot, the final one ($(snaps "$TMP/b.txt"))" [ "$(snaps "$TMP/b.txt")" = 1 ]
check "-b -r: the final snapshot holds every RPC of the capture ($(records "$TMP/b.txt") = $total)" \
	[ "$(records "$TMP/b.txt")" = "$total" ]
check "-b -r: nothing on stderr" [ ! -s "$TMP/b.err" ]

run 20 "$TMP/j.txt" "$TMP/j.err" --json -r "$CAP"
check "--json -r: exits 0 with exactly one JSON object (exit $rc, $(wc -l <"$TMP/j.txt") lines)" \
	bash -c "[ $rc = 0 ] && [ \$(wc -l <'$TMP/j.txt') = 1 ]"
check "--json -r: its totals are the capture's ($total RPCs)" python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); sys.exit(0 if d["totals"]["records"]==int(sys.argv[2]) else 1)' "$TMP/j.txt" "$total"

# at the recorded pace the file lasts about ten seconds: -n 3 every 0.1 s
# stops long before the end, after exactly 3 snapshots
run 60 "$TMP/n.txt" "$TMP/n.err" -b -n 3 -d 0.1 --speed 1 -r "$CAP"
check "-b -n 3 --speed 1: exit 0 after exactly 3 snapshots (exit $rc, $(snaps "$TMP/n.txt"))" \
	bash -c "[ $rc = 0 ] && [ $(snaps "$TMP/n.txt") = 3 ]"
# without -n: snapshots while the file plays, then the final one, then exit
run 30 "$TMP/p.txt" "$TMP/p.err" -b -d 0.3 --speed 10 -r "$CAP"
check "-b --speed 10: exits 0 at the end of the file (exit $rc)" [ "$rc" = 0 ]
check "-b --speed 10: the last snapshot holds every RPC ($(records "$TMP/p.txt") = $total)" \
	[ "$(records "$TMP/p.txt")" = "$total" ]

# ---- no terminal and no -b: the screen is not started ----
# (to a file or a pipe it wrote escape codes and ran until killed)
run 10 "$TMP/t.txt" "$TMP/t.err" -r "$CAP" </dev/null
check "no -b, stdout a file: exit 1 at once, nothing on stdout (exit $rc, ${elapsed}s)" \
	bash -c "[ $rc = 1 ] && [ ! -s '$TMP/t.txt' ]"
check "no -b, stdout a file: one line naming -b and --json ($(head -c 160 "$TMP/t.err"))" \
	bash -c "[ \$(wc -l <'$TMP/t.err') = 1 ] && grep -q 'the screen needs a terminal (standard output is not one): -b' '$TMP/t.err'"

# ---- no daemon: one line, exit 1, in bounded time ----
run 60 "$TMP/m.txt" "$TMP/m.err" -b --socket "$TMP/missing.sock" --connect-timeout 2
check "missing socket, --connect-timeout 2: exit 1 (exit $rc)" [ "$rc" = 1 ]
check "missing socket: gave up no sooner than 2 s, by itself (${elapsed}s, exit $rc: 124 would be timeout's)" \
	bash -c "[ \$(echo '$elapsed >= 2' | bc) = 1 ] && [ $rc != 124 ]"
check "missing socket: exactly one stderr line naming the socket and the reason: $(head -c 200 "$TMP/m.err")" \
	bash -c "[ \$(wc -l <'$TMP/m.err') = 1 ] && grep -q 'cannot reach nfsrdmad at $TMP/missing.sock: No such file or directory' '$TMP/m.err'"
check "missing socket: nothing on stdout" [ ! -s "$TMP/m.txt" ]

# a socket file nobody listens on (a daemon that died): refused
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$TMP/stale.sock"
run 20 "$TMP/r.txt" "$TMP/r.err" --json --socket "$TMP/stale.sock" --connect-timeout 1
check "refused socket, --json: exit 1 with one line saying refused (exit $rc): $(head -c 200 "$TMP/r.err")" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <'$TMP/r.err') = 1 ] && grep -q 'Connection refused' '$TMP/r.err' && [ ! -s '$TMP/r.txt' ]"

# the default bound is 10 s
run 90 "$TMP/d.txt" "$TMP/d.err" -b --socket "$TMP/missing.sock"
check "missing socket, default: exit 1 by itself, no sooner than 10 s (exit $rc, ${elapsed}s)" \
	bash -c "[ $rc = 1 ] && [ \$(echo '$elapsed >= 10' | bc) = 1 ]"

# a daemon that appears within the bound is used: no error, a snapshot.
# It starts on another path and, once it has read the file, its socket is
# renamed to where top looks, so the snapshot holds every RPC.
SOCK=$TMP/late.sock
"$TOP" -b -n 1 -d 0.5 --socket "$SOCK" --connect-timeout 30 >"$TMP/l.txt" 2>"$TMP/l.err" &
tpid=$!
PIDS+=($tpid)
"$BIN/nfsrdmad" --source "pcap:$CAP" --socket "$TMP/early.sock" --metrics none >"$TMP/daemon.out" 2>"$TMP/daemon.err" &
PIDS+=($!)
daemon_has_all() {
	"$TOP" -b -n 1 -d 0.2 --socket "$TMP/early.sock" >"$TMP/early.txt" 2>&1 && [ "$(records "$TMP/early.txt")" = "$total" ]
}
check "the late daemon has read the capture (all $total RPCs)" wait_for 10 daemon_has_all
sleep 1.5
mv "$TMP/early.sock" "$SOCK"
wait "$tpid"; rc=$?
n=$(records "$TMP/l.txt")
check "daemon appearing 1.5 s late: reconnects, exit 0, one daemon snapshot of every RPC, no error (exit $rc, $n of $total)" \
	bash -c "[ $rc = 0 ] && [ $(snaps "$TMP/l.txt") = 1 ] && grep -q 'feed: daemon ' '$TMP/l.txt' && [ $n = $total ] && [ ! -s '$TMP/l.err' ]"
# --json: the slowest RPCs slowest first, each with its split, which adds
# up to its total; --filter applies to them as to the rows
"$TOP" -b -n 1 --json --filter READ -r "$SRC/tests/captures/smoke.pcap" >"$TMP/slow.json" 2>/dev/null
check "--json slow list: slowest first, split adds up, filter applied" python3 - "$TMP/slow.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read())["slow"]
tot = [x["total_ns"] for x in s]
ok = len(s) > 0 and tot == sorted(tot, reverse=True)
ok = ok and all(sum(v for v in x["split_ns"].values() if v is not None) == x["total_ns"] for x in s)
ok = ok and all("READ" in x["op"].upper() or "READ" in x["client"] for x in s)
print(len(s), tot[:3]); sys.exit(0 if ok else 1)
PY
# ---- absent phases are not 0: over TCP an RPC has no pull, push or wait ----
"$TOP" --json -r "$SRC/tests/captures/nfs3-tcp.pcap" >"$TMP/tcp.json" 2>/dev/null
"$TOP" -b -r "$SRC/tests/captures/nfs3-tcp.pcap" >"$TMP/tcp.txt" 2>/dev/null
check "--json slow list over TCP: pull, push, wait null; call, queue+server, reply numbers" python3 - "$TMP/tcp.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read())["slow"]
ok = len(s) > 0
for x in s:
    sp = x["split_ns"]
    ok = ok and all(sp[k] is None for k in ("queue", "pull", "server", "push", "wait"))
    ok = ok and all(isinstance(sp[k], int) for k in ("call", "queue+server", "reply"))
    ok = ok and sp["call"] + sp["queue+server"] + sp["reply"] == x["total_ns"]
print(len(s), s[0]["split_ns"] if s else None); sys.exit(0 if ok else 1)
PY
check "-b slow list over TCP: absent phases '-', not 0.0" python3 - "$TMP/tcp.txt" <<'PY'
import re, sys
rows = [l.split()[-1] for l in open(sys.argv[1]) if re.match(r"0x[0-9a-f]{8} ", l)]
ok = len(rows) > 0 and all(re.fullmatch(r"[0-9.]+/-/-/-/[0-9.]+/-/-/[0-9.]+", r) for r in rows)
print(len(rows), rows[:2]); sys.exit(0 if ok else 1)
PY

# ---- one client over RDMA and over TCP: two rows, named as dissect -z client names them ----
MC=$SRC/tests/captures/multi-client.pcap
"$TOP" --json --view client -r "$MC" >"$TMP/cl.json" 2>/dev/null
"$BIN/nfsrdma-dissect" -q -z client --json "$MC" >"$TMP/cl.dis" 2>/dev/null
check "--view client: the rows and counts of nfsrdma-dissect -z client (a TCP client its own row)" python3 - "$TMP/cl.json" "$TMP/cl.dis" <<'PY'
import json, sys
top = {r["key"]: r["calls"] for r in json.loads(open(sys.argv[1]).read())["rows"]}
dis = {o["key"]: o["calls"] for o in map(json.loads, open(sys.argv[2])) if o.get("type") == "summary"}
ok = top == dis and any(k.endswith(" tcp") and k[:-4] in top for k in top)
print(sorted(top.items()), sorted(dis.items())); sys.exit(0 if ok else 1)
PY
"$TOP" --json --view conn -r "$MC" >"$TMP/cn.json" 2>/dev/null
"$BIN/nfsrdma-dissect" -q -z conn --json "$MC" >"$TMP/cn.dis" 2>/dev/null
check "--view conn: the rows and counts of nfsrdma-dissect -z conn (a TCP connection named so)" python3 - "$TMP/cn.json" "$TMP/cn.dis" <<'PY'
import json, sys
top = {r["key"]: r["calls"] for r in json.loads(open(sys.argv[1]).read())["rows"]}
dis = {o["key"]: o["calls"] for o in map(json.loads, open(sys.argv[2])) if o.get("type") == "summary"}
ok = top == dis and any(k.endswith(" tcp") for k in top)
print(sorted(top.items())[:3], sorted(dis.items())[:3]); sys.exit(0 if ok else 1)
PY
"$TOP" -b --view client --transport tcp -r "$MC" >"$TMP/cl.txt" 2>/dev/null
check "--view client --transport tcp: only the TCP client rows" python3 - "$TMP/cl.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = next(i for i, l in enumerate(lines) if l.startswith("CLIENT "))
rows = [l.split()[:2] for l in lines[i + 1:] if l.strip() and l[0].isdigit()]
rows = [r for r in rows if not r[0].startswith("0x")]
ok = len(rows) > 0 and all(r[1] == "tcp" for r in rows)
print(rows); sys.exit(0 if ok else 1)
PY

# ---- an empty table says why ----
"$TOP" -b --filter ZZZ-no-such-op -r "$SRC/tests/captures/smoke.pcap" >"$TMP/empty.txt" 2>/dev/null
check "-b --filter matching nothing: the empty table says why" grep -q '^(no row: [0-9]* op row(s), none matches --filter/--transport)$' "$TMP/empty.txt"

# ---- JSON Lines records: their own time is the clock, as for a capture ----
JL=$SRC/tests/join/fixtures/v3-wire-nfs3-read-write.jsonl
"$TOP" --json --source "jsonl:$JL" >"$TMP/jl.json" 2>/dev/null
check "--source jsonl: the snapshot's time is the last record's, not the wall clock" python3 - "$JL" "$TMP/jl.json" <<'PY'
import json, sys
last = max(max(json.loads(l)["ts"].values()) for l in open(sys.argv[1]) if l.strip())
t = json.loads(open(sys.argv[2]).read())["t"]
print(t, last); sys.exit(0 if t == last else 1)
PY
finish $NAME
