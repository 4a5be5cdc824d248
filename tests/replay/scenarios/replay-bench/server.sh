# replay-bench server: knfsd with a 16 MB file; a perftest server for each
# request of the client (pt.N holds its arguments); CPU snapshots and
# profiles on the client's markers (rp_watch); at the end, the profiles'
# summaries (after the client finished measuring, so perf report's CPU
# does not disturb a measurement).
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
bench_prepare() {
    rp_populate
    dd if=/dev/urandom of="$LAB_EXPORT/bench.bin" bs=1M count=16 status=none
}
lab_server_start bench_prepare
cat /proc/fs/nfsd/threads >"$LAB_OUT/server-nfsd-threads.txt" 2>&1 || true
for p in /proc/sys/sunrpc/svc_rdma/*; do echo "$p $(cat "$p" 2>/dev/null)"; done >"$LAB_OUT/server-svc-rdma.txt" 2>&1 || true
rp_watch &
watch=$!
n=1
while [[ ! -e $LAB_SYNC/bench.done ]]; do
    if [[ ! -e $LAB_SYNC/pt.$n ]]; then
        rp_tick 0.3
        continue
    fi
    read -r -a args <"$LAB_SYNC/pt.$n"
    timeout 100 "${args[@]}" >"$LAB_OUT/pt.$n.server.txt" 2>&1 &
    pid=$!
    for _ in $(seq 150); do
        rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN .*:18515 ' && break
        rp_tick 0.2
    done
    rdma resource show cm_id >"$LAB_OUT/pt.$n.cm_id.txt" 2>&1 || true
    lab_signal "pt.$n.listening"
    wait "$pid" || true
    n=$((n + 1))
done
wait "$watch" || true
rp_perf_report null-prof server
