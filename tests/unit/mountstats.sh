#!/usr/bin/env bash
# The client's mountstats per-op counts against nfsrdma-dissect and the
# kernel's rpc_stats_latency on every lab capture (tests/unit/mountstats.py),
# then the same comparison shown to fail on two planted errors: a
# dissector that loses one RPC, and a mountstats with one op too many;
# and the probe lab's comparison (probe_compare) passing and failing.
# Closing line: "mountstats: N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=${NFSRDMA_SRCDIR:-$here/../..}
export PYTHONDONTWRITEBYTECODE=1   # the import below leaves nothing in the tree
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
    # The probe lab's comparison (tests/probe/check.py: probe_compare) on
    # a probe made from smoke's trace: attached after the first 3 NFS RPCs
    # (the mount's NULL, FSINFO, PATHCONF), stopped before the snapshot.
    while read -r verdict what; do
        case $verdict in
            PASS) p=$((p + 1)) ;;
            *) f=$((f + 1)) ;;
        esac
        echo "$verdict mountstats: $what"
    done < <(python3 - "$here" "${cap%.pcap}.truth" <<'EOP'
import sys
sys.path.insert(0, sys.argv[1])
import mountstats as m
tdir = sys.argv[2]
rpcs, marker, _ = m.trace(tdir + "/client.trace")
probe = [(x, op) for t, _, _, x, op in rpcs[3:] if t < marker]
window = {x for x, _ in probe}
for what, recs, want in (("a probe missing the 3 RPCs before its window", probe, True),
                         ("a probe that lost one record in its window", probe[1:], False)):
    res = []
    m.probe_compare("smoke", tdir, recs, window, lambda c, w: res.append((c, w)) or c)
    last = res[-1] if res else (None, "no check made")
    good = all(c for c, _ in res[:-1]) and last[0] is want
    print("%s probe_compare: %s %s (%s)" % ("PASS" if good else "FAIL", what,
                                          "passes" if want else "fails", last[1]))
EOP
)
fi
echo "mountstats: $p passed, $f failed"
(( f == 0 ))
