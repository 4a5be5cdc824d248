#!/usr/bin/env bash
# nfsrdmad's exit status (nfsrdmad(8) EXIT STATUS, the table every tool
# shares; dist/nfsrdmad.service stops restarting only on 2): every
# configuration error, on the command line or in a config file, exits 2
# with exactly one line on stderr and nothing on stdout; a capture file
# that is not there is an input missing, 1 as in every tool; a bind
# failure on a valid address is a runtime error and exits 1.  Tier: unit
# (no root, no network beyond loopback).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-exit-codes
D=$BIN/nfsrdmad
[ -x "$D" ] || cannot $NAME "$D not built"
CAP=$CAPS/smoke.pcap
[ -f "$CAP" ] || cannot $NAME "$CAP missing"

# expect STATUS WHAT ARGS...: runs nfsrdmad (10 s at most), wants STATUS,
# one stderr line matching WHAT, empty stdout
expect() {
	local want=$1 what=$2 rc lines; shift 2
	timeout 10 "$D" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	lines=$(wc -l <"$TMP/err")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -qE -- "$what" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "exit $want, one line: nfsrdmad $*${CONF:+ [$CONF]}"
	else
		bad "nfsrdmad $*: exit $rc (want $want), $lines stderr lines (want 1 matching '$what'): $(head -c 300 "$TMP/err")"
	fi
}
base=(--socket none --metrics none --source "$CAP" --exit-at-end)

CONF=
# ---- options ----
expect 2 'not ADDR:PORT' --source "$CAP" --socket none --metrics 127.0.0.1:99999
expect 2 'not ADDR:PORT' --source "$CAP" --socket none --metrics bogus
expect 2 'not ADDR:PORT' --source "$CAP" --socket none --metrics 127.0.0.1:
expect 2 'not ADDR:PORT' --source "$CAP" --socket none --metrics '[::1:9464'
expect 2 'speed' "${base[@]}" --speed fast
expect 2 'queue' "${base[@]}" --queue 0
expect 2 'window' "${base[@]}" --window 61
expect 2 'socket-mode' "${base[@]}" --socket-mode 999
expect 2 'no such user' "${base[@]}" --user nfsrdma-no-such-user
expect 2 'no such group' "${base[@]}" --socket-group nfsrdma-no-such-group
expect 2 'too long' --metrics none --source "$CAP" --socket "$TMP/$(printf 's%.0s' $(seq 120))"
touch "$TMP/plainfile"
expect 2 'not a socket' --metrics none --source "$CAP" --exit-at-end --socket "$TMP/plainfile"
expect 2 'no source' --socket none --metrics none
expect 2 'unexpected argument' "${base[@]}" extra
expect 2 'unrecognized|unknown|invalid' "${base[@]}" --no-such-option
# ---- source specs ----
expect 2 'no capture file' --socket none --metrics none --source pcap:
expect 1 'No such file' --socket none --metrics none --source "$TMP/missing.pcap"
# a word before the ':' of a file not there: a source kind misspelt (2)
expect 2 "bogus:thing: no such file, and 'bogus' is no kind of source" --socket none --metrics none --source bogus:thing
expect 2 'unknown argument' --socket none --metrics none --source kernel:bogus
expect 2 'no interface' --socket none --metrics none --source xdp:
expect 2 'needs an interface' --socket none --metrics none --source live:
# a file that is no capture, or one of a link type nfsrdmad does not read:
# a restart cannot cure either (2), as with nfsrdma-dissect
printf 'not a capture\n' >"$TMP/text.pcap"
expect 2 'not a pcap/pcapng capture' "${base[@]/$CAP/$TMP/text.pcap}"
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 147))' "$TMP/lt147.pcap"
expect 2 'unsupported link type 147' "${base[@]/$CAP/$TMP/lt147.pcap}"

# ---- config file lines: one line naming file:line ----
conf() { printf '%s\n' "$@" >"$TMP/c.conf"; CONF=$(printf '%s; ' "$@"); }
conf "source = $CAP" "socket = none" "metrics = bogus"
expect 2 "c.conf:3: .*not ADDR:PORT" -c "$TMP/c.conf"
conf "source = $CAP" "socket = none" "metrics = 127.0.0.1:99999"
expect 2 "c.conf:3: " -c "$TMP/c.conf"
conf "source = $CAP" "metrics = none" "socket-mode = 8"
expect 2 "c.conf:3: .*socket-mode" -c "$TMP/c.conf"
conf "source = $CAP" "metrics = none" "user = nfsrdma-no-such-user"
expect 2 "c.conf:3: .*no such user" -c "$TMP/c.conf"
conf "source = $CAP" "metrics = none" "speed = x"
expect 2 "c.conf:3: .*speed" -c "$TMP/c.conf"
conf "sauce = $CAP"
expect 2 "c.conf:1: unknown setting" -c "$TMP/c.conf"
conf "source = $CAP" "json = maybe"
expect 2 "c.conf:2: json takes yes or no" -c "$TMP/c.conf"
conf "source = bogus:thing" "metrics = none" "socket = none"
expect 2 "bogus:thing" -c "$TMP/c.conf"
CONF=
expect 2 "No such file" -c "$TMP/no-such.conf"

# ---- runtime: a valid address that cannot be bound ----
port=$(free_port)
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); open(sys.argv[2], "w").close(); time.sleep(20)' "$port" "$TMP/held" &
PIDS+=($!)
wait_for 5 test -f "$TMP/held"
expect 1 'Address already in use' --source "$CAP" --socket none --metrics "127.0.0.1:$port"
# the probes' tracepoints absent (tracefs not mounted, rpcrdma not loaded
# yet): the module may be there after a restart, so 1, not 2; one error
# line naming the essential ones absent (a warning per missing tracepoint
# is -v's detail: 22 of them buried the error)
mkdir -p "$TMP/empty-tracefs"
timeout 10 "$D" --source "kernel:tracefs=$TMP/empty-tracefs" --socket none --metrics none --exit-at-end \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
check "tracepoints absent: exit 1 (exit $rc), one line: $(head -c 300 "$TMP/err")" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'nothing to attach: client side unavailable: sunrpc:rpc_stats_latency absent (is the sunrpc module loaded?)' '$TMP/err' && [ ! -s '$TMP/out' ]"
timeout 10 "$D" --source "kernel:tracefs=$TMP/empty-tracefs" --socket none --metrics none --exit-at-end -v \
	>"$TMP/out" 2>"$TMP/err"
check "tracepoints absent, -v: each missing one named (sunrpc:rpc_task_begin), the error last" \
	bash -c "grep -q 'sunrpc:rpc_task_begin unavailable' '$TMP/err' && tail -1 '$TMP/err' | grep -q 'nothing to attach'"
# and the good configuration runs to the end: 0
timeout 20 "$D" "${base[@]}" >"$TMP/out" 2>"$TMP/err"
check "a valid configuration with --exit-at-end exits 0 (exit $?)" [ $? -eq 0 ]
# without --exit-at-end a file source's end is logged at -v, with the
# records it gave (as many as the dissector makes of the file), and the
# daemon stays up until stopped
n=$("$BIN/nfsrdma-dissect" --json "$CAP" 2>/dev/null | grep -c '^{"v":')
timeout -s TERM 4 "$D" --socket none --metrics none --source "$CAP" -v >"$TMP/out" 2>"$TMP/err"; rc=$?
check "-v: 'source $CAP: end, $n records' logged, still running at 4 s (exit $rc)" \
	bash -c "[ $rc -eq 124 ] && [ $n -gt 0 ] && grep -qF 'source $CAP: end, $n records' '$TMP/err'"
finish $NAME
