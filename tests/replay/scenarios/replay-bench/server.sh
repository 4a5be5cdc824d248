# replay-bench server: knfsd with a 16 MB file, and an ib_send_bw server
# (rdma_cm) when the client asks for it.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
bench_prepare() {
    rp_populate
    dd if=/dev/urandom of="$LAB_EXPORT/bench.bin" bs=1M count=16 status=none
}
lab_server_start bench_prepare
lab_wait bw.start
ib_send_bw -d rxe0 -R -s 64 -n "${LAB_ARG_BW_N:-4000}" -F >"$LAB_OUT/ib_send_bw.server.txt" 2>&1 &
pid=$!
for _ in $(seq 150); do
    rdma resource show cm_id 2>/dev/null | grep -q 'src-port 18515' && break
    sleep 0.2
done
rdma resource show cm_id >"$LAB_OUT/cm_id.txt" 2>&1 || true
lab_signal bw.listening
wait "$pid" || true
