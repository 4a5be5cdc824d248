# server-restart: I/O before, during and after a knfsd restart. The write
# issued while the server is down waits; the client reconnects (new CM
# exchange) and retransmits it once the listener is back.
# shellcheck shell=bash
lab_mount
dd if=/dev/urandom of=/tmp/data bs=64k count=1 status=none
lab_log "phase: before restart"
dd if=/tmp/data of="$LAB_MNT/before" bs=64k count=1 oflag=direct status=none
lab_signal client.phase1
lab_wait server.stopped
lab_log "phase: write while the server is down"
dd if=/tmp/data of="$LAB_MNT/during" bs=64k count=1 oflag=direct status=none
lab_wait server.restarted
lab_log "phase: after restart"
dd if="$LAB_MNT/before" of=/tmp/back1 bs=64k count=1 iflag=direct status=none
dd if="$LAB_MNT/during" of=/tmp/back2 bs=64k count=1 iflag=direct status=none
cmp /tmp/data /tmp/back1
cmp /tmp/data /tmp/back2
