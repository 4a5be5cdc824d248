# Client of probe-cost.  1: with the server's probes attached, the client's
# empty programs and probe, a mixed workload (O_DIRECT 256 KB WRITE and READ,
# small files created, read, listed, removed); the kernel's accounting
# then (client.bpftool.json).  2: a steady RPC stream (4 KB O_DIRECT reads)
# in the background and a fixed-work loop timed in rounds, probes off and on
# in ABBA order, seconds to $LAB_OUT/overhead.txt ("off|on ROUND SECONDS").
#   LAB_ARG_COST_MB (4), LAB_ARG_COST_FILES (40), LAB_ARG_OV_ROUNDS (8),
#   LAB_ARG_OV_WORK (loop iterations, 400000)
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"
sysctl -qw kernel.bpf_stats_enabled=1
lab_wait cost.server
# shellcheck disable=SC2086
empty_start client-empty $LAB_ARG_CLIENT_TPS
probe_start client-cost --side client --quiet
lab_mount
lab_log "cost workload start"
dd if=/dev/urandom of=/tmp/data bs=1M count="${LAB_ARG_COST_MB:-4}" status=none
dd if=/tmp/data of="$LAB_MNT/cost.dat" bs=256k oflag=direct status=none
dd if="$LAB_MNT/cost.dat" of=/dev/null bs=256k iflag=direct status=none
for ((i = 0; i < ${LAB_ARG_COST_FILES:-40}; i++)); do
    echo "small $i" > "$LAB_MNT/f$i"
done
sync
ls -l "$LAB_MNT" > /dev/null
for ((i = 0; i < ${LAB_ARG_COST_FILES:-40}; i++)); do
    cat "$LAB_MNT/f$i" > /dev/null
    rm "$LAB_MNT/f$i"
done
lab_log "cost workload end"
bpftool -j prog show > "$LAB_OUT/client.bpftool.json"
probe_stop client-cost
kill -INT "$(cat /tmp/client-empty.pid)"
lab_signal cost.client.done
lab_wait cost.server.done

# 2: the overhead.  The stream runs throughout; only the probe comes and goes.
dd if=/dev/urandom of="$LAB_MNT/stream.dat" bs=4k count=1 oflag=direct status=none
rm -f /tmp/stream.stop
( while [[ ! -e /tmp/stream.stop ]]; do
      dd if="$LAB_MNT/stream.dat" of=/dev/null bs=4k count=1 iflag=direct status=none
  done ) &
work() {   # seconds of a fixed CPU loop
    local t0 t1
    t0=$(date +%s.%N)
    awk -v n="${LAB_ARG_OV_WORK:-400000}" 'BEGIN { for (i = 0; i < n; i++) s += i * i; }'
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }'
}
work > /dev/null   # warm-up
on() { probe_start "client-ov.$1" --side client --quiet; echo "on $1 $(work)" >> "$LAB_OUT/overhead.txt"; probe_stop "client-ov.$1"; }
off() { echo "off $1 $(work)" >> "$LAB_OUT/overhead.txt"; }
for ((r = 1; r <= ${LAB_ARG_OV_ROUNDS:-8}; r++)); do
    if ((r % 2)); then off "$r"; on "$r"; else on "$r"; off "$r"; fi
done
touch /tmp/stream.stop
wait
lab_signal workload.done
