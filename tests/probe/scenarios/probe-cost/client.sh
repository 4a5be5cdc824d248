# Client of probe-cost.  1: with the server's probes attached, the client's
# empty programs and probe, a mixed workload (O_DIRECT 256 KB WRITE and READ,
# small files created, read, listed, removed); the kernel's accounting
# then (client.bpftool.json).  2: the same READs in rounds, the client
# probe off and on in ABBA order, the host reading this guest's CPU time
# around each (bench/probes.sh).
#   LAB_ARG_COST_MB (4), LAB_ARG_COST_FILES (40), LAB_ARG_OV_ROUNDS (8),
#   LAB_ARG_OV_KB (1024: 256 READs a round)
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

# 2: the overhead, as the host's CPU time of this guest for the same RPCs.
# Each round reads a file in 4 KB O_DIRECT READs (one dd: LAB_ARG_OV_KB /
# 4 RPCs, no process per RPC); before and after it the guest names the
# moment (ov.MODE.ROUND.a / .b) and waits until the host has read the
# client qemu's CPU time (ack.*: bench/probes.sh), so the guest's waiting
# and the host's other load stay outside the measure.
dd if=/dev/urandom of="$LAB_MNT/stream.dat" bs=1k count="${LAB_ARG_OV_KB:-1024}" oflag=direct status=none
mark() { lab_signal "ov.$1"; lab_wait "ack.$1" 30; }
reads() { dd if="$LAB_MNT/stream.dat" of=/dev/null bs=4k iflag=direct status=none; }
reads   # warm-up
round() {   # MODE ROUND
    [[ $1 == on ]] && probe_start "client-ov.$2" --side client --quiet
    mark "$1.$2.a"
    reads
    mark "$1.$2.b"
    [[ $1 == on ]] && probe_stop "client-ov.$2"
    return 0
}
for ((r = 1; r <= ${LAB_ARG_OV_ROUNDS:-8}; r++)); do
    if ((r % 2)); then round off "$r"; round on "$r"; else round on "$r"; round off "$r"; fi
done
lab_signal workload.done
