# smoke: mount NFSv3 over RDMA, one WRITE and one READ (256 KB, O_DIRECT so
# both go to the wire: the WRITE as a Read chunk, the READ as a Write chunk).
# shellcheck shell=bash
lab_mount
dd if=/dev/urandom of=/tmp/data bs=256k count=1 status=none
dd if=/tmp/data of="$LAB_MNT/smoke.dat" bs=256k count=1 oflag=direct status=none
dd if="$LAB_MNT/smoke.dat" of=/tmp/back bs=256k count=1 iflag=direct status=none
cmp /tmp/data /tmp/back
# A project binary runs in the guest from the host's build tree (9p root),
# and what it writes to $LAB_OUT comes back to the host.
"${LAB_ARG_BIN:-$LAB_REPO/build/bin}/nfsrdma-dissect" -q -z proc "$LAB_REPO/tests/captures/smoke.pcap" >"$LAB_OUT/guest-dissect.txt"
