#!/usr/bin/env bash
# nfsrdmad --forward / --collect on loopback, real ZeroMQ: a capture's
# records all reach the collector, JSON for JSON what the dissector
# prints; a forwarder whose address is not allowed is refused and
# counted; the collector restarting mid-run loses nothing it does not
# count (forwarder: records = sent + dropped; collector: sent = earlier +
# received + lost); the configuration errors exit 2 with one line.
# nfsrdma-top shows the collector's forwarders.  Tier: unit (loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-forward
D=$BIN/nfsrdmad
X=$BIN/nfsrdma-dissect
[ -x "$D" ] && [ -x "$X" ] || cannot $NAME "$D or $X not built"
CAP=$CAPS/nfs3-readdirplus.pcap
[ -f "$CAP" ] || cannot $NAME "$CAP missing"
command -v python3 >/dev/null || cannot $NAME "python3 missing"

# last JSON summary of FILE, one field by a Python expression on s
summary() { # FILE EXPR
	python3 - "$1" "$2" <<'PY'
import json, sys
s = None
for line in open(sys.argv[1]):
    if line.startswith('{"type":"daemon_summary"'):
        s = json.loads(line)["summary"]
print(eval(sys.argv[2]) if s is not None else "none")
PY
}
# the collector's count of records received, from /metrics
received() { curl -s "http://127.0.0.1:$1/metrics" | awk '/^nfsrdma_collect_records_total.*result="received"/ { n += $2 } END { print n + 0 }'; }

want=$("$X" --json "$CAP" 2>/dev/null | wc -l)
[ "$want" -gt 100 ] || cannot $NAME "the dissector found only $want records in $CAP"

# ---- every record arrives, as the dissector decodes it ----
P=$(free_port); M=$(free_port)
"$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.1 --socket "$TMP/c.sock" --metrics 127.0.0.1:$M --json \
	--summary-interval 0.2 >"$TMP/c.json" 2>"$TMP/c.err" & C=$!; PIDS+=($C)
wait_for 5 curl -sf "http://127.0.0.1:$M/metrics" -o /dev/null
"$D" --forward 127.0.0.1:$P --host-name client-a --source "$CAP" --exit-at-end --socket none --metrics none --json \
	>"$TMP/f.json" 2>"$TMP/f.err"
check "forwarder exits 0" [ $? -eq 0 ]
received_ge() { [ "$(received "$1")" -ge "$2" ]; }
wait_for 10 received_ge $M "$want"
"$BIN/nfsrdma-top" -b -n 1 --socket "$TMP/c.sock" >"$TMP/top.txt" 2>"$TMP/top.err"
check "nfsrdma-top shows the forwarder and its counts" \
	grep -q "^forwarder client-a (127.0.0.1): received $want  dropped there 0  lost 0  malformed 0  refused 0" "$TMP/top.txt"
kill "$C"; wait "$C"
check "forwarder: sent $want, dropped 0" [ "$(summary "$TMP/f.json" 's["forward"]["sent"], s["forward"]["dropped"]')" = "($want, 0)" ]
check "collector: received $want from client-a, nothing lost or malformed" \
	[ "$(summary "$TMP/c.json" '[(p["host"], p["received"], p["lost"], p["malformed"]) for p in s["collect"]["peers"]]')" = "[('client-a', $want, 0, 0)]" ]
grep '"xid"' "$TMP/c.json" | sort >"$TMP/got"
# the collector joins: a wire record alone comes out fused, as the
# offline join of the capture with no other vantage prints it
: >"$TMP/none.jsonl"
"$X" --json "$CAP" --join "$TMP/none.jsonl" 2>/dev/null | grep '"xid"' | sort >"$TMP/exp"
# (the collector expects all three vantages: each wire-only RPC leaves its
# window partial, fuse_flags 32 = evicted; offline, the wire is all it expects)
nofuse() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); f = r.pop("fuse_flags", None); print(f, json.dumps(r, sort_keys=True))' "$1" | sort; }
nofuse "$TMP/got" >"$TMP/got.n"; nofuse "$TMP/exp" >"$TMP/exp.n"
check "collector's JSON Lines = the dissector's --join, record for record (but fuse_flags)" \
	cmp -s <(cut -d' ' -f2- "$TMP/got.n" | sort) <(cut -d' ' -f2- "$TMP/exp.n" | sort)
check "collector: every wire-only RPC flagged evicted (partial), offline none" \
	[ "$(cut -d' ' -f1 "$TMP/got.n" | sort -u)/$(cut -d' ' -f1 "$TMP/exp.n" | sort -u)" = "32/0" ]
check "collector: no warnings" [ ! -s "$TMP/c.err" ]

# ---- a forwarder from an address not allowed: refused, counted ----
P=$(free_port)
"$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.2 --socket none --metrics none --json \
	--summary-interval 0.2 >"$TMP/c2.json" 2>"$TMP/c2.err" & C=$!; PIDS+=($C)
listening() { [ -n "$(ss -Htln "sport = :$1")" ]; }
wait_for 30 listening "$P" || bad "the collector on port $P never listened"
timeout 20 "$D" --forward 127.0.0.1:$P --source "$CAP" --exit-at-end --socket none --metrics none --json \
	>"$TMP/f2.json" 2>"$TMP/f2.err"
# the refusal is logged when it is counted: wait for it, not for a time
wait_for 30 grep -q "refused 127.0.0.1" "$TMP/c2.err"
kill "$C"; wait "$C"
check "not allowed: refused and counted, nothing received" \
	[ "$(summary "$TMP/c2.json" '(s["collect"]["refused"] > 0, s["collect"]["received"])')" = "(True, 0)" ]
check "not allowed: the refusal is logged with the address" grep -q "refused 127.0.0.1 (address not in --collect-allow)" "$TMP/c2.err"

# ---- the collector restarts mid-run ----
# A capture whose records span 17 s (cut to start where they do), replayed
# five times faster; the steps wait on the forwarder's own counters.
command -v editcap >/dev/null || cannot $NAME "editcap (tshark's package) missing"
RCAP=$TMP/metadata-cut.pcap
editcap -A 1795634185.0 "$CAPS/nfs3-metadata-k6.12.pcap" "$RCAP" || cannot $NAME "editcap failed"
rwant=$("$X" --json "$RCAP" 2>/dev/null | wc -l)
[ "$rwant" -eq 171 ] || bad "the cut capture has $rwant records, not 171"
fwd() { curl -s "http://127.0.0.1:$1/metrics" | awk -v r="result=\"$2\"" 'index($0, "nfsrdma_forward_records_total") == 1 && index($0, r) { n += $2 } END { print n + 0 }'; }
P=$(free_port); M=$(free_port); M2=$(free_port); MF=$(free_port)
coll() { exec "$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.1 --socket none --metrics 127.0.0.1:$2 --json \
	--summary-interval 0.2 --forward-queue 20 >"$1" 2>>"$TMP/r.err"; }
coll "$TMP/r1.json" $M & C=$!; PIDS+=($C)
wait_for 5 curl -sf "http://127.0.0.1:$M/metrics" -o /dev/null
"$D" --forward 127.0.0.1:$P --forward-queue 20 --source "$RCAP" --speed 5 --summary-interval 1 --socket none \
	--metrics 127.0.0.1:$MF --json >"$TMP/rf.json" 2>"$TMP/rf.err" & F=$!; PIDS+=($F)
# (wait_for runs a command again and again: the counts are read inside it)
fwd_ge() { [ "$(fwd "$MF" "$1")" -ge "$2" ]; }
wait_for 30 fwd_ge sent 10
kill "$C"; wait "$C"
wait_for 20 fwd_ge dropped 1
coll "$TMP/r2.json" $M2 & C=$!; PIDS+=($C)
# the source has ended, and what was queued has reached the new collector
# (ZeroMQ's reconnect backs off up to 5 s)
source_done() { [ $(($(fwd "$MF" sent) + $(fwd "$MF" dropped))) -eq "$rwant" ]; }
wait_for 30 source_done
accounted() { curl -s "http://127.0.0.1:$M2/metrics" | awk '/^nfsrdma_collect_records_total.*result="(received|lost|earlier)"/ { n += $2 } END { print n + 0 }'; }
all_there() { [ "$(accounted)" -ge "$(fwd "$MF" sent)" ]; }
wait_for 15 all_there
kill "$F"; wait "$F"
check "forwarder stops cleanly" [ $? -eq 0 ]
sent=$(summary "$TMP/rf.json" 's["forward"]["sent"]')
dropped=$(summary "$TMP/rf.json" 's["forward"]["dropped"]')
kill "$C"; wait "$C"
read -r r1 l1 <<<"$(summary "$TMP/r1.json" '"%d %d" % (s["collect"]["received"], s["collect"]["lost"])')"
read -r e2 r2 l2 <<<"$(summary "$TMP/r2.json" '"%d %d %d" % tuple(sum(p[k] for p in s["collect"]["peers"]) for k in ("earlier", "received", "lost"))')"
echo "     restart: forwarder sent $sent dropped $dropped; first collector received $r1 lost $l1; second: earlier $e2 received $r2 lost $l2"
check "forwarder: every record sent or dropped ($sent + $dropped = $rwant)" [ $((sent + dropped)) -eq "$rwant" ]
check "the queue filled while the collector was away: drops counted" [ "$dropped" -gt 0 ]
check "second collector: earlier + received + lost = sent" [ $((e2 + r2 + l2)) -eq "$sent" ]
check "first collector's share is within what the second counts as earlier" [ $((r1 + l1)) -le "$e2" ]
check "both collectors received something" [ "$r1" -gt 0 ] && [ "$r2" -gt 0 ]

# ---- configuration errors: exit 2, one line ----
expect2() { # WHAT ARGS...
	local what=$1 rc; shift
	timeout 10 "$D" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qE -- "$what" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "exit 2, one line: nfsrdmad $*"
	else
		bad "nfsrdmad $*: exit $rc (want 2): $(head -c 300 "$TMP/err")"
	fi
}
expect2 'collect-any' --socket none --metrics none --collect 0.0.0.0:$P --collect-allow 127.0.0.1
expect2 'collect-any' --socket none --metrics none --collect '[::]':$P --collect-allow 127.0.0.1
expect2 'collect-any' --socket none --metrics none --collect '*':$P --collect-allow 127.0.0.1
expect2 'told to' --socket none --metrics none --collect 127.0.0.1:$P
expect2 'not ADDR:PORT' --socket none --metrics none --collect server:$P --collect-allow 127.0.0.1
expect2 'not HOST:PORT' --socket none --metrics none --source "$CAP" --forward server
expect2 'peer address' --socket none --metrics none --collect 127.0.0.1:$P --collect-allow 0.0.0.0
expect2 'curve-server-key' --socket none --metrics none --source "$CAP" --forward 127.0.0.1:$P --curve-key "$TMP/none"
expect2 'No such file' --socket none --metrics none --collect 127.0.0.1:$P --curve-key "$TMP/none" --curve-allow "$TMP/none"
printf 'collect = 0.0.0.0:%s\ncollect-allow = 127.0.0.1\n' "$P" >"$TMP/w.conf"
expect2 'collect-any' --socket none --metrics none -c "$TMP/w.conf"
# with --collect-any, the wildcard binds
timeout 1 "$D" --socket none --metrics none --collect 0.0.0.0:$P --collect-any --collect-allow 127.0.0.1 2>"$TMP/any.err"
check "--collect-any: the wildcard is taken (runs until stopped)" [ $? -eq 124 ]


# ---- libzmq is loaded only when forwarding asks for it ----
# with libzmq hidden (a private mount namespace binds /dev/null over it):
# a daemon of local sources runs as before, --forward and --curve-keygen
# stop with one line naming the library
ZLIB=$(ldconfig -p | awk '/libzmq\.so\.5 .*x86-64|libzmq\.so\.5 / { print $NF; exit }')
if [ -n "$ZLIB" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$1")" && shift &&
		"$@" --source "pcap:'"$CAP"'" --metrics none --socket none --exit-at-end --json >"'"$TMP"'/nozmq.json" 2>"'"$TMP"'/nozmq.err"
		echo $? >"'"$TMP"'/nozmq.rc"
		"$@" --forward 127.0.0.1:1 --source "pcap:'"$CAP"'" --metrics none --socket none --exit-at-end >/dev/null 2>"'"$TMP"'/nozmq-fwd.err"
		echo $? >"'"$TMP"'/nozmq-fwd.rc"
		"$@" --curve-keygen "'"$TMP"'/nozmq.key" 2>"'"$TMP"'/nozmq-key.err"
		echo $? >"'"$TMP"'/nozmq-key.rc"' sh "$ZLIB" "$D"
	nozmq_local() { [ "$(cat "$TMP/nozmq.rc")" = 0 ] && [ "$(grep -vc '^{"type":"daemon_summary"' "$TMP/nozmq.json")" = "$want" ]; }
	nozmq_fails() { # NAME: exit 1, one line naming libzmq
		[ "$(cat "$TMP/nozmq-$1.rc")" = 1 ] && [ "$(wc -l <"$TMP/nozmq-$1.err")" = 1 ] && grep -q libzmq "$TMP/nozmq-$1.err"
	}
	check "without libzmq: a capture file's records all come out" nozmq_local
	check "without libzmq: --forward exits 1 with one line naming libzmq ($(head -c 120 "$TMP/nozmq-fwd.err"))" \
		nozmq_fails fwd
	check "without libzmq: --curve-keygen exits 1 with one line naming libzmq" nozmq_fails key
	check "without libzmq: --curve-keygen writes no key" [ ! -e "$TMP/nozmq.key" ]
else
	echo "info without libzmq: not checked (needs root, unshare -m and libzmq.so.5 in ldconfig)"
fi

finish $NAME
