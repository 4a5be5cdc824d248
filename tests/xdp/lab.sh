#!/usr/bin/env bash
# The XDP source in a real guest (tests/xdp/scenarios/xdp-guest): nfsrdmad
# --source xdp:IFACE,generic in the lab client during an NFSv3/RDMA
# workload.  On the host, its per-XID JSON is compared with
#   - nfsrdma-dissect --json of the same run's capture.pcap,
#   - the kernel's own view: client.trace rpc_stats_latency XIDs,
# and NFS must have kept working.  Needs root + the lab (tests/lab).
# Ends with "xdp-lab: N passed, N failed".  About 60-90 s.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
O=${O:-build}
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
end() { echo "xdp-lab: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
if [ "$(id -u)" -ne 0 ]; then no "needs root (qemu lab)"; end; fi
bin=$(cd "$O/bin" 2>/dev/null && pwd)
[ -n "$bin" ] && [ -x "$bin/nfsrdmad" ] && [ -x "$bin/nfsrdma-dissect" ] || { no "$O/bin: nfsrdmad / nfsrdma-dissect missing (make O=$O)"; end; }
# XDP_LAB_OUT=DIR keeps the run in DIR (XDP_LAB_REUSE=1: compare an earlier run there)
base=$(mktemp -d "${TMPDIR:-/tmp}/xdp-lab.XXXXXX")
out=${XDP_LAB_OUT:-$base/out}
[ -n "${LAB_KEEP:-}" ] || trap 'rm -rf "$base"' EXIT
if [ -z "${XDP_LAB_REUSE:-}" ]; then
	LAB_ARG_BIN=$bin timeout 260 tests/lab/run-scenario tests/xdp/scenarios/xdp-guest "$out" >"$base/run.log" 2>&1 ||
		{ no "run-scenario failed (see $out/client.console)"; tail -5 "$base/run.log"; }
fi

[ "$(cat "$out/client.rc" 2>/dev/null)" = 0 ] && [ -f "$out/nfs.ok" ] &&
	ok "NFS workload completed (data read back equal) with XDP attached" ||
	no "client workload failed (client.rc=$(cat "$out/client.rc" 2>/dev/null))"
grep -q "proto=rdma" "$out/client.mounts" 2>/dev/null && ok "mount was over RDMA" || no "mount not proto=rdma"
for n in eth0 mirror; do
	grep -q "xdp: attached to .* generic mode" "$out/xdp-$n.log" 2>/dev/null && ok "xdp-$n: attached in generic mode" ||
		no "xdp-$n: no generic attach in its log: $(head -c 300 "$out/xdp-$n.log" 2>/dev/null)"
done
grep -q "xdp: xmir1 is a mirror port" "$out/xdp-mirror.log" 2>/dev/null && ok "xdp-mirror: mirror-port mode on (the copies are dropped after they are recorded)" ||
	no "xdp-mirror: no mirror-port line in its log"
# The software SPAN port (span.py) copied every frame: none refused, none
# dropped by its receive buffer (else XIDs missing below are its fault).
span=$(tail -n1 "$out/span.log" 2>/dev/null)
case $span in
	"span: "*" 0 refused, 0 dropped by the receive buffer") ok "span port: ${span#span: }" ;;
	*) no "span port lost frames or did not report: ${span:-no span.log}" ;;
esac
[ -s "$out/capture.pcap" ] || { no "no capture.pcap"; end; }
"$bin/nfsrdma-dissect" --json "$out/capture.pcap" >"$base/dissect.jsonl" 2>"$base/dissect.err" ||
	no "nfsrdma-dissect failed on the capture"

py=$(python3 - "$out" "$base/dissect.jsonl" 2>&1 <<'PY'
import json, re, sys
out = sys.argv[1]
def load(p):
    recs = {}
    try:
        for line in open(p):
            line = line.strip()
            if not line.startswith('{'):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if 'xid' not in r or 'ts' not in r:
                continue        # summaries
            recs.setdefault(r['xid'], r)
    except OSError:
        pass
    return recs
res = []
def check(cond, msg):
    res.append((bool(cond), msg))
d = load(sys.argv[2])
m = load(out + '/xdp-mirror.jsonl')
e = load(out + '/xdp-eth0.jsonl')
nfs = lambda r: r.get('prog') in (100003, 100227)   # NFS, NFSACL
dn = {x: r for x, r in d.items() if nfs(r)}
check(len(dn) >= 10, f"dissector: {len(dn)} NFS/NFSACL XIDs in capture.pcap")
keys = ('prog', 'vers', 'proc', 'procedure', 'status', 'rpc_status', 'prog_status', 'rdma_vers')
# mirror port: every frame both ways -> the same per-XID records
mn = {x: r for x, r in m.items() if nfs(r)}
check(len(mn) >= 10, f"xdp mirror: {len(mn)} NFS/NFSACL XIDs")
last = max((r['ts']['call_first'] for r in mn.values()), default=0)
missing = [x for x in dn if x not in mn and dn[x]['ts']['call_first'] <= last]
extra = [x for x in mn if x not in dn]
diff = [x for x in mn if x in dn and any(mn[x].get(k) != dn[x].get(k) for k in keys)]
check(not missing, f"xdp mirror: every dissector NFS XID up to the last XDP one is there ({len(missing)} missing {missing[:5]})")
check(not extra, f"xdp mirror: no XID the dissector lacks ({len(extra)} extra {extra[:5]})")
check(not diff, f"xdp mirror: key fields {keys} equal for {len(mn) - len(diff)}/{len(mn)} XIDs ({diff[:5]})")
src = {r.get('source') for r in m.values()}
check(src == {'xdp'}, f"xdp mirror: records say source xdp ({src})")
# eth0 (ingress only): what it reports exists, with the same XID
check(len(e) > 0, f"xdp eth0 (receive side only): {len(e)} per-XID records")
ex = [x for x in e if x not in d]
check(not ex, f"xdp eth0: every XID is one the dissector has ({len(ex)} unknown {ex[:5]})")
# kernel ground truth: rpc_stats_latency of NFS calls
kx = set()
try:
    for line in open(out + '/client.trace'):
        mm = re.search(r'rpc_stats_latency: .*xid=(0x[0-9a-f]+) nfs', line, re.I)   # nfsv3, nfsaclv3
        if mm:
            kx.add(int(mm.group(1), 16))
except OSError:
    pass
mx = {int(x, 16) for x in mn}
kin = [k for k in kx if k in mx]
check(len(kx) >= 10, f"kernel: {len(kx)} NFS/NFSACL XIDs in client.trace rpc_stats_latency")
# XDP is attached before the mount and detached after the workload; the
# unmount sends no NFS call over RDMA, so every kernel XID must be there
check(len(kin) == len(kx), f"kernel: {len(kin)}/{len(kx)} kernel NFS/NFSACL XIDs are in the XDP records")
ku = [x for x in mx if x not in kx]
check(not ku, f"kernel: every XDP NFS/NFSACL XID is one the kernel completed ({len(ku)} not: {[hex(x) for x in ku[:5]]})")
for okk, msg in res:
    print(('ok: ' if okk else 'FAIL: ') + msg)
PY
)
echo "$py"
pass=$((pass + $(grep -c '^ok: ' <<<"$py")))
fail=$((fail + $(grep -c '^FAIL: ' <<<"$py")))
grep -q '^ok: \|^FAIL: ' <<<"$py" || no "comparison did not run: $py"
end
