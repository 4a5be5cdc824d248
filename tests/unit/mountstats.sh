#!/usr/bin/env bash
# The client's mountstats per-op counts against nfsrdma-dissect and the
# kernel's rpc_stats_latency on every lab capture (tests/unit/mountstats.py),
# then the same comparison shown to fail on two planted errors: a
# dissector that loses one RPC, and a mountstats with one op too many.
# Closing line: "mountstats: N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=${NFSRDMA_SRCDIR:-$here/../..}
out=$(python3 "$here/mountstats.py" "$@")
rc=$?
printf '%s\n' "$out" | sed '$d'
read -r p f < <(printf '%s\n' "$out" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1 \2/')
[[ $p =~ ^[0-9]+$ && $f =~ ^[0-9]+$ ]] || { p=0; f=1; echo "FAIL mountstats: no closing line (rc $rc)"; }
(( rc == 0 || f > 0 )) || { f=$((f + 1)); echo "FAIL mountstats: exit $rc with no failure"; }

cap=$top/tests/captures/smoke.pcap
if [[ $# -eq 0 && -f $cap ]]; then
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    bin=$top/${O:-build}/bin/nfsrdma-dissect
    planted() {   # planted WHAT WANT-IN-OUTPUT CMD...: the comparison must fail, naming it
        local what=$1 want=$2 o
        shift 2
        o=$("$@")
        if [[ $? -ne 0 && $o == *"FAIL mountstats: smoke: $want"* ]]; then
            p=$((p + 1)); echo "PASS mountstats: planted: $what fails ($want)"
        else
            f=$((f + 1)); echo "FAIL mountstats: planted: $what passed unnoticed"
        fi
    }
    # The dissector loses the first READ (its CSV row dropped).
    cat > "$tmp/dissect" <<EOS
#!/bin/sh
"$bin" "\$@" | awk -F, '\$7 == "READ" && !d { d = 1; next } { print }'
EOS
    chmod +x "$tmp/dissect"
    planted "a dissector missing one READ" "(a) nfsrdma-dissect per op = mountstats per op (16 RPCs; differ: dissector {}, mountstats {'READ': 1})" \
        env MOUNTSTATS_DISSECT="$tmp/dissect" python3 "$here/mountstats.py" "$cap"
    # mountstats with one GETATTR more than was made.
    cp "$cap" "$tmp/smoke.pcap"
    cp -r "${cap%.pcap}.truth" "$tmp/smoke.truth"
    sed -i -E 's/^(\s+GETATTR: )3 3 /\14 4 /' "$tmp/smoke.truth/client.mountstats"
    planted "a mountstats with one GETATTR too many" "(b) rpc_stats_latency per op = mountstats per op (17 RPCs; differ: trace {}, mountstats {'GETATTR': 1})" \
        python3 "$here/mountstats.py" "$tmp/smoke.pcap"
fi
echo "mountstats: $p passed, $f failed"
(( f == 0 ))
