#!/usr/bin/env bash
# nfsrdma-top against lab captures:
#  - batch mode (-b) agrees with nfsrdma-dissect -q -z proc per operation,
#    and stops on SIGINT / SIGTERM
#    (calls, replies, errors, unanswered, bytes, chunk mix: two independent
#    implementations, the dissector's summary and the aggregation engine);
#  - driven in a real tmux (80x24): with no daemon yet the screen says why
#    and when it retries, then finds the daemon; the screen shows the
#    expected ops and counts, keys switch views, filter, help, and the
#    window resizes; both against nfsrdmad's socket and standalone (-r),
#    which says "end of capture" once the file has ended.
# Tier: golden (needs tmux; no root).
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=top
command -v tmux >/dev/null || cannot $NAME "tmux not installed"
TOP=$BIN/nfsrdma-top
[ -x "$TOP" ] || cannot $NAME "$TOP not built (needs -lncursesw in the Makefile)"

# ---- batch == dissector summary ----
for cap in nfs3-metadata nfs3-read-write nfs41 parallel; do
	f=$CAPS/$cap.pcap
	TZ=UTC "$BIN/nfsrdma-dissect" -q -z proc "$f" |
		awk '/^== diagnosis/{exit}   # the table ends where the diagnosis begins
		     /^== /||/^operation /||/^total /{next}
		     NF { n = NF; o = ($3 == "tcp" || $3 == "udp")   # "MOUNTv3 MNT tcp": split by transport
			  print $1 " " $2 (o ? " " $3 : ""), $(3+o), $(4+o), $(5+o), $(6+o), $(7+o), $(8+o), $n }' | sort >"$TMP/$cap.dissect"
	"$TOP" -b -n 1 -d 5 -r "$f" |
		awk '/^OPERATION /{t=1; next} t && NF == 0 {t=0}
		     t { o = ($3 == "tcp" || $3 == "udp")   # the same split in top
			 print $1 " " $2 (o ? " " $3 : ""), $(4+o), $(5+o), $(6+o), $(7+o), $(8+o), $(9+o), $NF }' | sort >"$TMP/$cap.top"
	check "batch = dissect -z proc for $cap ($(wc -l <"$TMP/$cap.top") ops)" \
		diff -u "$TMP/$cap.dissect" "$TMP/$cap.top"
done
# Expected counts: the kernel client's own (lib.sh truth_ops over the
# capture's client.trace rpc_stats_latency lines), not our output.
# truth OPNAME CAP: RPCs of one operation ("NFSv3 LOOKUP"); truth_total CAP.
truth() { truth_ops "$CAPS/$2.truth/client.trace" | awk -v k="$1" '$1 " " $2 == k { print $3 }'; }
truth_total() { { truth_ops "$CAPS/$1.truth/client.trace"; tcp_ops "$CAPS/$1.pcap"; } | awk '{ s += $3 } END { print s + 0 }'; }
lookups=$(truth "NFSv3 LOOKUP" nfs3-metadata)
getacls=$(truth "NFSACLv3 GETACL" nfs3-metadata)
renames=$(truth "NFSv3 RENAME" nfs3-metadata)
total=$(truth_total nfs3-metadata)
# a client over RDMA and over TCP (its MOUNT) is two rows, as -z client has them
rdma_total=$(truth_ops "$CAPS/nfs3-metadata.truth/client.trace" | awk '{ s += $3 } END { print s + 0 }')
tcp_total=$(tcp_ops "$CAPS/nfs3-metadata.pcap" | awk '{ s += $3 } END { print s + 0 }')
writes=$(truth "NFSv3 WRITE" nfs3-read-write)
[ "${lookups:-0}" -gt 0 ] && [ "${getacls:-0}" -gt 0 ] && [ "${renames:-0}" -gt 0 ] && [ "${writes:-0}" -gt 0 ] ||
	bad "ground truth: no LOOKUP/GETACL/RENAME in nfs3-metadata.truth or no WRITE in nfs3-read-write.truth"

"$TOP" --json -n 1 -d 5 -r "$CAPS/nfs3-metadata.pcap" >"$TMP/top.json"
check "--json batch is JSON with the LOOKUP row ($lookups) and the total ($total) of the truth" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
r=[x for x in d["rows"] if x["key"]=="NFSv3 LOOKUP"]
sys.exit(0 if r and r[0]["records"]==int(sys.argv[2]) and d["totals"]["records"]==int(sys.argv[3]) else 1)' "$TMP/top.json" "${lookups:-0}" "${total:-0}"

# ---- interactive, in tmux ----
# top starts first: with no daemon yet it says why and when it retries,
# then finds the daemon once it is up
SOCK=$TMP/nfsrdmad.sock
TS=nfsrdma-top-test-$$
export TMUX_TMPDIR=$TMP    # a private tmux server
tmux new-session -d -s "$TS" -x 80 -y 24 "TERM=xterm-256color $TOP --socket $SOCK -d 0.3"
PIDS+=($(tmux display-message -p -t "$TS" '#{pane_pid}'))
screen() { tmux capture-pane -p -t "$TS"; }
shows() { screen | grep -qE -- "$1"; }
check "no daemon: the screen says why (cannot reach nfsrdmad at the socket)" wait_for 5 shows "cannot reach nfsrdmad at "
check "no daemon: the screen gives the reason (No such file or directory)" shows "No such file or directory"
check "no daemon: and when it retries (retrying in N s)" wait_for 5 shows "retrying in [0-9]+ s"
check "no daemon: the retry interval backs off (retrying in 4 s or more)" wait_for 10 shows "retrying in ([4-9]|[1-3][0-9]) s"
"$BIN/nfsrdmad" --source "pcap:$CAPS/nfs3-metadata.pcap" --socket "$SOCK" --metrics none \
	>"$TMP/daemon.out" 2>"$TMP/daemon.err" &
PIDS+=($!)
check "daemon socket appears" wait_for 10 test -S "$SOCK"
check "socket permissions are 0660" [ "$(stat -c %a "$SOCK")" = 660 ]
# the backoff is at most 8 s here (1, 2, 4, 8): found within 20 s
check "screen shows NFSv3 LOOKUP with $lookups RPCs once the daemon is up" wait_for 20 shows "NFSv3 LOOKUP +[0-9.]+ +$lookups "
check "the reason is gone once connected" bash -c "! tmux capture-pane -p -t $TS | grep -q 'cannot reach'"
check "screen shows NFSACLv3 GETACL with $getacls RPCs" shows "NFSACLv3 GETACL +[0-9.]+ +$getacls "
check "header shows totals ($total RPCs) and drops" shows "RPCs $total .* drops 0"
check "detail pane lists the slowest XIDs" shows 'SLOWEST XID'
screen >"$TMP/screen-op.txt"
check "fits 80 columns" awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$TMP/screen-op.txt"
tmux send-keys -t "$TS" c
check "key c: client view (10.9.0.2, $rdma_total RPCs over RDMA)" wait_for 5 shows "^10\\.9\\.0\\.2 +[0-9.]+ +$rdma_total "
check "key c: the client's $tcp_total RPCs over TCP in a row of their own" shows "^10\\.9\\.0\\.2 tcp +[0-9.]+ +$tcp_total "
tmux send-keys -t "$TS" s
check "key s: server view (10.9.0.1, $rdma_total RPCs over RDMA)" wait_for 5 shows "^10\\.9\\.0\\.1 +[0-9.]+ +$rdma_total "
tmux send-keys -t "$TS" n
check "key n: connection view" wait_for 5 shows 'CONNECTION'
tmux send-keys -t "$TS" o
check "key o: back to operations" wait_for 5 shows '^OPERATION'
tmux send-keys -t "$TS" / && sleep 0.3 && tmux send-keys -t "$TS" RENAME Enter
check "filter RENAME: one row ($renames RPCs)" wait_for 5 shows "NFSv3 RENAME +[0-9.]+ +$renames "
check "filter hides LOOKUP" bash -c "! tmux capture-pane -p -t $TS | grep -q 'NFSv3 LOOKUP'"
tmux send-keys -t "$TS" / && sleep 0.3 && tmux send-keys -t "$TS" Enter
tmux send-keys -t "$TS" '>'
check "key >: sort by rate" wait_for 5 shows 'sort rate'
tmux send-keys -t "$TS" p
check "key p: paused" wait_for 5 shows 'PAUSED'
tmux send-keys -t "$TS" p
tmux send-keys -t "$TS" h
check "key h: help" wait_for 5 shows 'nfsrdma-top keys'
tmux send-keys -t "$TS" x
tmux resize-window -t "$TS" -x 120 -y 40
check "resize to 120x40: still drawn, wider" wait_for 5 bash -c "tmux capture-pane -p -t $TS | awk 'length(\$0) > 80 { w = 1 } END { exit !w }'"
tmux resize-window -t "$TS" -x 80 -y 24
check "resize back to 80x24" wait_for 5 bash -c "tmux capture-pane -p -t $TS | awk 'length(\$0) > 80 { w = 1 } END { exit w }'"
tmux send-keys -t "$TS" q
check "key q quits" wait_for 5 bash -c "! tmux has-session -t $TS 2>/dev/null"

# batch mode forever (-n 0, the default) stops on SIGINT and SIGTERM,
# after the snapshots it printed (at the recorded pace the file lasts 9 s)
for sig in INT TERM; do
	"$TOP" -b -d 0.2 --speed 1 -r "$CAPS/nfs3-read-write.pcap" >"$TMP/batch-$sig.txt" 2>&1 &
	bpid=$!
	sleep 1.5
	kill -s "$sig" "$bpid"
	for _ in $(seq 50); do kill -0 "$bpid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$bpid" 2>/dev/null; then
		kill -9 "$bpid"
		wait "$bpid" 2>/dev/null
		brc=hung
	else
		wait "$bpid"
		brc=$?
	fi
	check "batch mode stops on SIG$sig within 5 s, exit 0, after its snapshots (exit $brc)" \
		bash -c "[ '$brc' = 0 ] && grep -q '^OPERATION ' '$TMP/batch-$sig.txt'"
done

# standalone on a capture
tmux new-session -d -s "$TS-2" -x 80 -y 24 "TERM=xterm-256color $TOP -r $CAPS/nfs3-read-write.pcap -d 0.3"
check "standalone -r: NFSv3 WRITE with $writes RPCs" wait_for 10 bash -c "tmux capture-pane -p -t $TS-2 | grep -qE 'NFSv3 WRITE +[0-9.]+ +$writes '"
check "standalone -r: the status line says end of capture" wait_for 5 bash -c "tmux capture-pane -p -t $TS-2 | tail -n1 | grep -q 'end of capture'"
check "standalone -r: still running after the end (q quits)" tmux has-session -t "$TS-2"
tmux kill-server 2>/dev/null
finish $NAME
