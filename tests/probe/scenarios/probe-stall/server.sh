# Server of probe-stall: once the client's reads run (stall.go), every
# frame the server sends is dropped (netem loss 100% on eth0's egress:
# calls still arrive, no reply or ack leaves) for LAB_ARG_STALL_S seconds.
# The truth, on this guest's CLOCK_MONOTONIC, goes to server.stall: the
# drop is on before stall.on is signalled and off before stall.off.
# shellcheck shell=bash
stall_note() {
    python3 -c 'import sys, time; print(sys.argv[1], time.clock_gettime_ns(time.CLOCK_MONOTONIC))' "$1" \
        >> "$LAB_OUT/server.stall"
}
lab_server_start
lab_wait stall.go
modprobe sch_netem
tc qdisc replace dev eth0 root netem loss 100% limit 100000
stall_note drop_on
lab_signal stall.on
lab_log "netem loss 100% on for ${LAB_ARG_STALL_S:-12} s"
sleep "${LAB_ARG_STALL_S:-12}"
tc qdisc del dev eth0 root
stall_note drop_off
lab_signal stall.off
lab_log "netem off"
lab_wait workload.done
lab_server_finish
