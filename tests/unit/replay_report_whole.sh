#!/usr/bin/env bash
# The replay's --json reports as test_replay_report_whole renders them (a
# run with two clients, an NFSv4.0 run, a trace with no calls), each line
# read by python's json module: valid JSON, one object per line, the
# members docs/replay.md names for each.
# Closing line: "replay-report-whole: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
T=${O:-build}/tests/test_replay_report_whole
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -x "$T" ] || { echo "replay-report-whole: $T missing (make tests first)"; echo "replay-report-whole: 0 passed, 1 failed"; exit 1; }
"$T" "$tmp/reports.jsonl" >/dev/null 2>&1
python3 - "$tmp/reports.jsonl" <<'PY'
import json, sys
p = f = 0
def check(ok, what):
    global p, f
    if ok:
        p += 1
    else:
        f += 1
        print("FAIL replay-report-whole:", what)
lines = open(sys.argv[1], "rb").read().split(b"\n")
check(len(lines) == 4 and lines[-1] == b"", f"three lines, newline-ended ({len(lines) - 1})")
objs = []
for i, l in enumerate(lines[:-1]):
    try:
        objs.append(json.loads(l.decode("utf-8")))
        check(True, "")
    except (ValueError, UnicodeDecodeError) as e:
        check(False, f"line {i + 1} is not JSON: {e}")
run = ["trace", "target", "transport", "export", "exit", "seconds", "calls_per_s", "mb_per_s",
       "bytes_read", "bytes_written", "idle_cut", "totals", "clients", "cross_client", "issue", "holds",
       "issue_with_holds", "issue_parts", "blocking", "transport_stats", "nfs4", "ops", "mismatches"]
if len(objs) == 3:
    a, b, c = objs
    check(list(a) == run, f"a run's members in order: {list(a)}")
    check(a["trace"] == 'dir/a "quoted".pcap', "the trace's name, its quotes escaped and read back")
    check([o["op"] for o in a["ops"]] == ["NFSv3 GETATTR", "NFSv4.1 READ", "other"], "ops sorted, other last")
    check(a["nfs4"]["bound_dir"] == "both" and b["nfs4"]["minor"] == 0 and "renews" in b["nfs4"],
          "the 4.1 and 4.0 nfs4 objects")
    check(a["idle_cut"] is None and b["idle_cut"] == {"max_idle_ns": 500000000, "stretches": 2,
                                                      "removed_ns": 4997000000}, "idle_cut: null, then --max-idle's")
    check(a["clients"][0]["callbacks"] == {"served": True, "calls": 2, "recalls": 1}
          and "callbacks" not in a["clients"][1], "callbacks only for the NFSv4 client")
    check(c == {"type": "no_calls", "trace": 'dir/a "quoted".pcap', "packets": 12, "rpcrdma_v1": 0,
                "rpc_tcp_udp": 3, "other_program_calls": 0, "long_calls": 0, "undecodable": 0,
                "not_rpcrdma": 0, "rpcrdma_v2": 1}, f"the no-calls object: {c}")
print(f"replay-report-whole: {p} passed, {f} failed")
sys.exit(1 if f else 0)
PY
