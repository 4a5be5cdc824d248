# nfs3-read-write: 512 KB each way with O_DIRECT (the WRITE data travels in
# Read chunks pulled by the server's RDMA READs, the READ data in Write chunks
# pushed by the server's RDMA WRITEs), plus a 1 KB write/read that fits
# inline. Also used by nfs3-tcp (same workload over TCP).
# shellcheck shell=bash
lab_mount
dd if=/dev/urandom of=/tmp/big bs=512k count=1 status=none
dd if=/dev/urandom of=/tmp/small bs=1k count=1 status=none
lab_log "phase: write 512 KB"
dd if=/tmp/big of="$LAB_MNT/big.dat" bs=512k count=1 oflag=direct status=none
lab_log "phase: write 1 KB"
dd if=/tmp/small of="$LAB_MNT/small.dat" bs=1k count=1 oflag=direct status=none
lab_drop_caches
lab_log "phase: read 512 KB"
dd if="$LAB_MNT/big.dat" of=/tmp/big.back bs=512k count=1 iflag=direct status=none
lab_log "phase: read 1 KB"
dd if="$LAB_MNT/small.dat" of=/tmp/small.back bs=1k count=1 iflag=direct status=none
cmp /tmp/big /tmp/big.back
cmp /tmp/small /tmp/small.back
