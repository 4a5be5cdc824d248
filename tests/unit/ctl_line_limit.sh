#!/usr/bin/env bash
# The control socket's line limit (docs/daemon-protocol.md, "Framing"): a
# line is at most 4096 bytes, its newline counted, however the client's
# writes cut it.  Against a running nfsrdmad: 4095 bytes and a newline
# are a command (an unknown one: "ERR unknown command", the connection
# stays); 4096 and a newline get "ERR line too long" and the close, in
# one write as in two, and after the answer to a PING before it in the
# same write.  The daemon used to judge only what one read left without
# a newline, so a whole 4097-byte line in one write (its reads take up to
# 8191) passed as a command.
# Closing line: "ctl-line-limit: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=ctl-line-limit
[ -x "$BIN/nfsrdmad" ] || cannot $NAME "$BIN/nfsrdmad not built"
SOCK=$TMP/d.sock
"$BIN/nfsrdmad" --source "$CAPS/smoke.pcap" --socket "$SOCK" --metrics none >/dev/null 2>"$TMP/d.err" &
PIDS+=($!)
wait_for 10 test -S "$SOCK" || cannot $NAME "no socket: $(head -c 300 "$TMP/d.err")"

# talk PARTS...: one connection, each part written on its own (a pause
# between), then every line the daemon sends until it closes or goes
# quiet for 2 s; "CLOSED" when it closed.
talk() {
	python3 - "$SOCK" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(2)
f = s.makefile("rb")
f.readline()                                    # the greeting
for part in sys.argv[2:]:
    s.sendall(eval(part)); time.sleep(0.2)      # parts are Python bytes literals
try:
    for line in f:
        print(line.decode().rstrip("\n"))
    print("CLOSED")
except socket.timeout:
    pass
PY
}
x4095="b'X' * 4095 + b'\\n'"
x4096="b'X' * 4096 + b'\\n'"
out=$(talk "$x4095" "b'PING\\n'")
check "4095 bytes and a newline (4096): a command, the connection stays [$(echo $out)]" \
	[ "$out" = $'ERR unknown command\nPONG' ]
out=$(talk "$x4096")
check "4096 bytes and a newline (4097) in one write: too long, closed [$(echo $out)]" \
	[ "$out" = $'ERR line too long\nCLOSED' ]
out=$(talk "b'X' * 3000" "b'X' * 1096 + b'\\n'")
check "4096 bytes and a newline in two writes: too long, closed [$(echo $out)]" \
	[ "$out" = $'ERR line too long\nCLOSED' ]
out=$(talk "b'PING\\n' + $x4096")
check "PING and a 4097-byte line in one write: PONG, then too long [$(echo $out)]" \
	[ "$out" = $'PONG\nERR line too long\nCLOSED' ]
finish $NAME
