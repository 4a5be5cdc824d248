# Client of probe-stall: nfsrdmad with the client probe and its metrics
# endpoint; O_DIRECT 4 KB READs in a loop (one RPC outstanding at almost
# every moment) while the server drops everything it sends; /metrics
# scraped before the reads, at LAB_ARG_SCRAPE_A and LAB_ARG_SCRAPE_B
# seconds after the drop was seen on (stall.on: the drop began before),
# and once the reads have ended after the drop.  Each scrape:
# client.scrape.NAME (the exposition) and a line "NAME mono_before
# mono_after" in client.stall, on this guest's CLOCK_MONOTONIC (the
# probes' clock); "start" is before nfsrdmad was started, "io_start"
# before the reads began, "on" when stall.on was seen.
# shellcheck shell=bash
: "${LAB_ARG_NFSRDMAD:?LAB_ARG_NFSRDMAD: path of nfsrdmad}"
ST=$LAB_OUT/client.stall
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
scrape() {   # NAME
    local a b
    a=$(mono)
    python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=20).read().decode())' \
        > "$LAB_OUT/client.scrape.$1" || echo "scrape $1 failed" >&2
    b=$(mono)
    echo "$1 $a $b" >> "$ST"
}
echo "start $(mono)" >> "$ST"
"$LAB_ARG_NFSRDMAD" --source kernel:client --metrics 127.0.0.1:9464 --socket none \
    --stall-after "${LAB_ARG_STALL_AFTER:-3}" > "$LAB_OUT/nfsrdmad-client.out" 2> "$LAB_OUT/nfsrdmad-client.err" &
dpid=$!
# attached once the gauges appear (the daemon has no ready file)
for ((i = 0; i < 300; i++)); do
    python3 -c 'import urllib.request, sys
sys.exit(b"nfsrdma_rpcs_in_flight" not in urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read())' \
        2> /dev/null && break
    kill -0 "$dpid" 2> /dev/null || break
    sleep 0.2
done
lab_log "nfsrdmad attached"
lab_mount
dd if=/dev/urandom of="$LAB_MNT/stall.dat" bs=64k count=4 oflag=direct status=none
scrape before
rm -f /tmp/stall.stop
echo "io_start $(mono)" >> "$ST"
(while [[ ! -e /tmp/stall.stop ]]; do
    dd if="$LAB_MNT/stall.dat" of=/dev/null bs=4k iflag=direct status=none
done) &
iopid=$!
sleep 1
lab_signal stall.go
lab_wait stall.on
t0=$(mono)
echo "on $t0" >> "$ST"
lab_log "drop seen on"
until (( $(mono) >= t0 + ${LAB_ARG_SCRAPE_A:-1500} * 1000000 )); do sleep 0.1; done
scrape during_a
until (( $(mono) >= t0 + ${LAB_ARG_SCRAPE_B:-7000} * 1000000 )); do sleep 0.1; done
scrape during_b
lab_wait stall.off
echo "off_seen $(mono)" >> "$ST"
touch /tmp/stall.stop
# the reads resume once the server answers again (1.3 s in a 6.1 run); a
# read still stuck a minute later is said with what the kernel was doing
# (a 6.12 run hung here until the scenario's timeout), then killed (NFS
# waits are killable) so the run ends and is judged
for ((i = 0; i < 600; i++)); do
    kill -0 "$iopid" 2> /dev/null || break
    sleep 0.1
done
if kill -0 "$iopid" 2> /dev/null; then
    echo "io_stuck $(mono)" >> "$ST"
    lab_log "reads still stuck 60 s after the drop ended: stacks in client.stuck"
    {
        for p in $(pgrep -x dd); do echo "== dd $p: $(cat "/proc/$p/wchan")"; cat "/proc/$p/stack"; done
        mount -t debugfs none /sys/kernel/debug 2> /dev/null
        for f in /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks /sys/kernel/debug/sunrpc/rpc_xprt/*/info; do
            echo "== $f"; cat "$f"
        done
        echo "== mountstats"; cat /proc/self/mountstats
        echo "== dmesg"; dmesg | tail -60
    } > "$LAB_OUT/client.stuck" 2>&1
    pkill -9 -x dd
    kill -9 "$iopid" 2> /dev/null
fi
wait "$iopid"
echo "io_done $(mono)" >> "$ST"
lab_log "reads done after the drop"
scrape after
lab_signal workload.done
kill -INT "$dpid"
rc=0; wait "$dpid" || rc=$?
echo "$rc" > "$LAB_OUT/nfsrdmad-client.rc"
