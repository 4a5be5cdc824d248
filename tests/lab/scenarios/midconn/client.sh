# midconn: mount and do some I/O with no capture running; then ask the host
# to start the capture (filter-dump hot-added through the qemu monitor), and
# read and write. The pcap has no CM REQ/REP: QPs must be paired from the
# traffic itself.
# shellcheck shell=bash
lab_mount
dd if=/dev/urandom of=/tmp/data bs=256k count=1 status=none
dd if=/tmp/data of="$LAB_MNT/pre" bs=256k count=1 oflag=direct status=none
lab_log "phase: starting the capture"
lab_capture_start
lab_log "phase: capture running"
dd if="$LAB_MNT/pre" of=/tmp/back bs=256k count=1 iflag=direct status=none
dd if=/tmp/data of="$LAB_MNT/post" bs=256k count=1 oflag=direct status=none
ls -l "$LAB_MNT"
cmp /tmp/data /tmp/back
