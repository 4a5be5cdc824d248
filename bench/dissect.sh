#!/usr/bin/env bash
# nfsrdma-dissect throughput and memory, side by side with tshark and cat,
# on a large capture built from the lab's real traffic (bench/README.md).
#
#   bench/dissect.sh [MEGABYTES]     1x size (default 100; the 10x run is 10 times it)
#
# Builds, in $TMPDIR (never committed): 1x and 10x captures with
# bench/mkbigcap.c from the lab captures, and a slice for tshark (it is
# ~100 times slower; rates, not times, are compared).  Prints rates,
# the ratios against the targets (>= 50x tshark, >= 1 M packets/s on one
# core, >= 25 % of cat) and the maximum RSS at 1x and 10x.  Not pass/fail.
#
# Then "vs dd": a ~400 MB capture of large frames, the lab capture of
# parallel 64 KB reads and writes (tests/captures/parallel.pcap, 1.3 MB)
# repeated by bench/mkbigcap.c (each pass a new connection, later in time;
# `mergecap -a` of identical copies would replay the same connections and
# XIDs with time going backwards), and `nfsrdma-dissect --json big.pcap
# >/dev/null` timed in turns with `dd if=big.pcap of=/dev/null bs=1M`,
# page cache warm: wall-clock medians and the rate ratio (target >= 80 %);
# the same capture as pcapng (editcap -F pcapng) beside it, and the
# capture reader alone (bench/capread_speed.c) on both, and on the pcapng
# through libpcap (standard input, which is not mapped).
# DISSECT_DD_MB sets the size (default 400; 0 skips it).  Then the same
# capture gzip'd and zstd'd, read directly, beside zcat / zstdcat of it.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
BIN=$O/bin/nfsrdma-dissect
MB=${1:-${DISSECT_BENCH_MB:-100}}
SLICE_MB=${DISSECT_BENCH_SLICE_MB:-10}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

[ -x "$BIN" ] || { echo "bench dissect: $BIN not built (make)"; exit 1; }
SRCS=()
for n in nfs3-read-write parallel nfs42 nfs41 nfs40 nfs3-metadata nfs3-readdirplus smoke nfs3-symlink server-restart; do
	[ -r "tests/captures/$n.pcap" ] && SRCS+=("tests/captures/$n.pcap")
done
[ ${#SRCS[@]} -gt 0 ] || { echo "bench dissect: no lab captures in tests/captures"; exit 1; }
cc -O2 -o "$TMP/mkbigcap" bench/mkbigcap.c || exit 1

mk() {   # mk NAME MEGABYTES -> prints frames
	"$TMP/mkbigcap" "$TMP/$1.pcap" "$2" "${SRCS[@]}" 2>&1 | sed -nE 's/.*: ([0-9]+) frames.*/\1/p'
}
F1=$(mk x1 "$MB")
F10=$(mk x10 $((MB * 10)))
FS=$(mk slice "$SLICE_MB")
size() { stat -c %s "$1"; }
S1=$(size "$TMP/x1.pcap"); S10=$(size "$TMP/x10.pcap"); SS=$(size "$TMP/slice.pcap")

cat "$TMP/x10.pcap" >/dev/null; cat "$TMP/x1.pcap" >/dev/null   # page cache
TSHARK=$(command -v tshark || true)
python3 - "$TMP" "$BIN" "$TSHARK" "$F1" "$F10" "$FS" <<'PY'
# Every command runs under /usr/bin/time (its CPU time, user + sys, and
# its max RSS: /usr/bin/time is small, so the child's RSS high-water mark
# starts near zero).  CPU time is what "on one core" means; the machine
# may be busy with other work, so cat and the dissector run in turns and
# each ratio is the median of the ratios of neighbouring runs.
import os, statistics, subprocess, sys, time
tmp, binp, tshark = sys.argv[1], sys.argv[2], sys.argv[3]
f1, f10, fs = (int(x) for x in sys.argv[4:7])

# perf's task-clock (scheduler clock, nanoseconds) when perf works;
# /usr/bin/time's user + sys (10 ms steps) otherwise.
PERF = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "true"], capture_output=True).returncode == 0 \
    if any(os.access(os.path.join(d, "perf"), os.X_OK) for d in os.environ["PATH"].split(":")) else False

def run(argv):
    out, pout = os.path.join(tmp, "rusage"), os.path.join(tmp, "perf")
    cmd = ["/usr/bin/time", "-f", "%U %S %M", "-o", out] + argv
    if PERF:
        cmd = ["perf", "stat", "-x,", "-e", "task-clock", "-o", pout, "--"] + cmd
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null, open(os.path.join(tmp, "err"), "wb") as err:
        subprocess.run(cmd, stdout=null, stderr=err)
    wall = time.monotonic() - t0
    u, s_, m = open(out).read().split()[-3:]
    cpu = float(u) + float(s_)
    if PERF:
        for ln in open(pout):
            if "task-clock" in ln:
                cpu = float(ln.split(",")[0]) / 1e3
    return max(cpu, 0.001), wall, int(m)

size = lambda n: os.path.getsize(os.path.join(tmp, n + ".pcap"))
s1, s10, ss = size("x1"), size("x10"), size("slice")
x1, x10, sl = (os.path.join(tmp, n + ".pcap") for n in ("x1", "x10", "slice"))
dis = lambda f: [binp, "-q", "-z", "proc", f]
r1 = [run(dis(x1)) for _ in range(5)]
with open(os.path.join(tmp, "err")) as f:
    err = f.read()
if "error" in err:
    print("bench dissect: the dissector reported errors:\n" + err[:300])
pairs = []
for _ in range(7):
    c = run(["cat", x10])
    d = run(dis(x10))
    pairs.append((c, d))
ts = run([tshark, "-2", "-q", "-z", "rpc,srt,100003,3", "-r", sl]) if tshark else None
med = lambda v: statistics.median(v)
MB = 1048576.0
load = open("/proc/loadavg").read().split()[0]
print("capture: lab traffic replayed (bench/mkbigcap.c): 1x %.0f MB %d frames, 10x %.0f MB %d frames; "
      "tshark slice %.0f MB %d frames" % (s1 / MB, f1, s10 / MB, f10, ss / MB, fs))
print("rates per CPU second (%s: one core), medians; wall-clock rate beside (load average %s)" %
      ("perf task-clock" if PERF else "user + sys", load))
print("%-42s %9s %11s %9s %10s" % ("", "MB/s", "packets/s", "wall MB/s", "max RSS"))
def line(name, runs, size, frames):
    cpu, wall, rss = med([r[0] for r in runs]), med([r[1] for r in runs]), max(r[2] for r in runs)
    print("%-42s %9.1f %11s %9.1f %7d kB" % (name, size / MB / cpu, "%.0f" % (frames / cpu) if frames else "-",
                                             size / MB / wall, rss))
    return cpu, rss
c1, rss1 = line("nfsrdma-dissect -q -z proc (1x)", r1, s1, f1)
c10, rss10 = line("nfsrdma-dissect -q -z proc (10x)", [d for _, d in pairs], s10, f10)
if ts:
    line("tshark -2 -q -z rpc,srt,100003,3 (slice)", [ts], ss, fs)
line("cat file >/dev/null (10x, page cache)", [c for c, _ in pairs], s10, 0)
pps = f10 / c10
print("ratios (10x run, CPU time):")
if ts:
    r = pps / (fs / ts[0])
    print("  vs tshark   %8.1fx   (target >= 50x)   %s" % (r, "met" if r >= 50 else "NOT met"))
else:
    print("  vs tshark   (tshark not installed)")
print("  packets/s   %8.2f M  (target >= 1 M)   %s" % (pps / 1e6, "met" if pps >= 1e6 else "NOT met"))
r = med([c[0] / d[0] for c, d in pairs])
rw = med([c[1] / d[1] for c, d in pairs])
print("  vs cat      %8.1f %%  (target >= 25 %%)  %s   (wall clock: %.1f %%)" %
      (100 * r, "met" if r >= 0.25 else "NOT met", 100 * rw))
print("  memory      %8d kB at 1x, %d kB at 10x (%s)" %
      (rss1, rss10, "bounded" if rss10 <= 1.5 * rss1 + 4096 else "GROWS with the capture"))
PY

DD_MB=${DISSECT_DD_MB:-400}
if [ "$DD_MB" -gt 0 ] && [ -r tests/captures/parallel.pcap ]; then
	"$TMP/mkbigcap" "$TMP/dd.pcap" "$DD_MB" tests/captures/parallel.pcap >"$TMP/dd.log" 2>&1 || { cat "$TMP/dd.log"; exit 1; }
	read -r DD_FRAMES DD_PASSES < <(sed -nE 's/.*: ([0-9]+) frames.* ([0-9]+) passes.*/\1 \2/p' "$TMP/dd.log")
	rm -f "$TMP/x1.pcap" "$TMP/x10.pcap"   # room in $TMPDIR
	cat "$TMP/dd.pcap" >/dev/null
	# the same records as pcapng (issue 26 item 12): dumpcap's and
	# Wireshark's default format, mapped like classic pcap since
	editcap -F pcapng "$TMP/dd.pcap" "$TMP/dd.pcapng" || exit 1
	cc -O2 -I. bench/capread_speed.c "$O/libnfsrdma.a" $(make -s --no-print-directory print-ldlibs) \
		-o "$TMP/capread" || exit 1
	cat "$TMP/dd.pcapng" >/dev/null
	python3 - "$TMP/dd.pcap" "$BIN" "${DD_FRAMES:-0}" "${DD_PASSES:-0}" "$TMP/capread" <<'PY'
import os, statistics, subprocess, sys, time
cap, binp, frames, passes, capread = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
import resource
ng = cap + "ng"
def run(argv, stdin=None):
    """(wall seconds, CPU seconds: user + sys of the child)"""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null, open(stdin or os.devnull, "rb") as f:
        subprocess.run(argv, stdin=f, stdout=null, stderr=null)
    t1 = time.monotonic()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
dd = ["dd", "if=" + cap, "of=/dev/null", "bs=1M"]
# name, argv, stdin: each run in turns with dd
cmds = [("dissect --json pcap", [binp, "--json", cap], None),
        ("dissect --json pcapng", [binp, "--json", ng], None),
        ("reader alone, pcap", [capread, cap], None),
        ("reader alone, pcapng", [capread, ng], None),
        ("reader alone, pcapng, libpcap", [capread, "-"], ng)]
for _, argv, stdin in cmds:
    run(argv, stdin)                       # warm-up
runs = []
for _ in range(7):
    runs.append([run(dd)] + [run(argv, stdin) for _, argv, stdin in cmds])
size = os.path.getsize(cap) / 1048576.0
med = statistics.median
print("vs dd: %.0f MB (pcapng %.0f MB), %d frames (parallel.pcap x %d passes), page cache warm, "
      "medians of 7 in turns; rate / dd's: the median of the ratios to the neighbouring dd" %
      (size, os.path.getsize(ng) / 1048576.0, frames, passes))
print("  %-34s %8s %8s  %10s  %14s %14s" % ("", "wall", "CPU", "MB/s wall", "rate/dd wall", "rate/dd CPU"))
print("  %-34s %7.3fs %7.3fs  %10.1f" % ("dd bs=1M (the pcap)", med(r[0][0] for r in runs),
                                           med(r[0][1] for r in runs), size / med(r[0][0] for r in runs)))
for k, (name, _, _) in enumerate(cmds, 1):
    w, c = med(r[k][0] for r in runs), med(r[k][1] for r in runs)
    rw = med(r[0][0] / r[k][0] for r in runs)
    rc = med(r[0][1] / max(r[k][1], 1e-6) for r in runs)
    tgt = "  (target >= 80 %%: %s)" % ("met" if rw >= 0.8 else "NOT met") if name.startswith("dissect") else ""
    print("  %-34s %7.3fs %7.3fs  %10.1f  %13.1f%% %13.1f%%%s" % (name, w, c, size / w, 100 * rw, 100 * rc, tgt))
PY
	rm -f "$TMP/dd.pcapng"
	# Compressed (issue 16): the same capture gzip'd and zstd'd, read
	# directly, in turns with the decompressor alone (zcat, zstdcat).
	gzip -1 -c "$TMP/dd.pcap" >"$TMP/dd.pcap.gz" && zstd -q -c "$TMP/dd.pcap" >"$TMP/dd.pcap.zst" && rm -f "$TMP/dd.pcap" &&
	python3 - "$TMP/dd.pcap" "$BIN" <<'PY'
import os, statistics, subprocess, sys, time
cap, binp = sys.argv[1], sys.argv[2]
def wall(argv):
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null:
        subprocess.run(argv, stdout=null, stderr=null)
    return time.monotonic() - t0
print("compressed, the same capture: wall-clock medians of 5, in turns with the decompressor alone")
for ext, cat in (("gz", "zcat"), ("zst", "zstdcat")):
    f = cap + "." + ext
    wall([cat, f]); wall([binp, "--json", f])
    runs = [(wall([cat, f]), wall([binp, "--json", f])) for _ in range(5)]
    mc, md = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print("  %-4s %5.0f MB  %-8s %7.3f s   nfsrdma-dissect --json %7.3f s   dissect / %s rate %5.1f %%" %
          (ext, os.path.getsize(f) / 1048576.0, cat, mc, md, cat, 100 * statistics.median(r[0] / r[1] for r in runs)))
PY
fi
