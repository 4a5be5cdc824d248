#!/usr/bin/env bash
# bench/replay.sh: nfsrdma-replay against its peers on the same soft-RoCE
# link, in one lab boot (tests/replay/scenarios/replay-bench):
#   - NULL-call rate vs perftest ib_send_bw message rate (64 B, rdma_cm),
#     target >= 80 %;
#   - 4 KiB READ IOPS at queue depth 32 vs the kernel NFS/RDMA client
#     (32 parallel dd with O_DIRECT on a proto=rdma mount), target >= 1.0x;
#   - the same two with --busy-poll, and the READ over RPC/TCP, for reference.
# Prints the ratios; never fails on a number (bench, not test).
# Needs root and the lab (tests/lab/README.md).  O= picks the build dir.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
out=${REPLAY_BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/replay-bench.XXXXXX")}
bin=$(cd "$O/bin" && pwd) || { echo "replay bench: no $O/bin (build first)"; exit 1; }
[ -x "$bin/nfsrdma-replay" ] || { echo "replay bench: no $bin/nfsrdma-replay"; exit 1; }
LAB_ARG_BIN=$bin tests/lab/run-scenario tests/replay/scenarios/replay-bench "$out" ||
    { echo "replay bench: lab run failed (see $out/*.console)"; exit 1; }
python3 - "$out" <<'PY'
import json, re, sys, os
out = sys.argv[1]
def rd(n):
    p = os.path.join(out, n)
    return open(p).read() if os.path.exists(p) else ""
def gen(n):
    try:
        return json.loads(rd(n + ".out"))["results"][0]
    except Exception:
        return None
# ib_send_bw prints: #bytes #iterations BW peak BW average MsgRate[Mpps]
bw = None
for line in rd("ib_send_bw.txt").splitlines():
    f = line.split()
    if len(f) >= 5 and f[0] == "64" and re.match(r"^[0-9.]+$", f[-1]):
        bw = float(f[-1]) * 1e6
null, rd4, rd4t = gen("bench-null"), gen("bench-read"), gen("bench-read-tcp")
m = re.search(r"ops=(\d+) seconds=([0-9.]+)", rd("kernel-read.txt"))
kern = int(m.group(1)) / float(m.group(2)) if m and float(m.group(2)) > 0 else None
print(f"results in {out}")
if bw and null:
    r = null["iops"] / bw
    print(f"NULL calls/s {null['iops']:.0f} (p50 {null['lat_us']['p50']:.0f} us) vs ib_send_bw {bw:.0f} msg/s: "
          f"ratio {r:.2f} (target >= 0.80) {'MET' if r >= 0.8 else 'NOT MET'}")
else:
    print(f"NULL ratio: missing data (ib_send_bw {bw}, null {null})")
if kern and rd4:
    r = rd4["iops"] / kern
    print(f"4 KiB READ QD32: nfsrdma-replay {rd4['iops']:.0f} IOPS (p50 {rd4['lat_us']['p50']:.0f} us, "
          f"{rd4['cpu_us_per_op']:.0f} us CPU/op) vs kernel NFS/RDMA client {kern:.0f} IOPS: ratio {r:.2f} "
          f"(target >= 1.0) {'MET' if r >= 1.0 else 'NOT MET'}")
else:
    print(f"READ ratio: missing data (kernel {kern}, replay {rd4})")
for name, label in (("bench-null-busy", "NULL"), ("bench-read-busy", "4 KiB READ QD32")):
    b = gen(name)
    if b:
        print(f"{label} with --busy-poll: {b['iops']:.0f} calls/s (p50 {b['lat_us']['p50']:.0f} us, "
              f"{b['cpu_us_per_op']:.0f} us CPU/op)")
if rd4t and rd4:
    print(f"same READ over RPC/TCP: {rd4t['iops']:.0f} IOPS (RDMA/TCP {rd4['iops'] / max(rd4t['iops'], 1e-9):.2f})")
PY
