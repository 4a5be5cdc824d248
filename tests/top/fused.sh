#!/usr/bin/env bash
# nfsrdma-top's fused split (nfsrdma-top(1), "Fused split") against the
# records themselves: lab runs' kernel traces made probe records
# (tests/join/trace2records.py), joined with their captures by
# nfsrdma-dissect --join (parallel: client + wire + server; nfs3-read-write:
# client + wire only, so merged spans), plus single-vantage records (the
# version-3 wire fixture) that must stay out of the split.  A real
# nfsrdmad reads them (jsonl:) and a real nfsrdma-top reads its socket:
#  - --json, per operation, client and server, and by transport: every
#    row, count, sum, p50/p99/max and span (sum, p99-tail sum, shares) =
#    tests/top/fused_expect.py's computation from the records;
#  - -b --fused: each row's line with its shares; standalone (jsonl:) too;
#  - in tmux: key f shows the split with the expected shares, c the
#    clients, t steps the transport; the keys of the help screen, of
#    --help and of the man page's KEYS are the same;
#  - a collector's live join (ZeroMQ forwarder on loopback): its split =
#    the fused records it wrote itself (--json);
#  - verdicts: each row's (JSON verdict, places, seg; the text line's
#    words) = the one fused_expect.py sums from the records' places;
#  - protocol 2.6: the greeting, FV after each F, and a 2.0 reader's rules still hold for
#    every line it knows; against a 2.0 daemon top says there is no
#    fused split (JSON "fused": null) instead of showing an empty one;
#  - a hostile F line ends the session with one error, not a crash.
# Tier: golden (tmux, python3; no root).
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=top-fused
TOP=$BIN/nfsrdma-top
D=$BIN/nfsrdmad
X=$BIN/nfsrdma-dissect
EXP=$SRC/tests/top/fused_expect.py
[ -x "$TOP" ] && [ -x "$D" ] && [ -x "$X" ] || cannot $NAME "nfsrdma-top, nfsrdmad or nfsrdma-dissect not built"
command -v python3 >/dev/null || cannot $NAME "python3 missing"
command -v tmux >/dev/null || cannot $NAME "tmux not installed"

# ---- input: joined records of two lab runs, and some that are not joined ----
for run in parallel nfs3-read-write; do
	[ -f "$CAPS/$run.truth/client.trace" ] || cannot $NAME "$CAPS/$run.truth missing"
	for side in client server; do
		python3 "$SRC/tests/join/trace2records.py" $side "$CAPS/$run.truth/$side.trace" >"$TMP/$run-$side.jsonl" ||
			cannot $NAME "trace2records.py $side $run failed"
	done
done
"$X" --json "$CAPS/parallel.pcap" --join "$TMP/parallel-client.jsonl" --join "$TMP/parallel-server.jsonl" \
	>"$TMP/j1.json" 2>/dev/null
"$X" --json "$CAPS/nfs3-read-write.pcap" --join "$TMP/nfs3-read-write-client.jsonl" >"$TMP/j2.json" 2>/dev/null
REC=$TMP/records.jsonl
cat "$TMP/j1.json" "$TMP/j2.json" "$SRC/tests/join/fixtures/v3-wire-nfs3-read-write.jsonl" >"$REC"
njoined=$(python3 "$EXP" count "$REC")
[ "$njoined" -gt 100 ] || cannot $NAME "only $njoined joined records"
grep -q '"vantages":\["client","wire"\]' "$REC" || cannot $NAME "no client+wire record (merged spans)"

# ---- standalone ----
for dim in op client server; do
	"$TOP" --source "jsonl:$REC" --json --view $dim >"$TMP/s-$dim.json" 2>"$TMP/s.err"
	check "standalone --json --view $dim: fused rows = the records' ($njoined joined)" \
		python3 "$EXP" json "$REC" $dim <"$TMP/s-$dim.json"
done
"$TOP" --source "jsonl:$REC" -b --fused >"$TMP/s.txt" 2>>"$TMP/s.err"
check "standalone -b --fused: every row's line with its shares" python3 "$EXP" text "$REC" op <"$TMP/s.txt"
check "standalone: nothing on stderr" [ ! -s "$TMP/s.err" ]

# ---- through nfsrdmad's socket ----
SOCK=$TMP/d.sock
"$D" --source "jsonl:$REC" --socket "$SOCK" --metrics none >/dev/null 2>"$TMP/d.err" &
PIDS+=($!)
check "daemon socket appears" wait_for 10 test -S "$SOCK"
all_in() { "$TOP" --socket "$SOCK" --json -n 1 --connect-timeout 2 | python3 -c '
import json,sys; sys.exit(0 if json.load(sys.stdin)["fused"]["rpcs"] == int(sys.argv[1]) else 1)' "$njoined"; }
check "daemon: every joined record in the split ($njoined)" wait_for 10 all_in
for dim in op client server; do
	"$TOP" --socket "$SOCK" --json -n 1 --view $dim >"$TMP/d-$dim.json"
	check "daemon --json --view $dim: fused rows = the records'" python3 "$EXP" json "$REC" $dim <"$TMP/d-$dim.json"
	check "daemon --json --view $dim: one line, valid JSON, nothing else on stdout" \
		bash -c "[ \$(wc -l <'$TMP/d-$dim.json') = 1 ] && python3 -m json.tool '$TMP/d-$dim.json' >/dev/null"
done
for tr in tcp rdma; do
	"$TOP" --socket "$SOCK" --json -n 1 --transport $tr >"$TMP/d-$tr.json"
	check "daemon --json --transport $tr: only $tr rows, = the records'" python3 "$EXP" json "$REC" op $tr <"$TMP/d-$tr.json"
done
"$TOP" --socket "$SOCK" -b -n 1 --fused >"$TMP/d.txt"
check "daemon -b --fused: every row's line with its shares" python3 "$EXP" text "$REC" op <"$TMP/d.txt"
check "daemon -b --fused: says it is the fused view, with the RPC count" \
	bash -c "grep -q '^view fused op ' '$TMP/d.txt' && grep -q '^fused RPCs $njoined ' '$TMP/d.txt'"

# protocol: the greeting says 2.4; a 2.0 reader's rules hold for every line it knows;
# every F line is followed by its FV line (the same dimension and key);
# every S line is followed by its SP line (the same xid, a mask of the 8 phases),
# every R line by its RP line (the same dimension and key, a mask of the 8 phases)
python3 - "$SOCK" >"$TMP/proto.out" 2>&1 <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
g = f.readline().rstrip("\n")
word, ver = g.split(" ", 1)
assert word == "NFSRDMA-CTL" and ver == "2.6", g
assert int(ver.split(".")[0]) == 2               # how a 2.0 client reads it (sscanf "%s %d")
f.write("SNAPSHOT\n"); f.flush()
kinds = {}
prev = None
fields = {"T": 34, "R": 45, "L": 9, "D": 11}    # a 2.0 reader's counts
for line in f:
    line = line.rstrip("\n")
    if line == "END": break
    t = line.split("\t")
    kinds[t[0]] = kinds.get(t[0], 0) + 1
    if t[0] in fields: assert len(t) == fields[t[0]], line[:80]
    if t[0] == "S": assert len(t) == 16, line[:80]
    if t[0] == "F": assert len(t) == 36, line[:80]
    if t[0] == "SP": assert len(t) == 3 and prev[0] == "S" and prev[1] == t[1] and int(t[2]) < 256, line[:80]
    if prev and prev[0] == "S": assert t[0] == "SP", line[:80]
    if t[0] == "RP": assert len(t) == 4 and prev[0] == "R" and prev[1:3] == t[1:3] and int(t[3]) < 256, line[:80]
    if prev and prev[0] == "R": assert t[0] == "RP", line[:80]
    if t[0] == "FV": assert 19 <= len(t) <= 31 and prev[0] == "F" and prev[1:3] == t[1:3] and t[3] in "01", line[:80]
    if prev and prev[0] == "F": assert t[0] == "FV", line[:80]
    if t[0] == "PC": assert len(t) == 4, line[:80]
    if t[0] == "IF": assert len(t) == 7, line[:80]
    prev = t
assert kinds.get("T") == 1 and kinds.get("FT") == 1 and kinds.get("F", 0) > 10 and kinds.get("R", 0) > 10, kinds
assert kinds.get("S", 0) > 0 and kinds.get("SP") == kinds.get("S"), kinds
assert kinds.get("RP") == kinds.get("R"), kinds
assert kinds.get("FV") == kinds.get("F"), kinds
assert "PC" not in kinds, kinds                   # no kernel source: no probe cost
assert "IF" not in kinds, kinds                   # ... and no RPCs in flight
print("ok", kinds)
EOF
check "protocol 2.6: greeting, FT once, F lines, FV after each F, SP after each S, RP after each R, no PC or IF line without a kernel source, and 2.0's lines as 2.0 had them ($(tail -c 120 "$TMP/proto.out"))" \
	grep -q '^ok' "$TMP/proto.out"

# ---- interactive, in tmux ----
export TMUX_TMPDIR=$TMP
TS=nfsrdma-top-fused-$$
tmux new-session -d -s "$TS" -x 80 -y 24 "TERM=xterm-256color $TOP --socket $SOCK -d 0.3"
PIDS+=($(tmux display-message -p -t "$TS" '#{pane_pid}'))
screen() { tmux capture-pane -p -t "$TS"; }
shows() { screen | grep -qE -- "$1"; }
check "screen starts in the operation table" wait_for 10 shows '^OPERATION .*SPLIT'
tmux send-keys -t "$TS" f
check "key f: the fused split (view fused op)" wait_for 5 shows '^view fused op '
screen >"$TMP/screen-f.txt"
# the first rows as the records say they must look: key, VT, then the
# shares of the mean (first line) and of the p99 (second line)
python3 "$EXP" screen "$REC" op 4 >"$TMP/want-screen"
rows_ok() {
	local key vt mean p99
	while IFS='|' read -r key vt mean p99; do
		mean=${mean//+/\\+} p99=${p99//+/\\+}
		grep -A1 -E "^$key +$vt +[0-9]+ mean +[0-9.a-z]+ +$(sed 's/ /  */g' <<<"$mean") *\$" "$TMP/screen-f.txt" |
			tail -n1 | grep -qE "p99 +[0-9.a-z]+ +$(sed 's/ /  */g' <<<"$p99") *\$" || { echo "no row $key $vt $mean / $p99"; return 1; }
	done <"$TMP/want-screen"
}
check "fused screen: the first 4 rows' mean and p99 shares = the records' ($(head -n1 "$TMP/want-screen"))" rows_ok
check "fused screen: fits 80 columns" awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$TMP/screen-f.txt"
tmux send-keys -t "$TS" c
check "key c in the fused view: clients (10.9.0.2 joined by client, wire and server)" \
	wait_for 5 shows '^10\.9\.0\.2 +cws +[0-9]+ mean'
tmux send-keys -t "$TS" o t
check "key t: transport rdma" wait_for 5 shows 'transport rdma'
check "key t: rdma hides the TCP rows" bash -c "! tmux capture-pane -p -t $TS | grep -q ' tcp '"
tmux send-keys -t "$TS" t
check "key t again: transport tcp, only TCP rows" wait_for 5 shows '^MOUNTv3 [A-Z]+ tcp '
check "key t again: merged spans (client+wire) show +" shows '^[A-Za-z].* cw- .* \+ '
check "key t again: tcp hides NFSv3 over RDMA" bash -c "! tmux capture-pane -p -t $TS | grep -q '^NFSv3 WRITE '"
tmux send-keys -t "$TS" t t
check "key t twice more: udp, then all transports again" wait_for 5 bash -c "! tmux capture-pane -p -t $TS | grep -q 'transport '"
tmux send-keys -t "$TS" f
check "key f again: back to the table" wait_for 5 shows '^OPERATION .*SPLIT'
tmux send-keys -t "$TS" h
check "key h: help" wait_for 5 shows 'nfsrdma-top keys'
# the keys: help screen = --help = the man page's KEYS (aliases space and ? aside)
screen | awk '/nfsrdma-top keys/ { on = 1; next } on && NF == 0 && n { exit } on && NF { n++; print }' |
	grep -oE '(^| )[^ ]  [^ ]' | awk '{ print $1 }' | sort -u >"$TMP/keys-screen"
"$TOP" --help | sed -n 's/^Keys: //p' | sed 's/(.*//' | tr ' ,' '\n\n' | awk 'length($0) == 1' | sort -u >"$TMP/keys-help"
sed -n '/^\.SH KEYS/,/^\.SH OPTIONS/p' "$SRC/docs/man/nfsrdma-top.1" | sed -n 's/^\.B //p' | sed 's/".*//' |
	tr ' ' '\n' | awk 'length($0) == 1 && $0 != "?"' | sort -u >"$TMP/keys-man"
check "keys: help screen = --help ($(tr '\n' ' ' <"$TMP/keys-help"))" \
	bash -c "[ \$(wc -l <'$TMP/keys-help') -ge 14 ] && cmp -s '$TMP/keys-screen' '$TMP/keys-help'"
check "keys: man page KEYS = --help" cmp -s "$TMP/keys-man" "$TMP/keys-help"
tmux send-keys -t "$TS" x q
check "key q quits" wait_for 5 bash -c "! tmux has-session -t $TS 2>/dev/null"

# ---- a collector's live join (as tests/daemon/join-live.sh drives it) ----
# the collector reads the capture and the server's records, a forwarder
# sends the client's over ZeroMQ; top on the collector's socket shows the
# split of the fused records the collector wrote (--json), once every
# client record is in and the split stops changing
RUN=nfs3-read-write
P=$(free_port)
CSOCK=$TMP/c.sock
"$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.1 --no-clock-hints --join-wait 86400 \
	--source "$CAPS/$RUN.pcap" --source "jsonl:$TMP/$RUN-server.jsonl" --socket "$CSOCK" --metrics none --json \
	--summary-interval 0 >"$TMP/c.json" 2>"$TMP/c.err" &
PIDS+=($!)
wait_for 10 test -S "$CSOCK"
"$D" --forward 127.0.0.1:$P --host-name client-a --source "jsonl:$TMP/$RUN-client.jsonl" --exit-at-end \
	--socket none --metrics none >/dev/null 2>"$TMP/f.err"
settled() {   # top's fused RPC count = the joined records the collector wrote, twice in a row
	local a b
	a=$("$TOP" --socket "$CSOCK" --json -n 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["fused"]["rpcs"])')
	b=$(python3 "$EXP" count "$TMP/c.json")
	[ "$a" = "$b" ] && [ "$a" -gt 10 ] && [ "$a" = "${last:-}" ]
	local rc=$?; last=$a; return $rc
}
check "collector: top's split holds every fused record the collector wrote" wait_for 15 settled
"$TOP" --socket "$CSOCK" --json -n 1 >"$TMP/c-op.json"
check "collector --json: fused rows = the collector's own fused records ($last)" \
	python3 "$EXP" json "$TMP/c.json" op <"$TMP/c-op.json"
check "collector: a row joined by client, wire and server" grep -q '"vantages":\["client","wire","server"\]' "$TMP/c-op.json"

# ---- a 2.0 daemon: no fused split, said so; a bad F line: one error ----
fake() {   # fake SOCKET MODE: a daemon answering one snapshot per connection
	python3 - "$@" <<'EOF' &
import os, socket, sys
path, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(4)
T = "T\t1700000000000000000\t1700000000000000000\t1.000\t0.000\t0.000" + "\t0" * 28 + "\n"
while True:
    c, _ = s.accept(); f = c.makefile("rw")
    f.write("NFSRDMA-CTL 2\n" if mode == "old" else "NFSRDMA-CTL 2.4\n" if mode in ("v24", "badfv") else
            "NFSRDMA-CTL 2.1\n"); f.flush()
    for line in f:
        if line.startswith("SNAPSHOT"):
            body = T
            # one RPC of 10 ns, all client_queue; FV: 10 ns in client_host (bit 0)
            good = "FT\t1\t0\t0\nF\top\tNFSv3 READ\trdma\t7\t0\t1\t1" + "\t10" * 4 + "\t1\t10\t0\t0" + \
                   ("\t10" + "\t0" * 9) * 2 + "\n"
            fv = "FV\top\tNFSv3 READ\t%s\t1\t0\t0" + "\t0" * 12 + "\t%s:10\n"
            if mode == "bad":
                body += "FT\t1\t0\t0\nF\top\tNFSv3 READ\trdma\t9\t0\t1\t1\t10" + "\t0" * 27 + "\n"
            elif mode == "v23":
                body += good
            elif mode == "v24":
                body += good + fv % (1, 1)
            elif mode == "badfv":   # a place past the eight
                body += good + fv % (0, 256)
            f.write(body + "END\n"); f.flush()
    c.close()
EOF
	PIDS+=($!)
}
fake "$TMP/old.sock" old
wait_for 5 test -S "$TMP/old.sock"
"$TOP" --socket "$TMP/old.sock" --json -n 1 >"$TMP/old.json" 2>"$TMP/old.err"
check "2.0 daemon: --json has \"fused\": null (no split, not an empty one)" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "fused" in d and d["fused"] is None else 1)' "$TMP/old.json"
"$TOP" --socket "$TMP/old.sock" -b -n 1 --fused >"$TMP/old.txt" 2>>"$TMP/old.err"
check "2.0 daemon: -b --fused says it sends none" grep -q 'sends none (protocol before 2.1)' "$TMP/old.txt"
check "2.0 daemon: no error" [ ! -s "$TMP/old.err" ]
fake "$TMP/bad.sock" bad
wait_for 5 test -S "$TMP/bad.sock"
timeout 20 "$TOP" --socket "$TMP/bad.sock" --json -n 1 --connect-timeout 2 >"$TMP/bad.json" 2>"$TMP/bad.err"
rc=$?
check "bad F line (vantages 9): exit 1, nothing on stdout, the reason on stderr (exit $rc)" \
	bash -c "[ $rc = 1 ] && [ ! -s '$TMP/bad.json' ] && grep -q 'bad fused split line from the daemon' '$TMP/bad.err'"
# a 2.3 daemon (F, no FV): its rows, no verdict; 2.4: FV's verdict and the
# net_out+net_back span; a bad FV line: one error
fake "$TMP/v23.sock" v23
fake "$TMP/v24.sock" v24
fake "$TMP/badfv.sock" badfv
wait_for 5 test -S "$TMP/badfv.sock"
"$TOP" --socket "$TMP/v23.sock" --json -n 1 >"$TMP/v23.json" 2>"$TMP/v23.err"
check "2.3 daemon (no FV): its row, verdict null, no error" python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["fused"]["rows"]
sys.exit(0 if len(r) == 1 and r[0]["verdict"] is None and r[0]["rpcs"] == 1 else 1)' "$TMP/v23.json"
"$TOP" --socket "$TMP/v24.sock" --json -n 1 >"$TMP/v24.json" 2>"$TMP/v24.err"
check "2.4 daemon: FV gives the verdict (client_host, 1.000) and the pair (net_out+net_back merged)" python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["fused"]["rows"][0]
sys.exit(0 if r["verdict"] == {"place": ["client_host"], "share": 1.0} and r["merged"] == ["net_out+net_back"] and
         [s["phase"] for s in r["spans"]][2] == "net_out+net_back" and len(r["spans"]) == 9 else 1)' "$TMP/v24.json"
"$TOP" --socket "$TMP/v24.sock" -b -n 1 --fused >"$TMP/v24.txt" 2>>"$TMP/v24.err"
check "2.4 daemon: -b --fused puts + at net_back's place and the verdict in words" \
	grep -qE '^NFSv3 READ +client\+wire\+server \[out\+bck\] .* mean 100\.0(/[0-9.+-]+){9}  p99 .*  verdict: client host 100%$' "$TMP/v24.txt"
check "2.3 and 2.4 daemons: no error" bash -c "[ ! -s '$TMP/v23.err' ] && [ ! -s '$TMP/v24.err' ]"
timeout 20 "$TOP" --socket "$TMP/badfv.sock" --json -n 1 --connect-timeout 2 >"$TMP/badfv.json" 2>"$TMP/badfv.err"
rc=$?
check "bad FV line (place 256): exit 1, nothing on stdout, the reason on stderr (exit $rc)" \
	bash -c "[ $rc = 1 ] && [ ! -s '$TMP/badfv.json' ] && grep -q 'bad fused verdict line from the daemon' '$TMP/badfv.err'"
tmux kill-server 2>/dev/null
finish $NAME
