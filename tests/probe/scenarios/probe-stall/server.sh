# Server of probe-stall: once the client's reads run (stall.go), every
# frame the server sends is dropped (netem loss 100% on eth0's egress:
# calls still arrive, no reply or ack leaves) for LAB_ARG_STALL_S seconds.
# The truth, on this guest's CLOCK_MONOTONIC, goes to server.stall: the
# drop is on before stall.on is signalled and off before stall.off.
# nfsrdmad with the server probe runs too: its /metrics scraped during
# the stop and once the client's reads have all ended (server.scrape.*).
# shellcheck shell=bash
stall_note() {
    python3 -c 'import sys, time; print(sys.argv[1], time.clock_gettime_ns(time.CLOCK_MONOTONIC))' "$1" \
        >> "$LAB_OUT/server.stall"
}
scrape() {   # NAME
    python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=20).read().decode())' \
        > "$LAB_OUT/server.scrape.$1" || echo "scrape $1 failed" >&2
    stall_note "$1"
}
lab_server_start
"$LAB_ARG_NFSRDMAD" --source kernel:server --metrics 127.0.0.1:9464 --socket none \
    --stall-after "${LAB_ARG_STALL_AFTER:-3}" > "$LAB_OUT/nfsrdmad-server.out" 2> "$LAB_OUT/nfsrdmad-server.err" &
dpid=$!
stall_note start
for ((i = 0; i < 300; i++)); do
    python3 -c 'import urllib.request, sys
sys.exit(b"nfsrdma_rpcs_in_flight" not in urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read())' \
        2> /dev/null && break
    kill -0 "$dpid" 2> /dev/null || break
    sleep 0.2
done
lab_log "nfsrdmad attached"
lab_wait stall.go
modprobe sch_netem
tc qdisc replace dev eth0 root netem loss 100% limit 100000
stall_note drop_on
lab_signal stall.on
lab_log "netem loss 100% on for ${LAB_ARG_STALL_S:-12} s"
sleep $(( ${LAB_ARG_STALL_S:-12} / 2 ))
scrape during
sleep $(( ${LAB_ARG_STALL_S:-12} - ${LAB_ARG_STALL_S:-12} / 2 ))
tc qdisc del dev eth0 root
stall_note drop_off
lab_signal stall.off
lab_log "netem off"
lab_wait workload.done
scrape after
# what the in-flight read saw of each nfsd thread: pid, wchan, state
for t in $(pgrep -x nfsd); do
    echo "$t $(cat "/proc/$t/wchan") $(awk '{ print $3 }' "/proc/$t/stat")"
done > "$LAB_OUT/server.nfsd-threads" || true
# and the probe's server maps as they are (bpftool, for the record)
for m in sreqs ssends sparked; do
    echo "== $m"; bpftool -j map dump name "$m" 2>&1 | head -c 20000; echo
done > "$LAB_OUT/server.maps" || true
kill -INT "$dpid"
rc=0; wait "$dpid" || rc=$?
echo "$rc" > "$LAB_OUT/nfsrdmad-server.rc"
lab_server_finish
