# The fuse-chrony scenario, both roles (tests/join/lab/README.md): chronyd
# in each guest, the server (10.9.0.1) serving its own clock to the client
# (10.9.0.2) over the lab link; nfsrdmad's probes in both, writing their
# records and the host's {"type":"clock"} lines; clock beacons for the
# truth.  Once the client is synchronised: a workload (the honest part),
# then the lie: the client's chronyd stopped, its wall clock stepped
# +50 ms while the kernel is told, again and again, that it is
# synchronised within 100 us (clocklie.py); a second workload.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"

chrony_conf() {   # role
    mkdir -p /run/chrony /var/lib/chrony
    # rtcsync: without it chronyd leaves the kernel's STA_UNSYNC set (the
    # first run: the client synchronised, its kernel still "unsync")
    if [[ $1 == server ]]; then
        printf '%s\n' "local stratum 1" "allow 10.9.0.0/24" "rtcsync" "driftfile /var/lib/chrony/drift"
    else
        # 16 polls a second: the kernel's maxerror grows 500 us/s between
        # updates; xleave: kernel transmit stamps, a shorter root delay
        printf '%s\n' "server $LAB_SERVER_IP iburst minpoll -4 maxpoll -4 xleave" "makestep 0.01 -1" \
            "rtcsync" "driftfile /var/lib/chrony/drift"
    fi > /tmp/chrony.conf
    chronyd -f /tmp/chrony.conf
    lab_log "chronyd started ($1)"
    if [[ $1 == server ]]; then
        # a local reference is synchronised to nothing, and chronyd says so
        # to the kernel (STA_UNSYNC, maxerror 16 s: the first run); the
        # server is the lab's time, within 20 us of itself by definition
        python3 "$LAB_REPO/tests/join/lab/clocklie.py" lie 0 20 /tmp/claim.stop &
        echo $! > /tmp/claim.pid
    fi
}

chrony_state() {   # what chrony and the kernel say, into ROLE.chrony
    # chronyc only while chronyd runs (it retries for a long while, then fails)
    { echo "== $1"
      if pgrep -x chronyd > /dev/null; then
          timeout 10 chronyc -n tracking 2>&1 || true; timeout 10 chronyc -n sources 2>&1 || true
      fi
      python3 "$LAB_REPO/tests/join/lab/clocklie.py" show || true; } >> "$LAB_OUT/$LAB_ROLE.chrony"
}

workload() {   # name: parallel writes, reads back, metadata
    local p pids=() i
    lab_log "workload $1 start"
    for i in 1 2 3; do
        dd if=/tmp/data of="$LAB_MNT/$1-f$i" bs=64k count=4 oflag=direct status=none & pids+=($!)
    done
    ( for i in $(seq 1 12); do echo "$i" > "$LAB_MNT/d/$1-s$i"; stat "$LAB_MNT/d/$1-s$i" > /dev/null; done
      ls -l "$LAB_MNT/d" > /dev/null ) & pids+=($!)
    for p in "${pids[@]}"; do wait "$p"; done
    lab_drop_caches
    pids=()
    for i in 1 2 3; do
        dd if="$LAB_MNT/$1-f$i" of="/tmp/back$i" bs=64k count=4 iflag=direct status=none & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    for i in 1 2 3; do cmp /tmp/data "/tmp/back$i"; done
    lab_log "workload $1 end"
}

if [[ $LAB_ROLE == server ]]; then
    chrony_hook() {
        clock_note boot
        chrony_conf server
        beacon_start "$LAB_CLIENT_IP"
        daemon_start server --source kernel:server
    }
    lab_server_start chrony_hook
    lab_wait workload.done 220
    chrony_state end
    daemon_stop server
    touch /tmp/claim.stop
    wait "$(cat /tmp/claim.pid)" || true
    beacon_stop
    clock_note end
else
    clock_note boot
    chrony_conf client
    # synchronised within 1 ms, or the scenario says so (the check fails)
    chronyc waitsync 60 0.001 > /dev/null 2>&1 || lab_log "chrony: not synchronised after 60 s"
    chrony_state synced
    beacon_start "$LAB_SERVER_IP"
    daemon_start client --source kernel:client
    sleep 6   # a second clock line, synchronised
    lab_mount
    dd if=/dev/urandom of=/tmp/data bs=64k count=4 status=none
    mkdir -p "$LAB_MNT/d"
    workload honest
    sleep 6   # a clock line after the honest part, before the lie
    # chronyd must not step the lie back: stopped, and gone
    kill "$(cat /run/chrony/chronyd.pid)"
    for ((i = 0; i < 50; i++)); do pgrep -x chronyd > /dev/null || break; sleep 0.1; done
    pgrep -x chronyd > /dev/null && lab_log "chronyd still running: the lie will be undone"
    sleep 1
    clock_note before-lie
    python3 "$LAB_REPO/tests/join/lab/clocklie.py" lie 50000000 100 /tmp/lie.stop &
    lie=$!
    sleep 1
    clock_note after-lie
    chrony_state lie
    sleep 6   # a clock line with the stepped clock, claiming 100 us
    workload lie
    sleep 6
    lab_signal workload.done
    daemon_stop client
    touch /tmp/lie.stop
    wait "$lie" || true
    beacon_stop
    clock_note end
fi
