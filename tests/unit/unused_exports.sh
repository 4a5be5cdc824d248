#!/usr/bin/env bash
# Every function the two libraries export is used by another file: a .c
# other than its own (a tool, a test, a bench, another layer), or an
# inline in a header.  One used only where it is defined is static; one
# nobody calls goes (issue: "unused exports removed").  The archives' own
# symbol tables (nm) say what is exported; the generated protobuf code
# (src/daemon/metrics_pb.c) is left out.
# Closing line: "unused-exports: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
libs=("$O/libnfsrdma.a" "$O/libnfsrdma-dissect.a")
for l in "${libs[@]}"; do
	[ -f "$l" ] || { echo "unused-exports: $l missing (make first)"; echo "unused-exports: 0 passed, 1 failed"; exit 1; }
done
command -v nm >/dev/null || { echo "unused-exports: nm missing"; echo "unused-exports: 0 passed, 1 failed"; exit 1; }
# "symbol object.o" for each exported function
nm -A -g --defined-only "${libs[@]}" 2>/dev/null |
	awk 'NF == 3 && $2 == "T" { n = split($1, a, ":"); print $3, a[n - 1] }' | sort -u >"${TMPDIR:-/tmp}/ue.$$"
python3 - "${TMPDIR:-/tmp}/ue.$$" <<'PY'
import os, re, sys, collections
obj = dict(l.split() for l in open(sys.argv[1]) if l.strip())
syms = [s for s in obj if not s.startswith("io__prometheus__")]
os.unlink(sys.argv[1])
word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
uses = collections.defaultdict(lambda: collections.Counter())   # symbol -> file -> count
want = set(syms)
for top in ("src", "cli", "dissect", "pcap", "bpf", "tests", "bench"):
    for dp, dn, fn in os.walk(top):
        if "/corpus" in dp or "/fuzz/corpus" in dp:
            continue
        for f in fn:
            # shell tests hold C of their own (tests/daemon/unit.sh)
            if not f.endswith((".c", ".h", ".sh")):
                continue
            p = os.path.join(dp, f)
            for w in word.findall(open(p, errors="replace").read()):
                if w in want:
                    uses[w][p] += 1
p = fail = 0
for s in syms:
    u = uses[s]
    cfiles = [f for f in u if f.endswith((".c", ".sh"))]
    # the defining file: the library's object it is in (nm)
    own = obj[s][:-2] + ".c"
    others = [f for f in cfiles if os.path.basename(f) != own]
    inline = any(f.endswith(".h") and n >= 2 for f, n in u.items())
    if others or inline:
        p += 1
    else:
        fail += 1
        print(f"FAIL unused-exports: {s} ({', '.join(cfiles) or 'no file'}): used nowhere else: static, or remove it")
if p < 100:
    fail += 1
    print(f"FAIL unused-exports: only {p} exports found used (the archives' symbols not read?)")
print(f"unused-exports: {p} passed, {fail} failed")
sys.exit(1 if fail else 0)
PY
