# Client side of the probe scenarios: probe attached before the mount,
# a small workload (256 KB O_DIRECT WRITE = Read chunks, READ back = Write
# chunks, a small file, a listing), probe stopped before the unmount.
# With LAB_ARG_PROBE_DEGRADE=client a first probe is started while the
# rpcrdma module is not loaded: it must run on the sunrpc events alone.
# Filtered probes run alongside: NFSv3 minimum latency and program (NFSACL),
# NFSv4.1 the server's address and an unused one.
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"

if [[ ${LAB_ARG_PROBE_DEGRADE:-} == client ]]; then
    modprobe -r rpcrdma
    probe_start client-norpcrdma --side client
    modprobe rpcrdma
fi
probe_start client-probe --side client
# In-kernel filters, on the same workload (tests/probe/check.py knows the
# thresholds): NFSv3 gets a minimum-latency and a program (NFSACL) filter.
if [[ ${LAB_NFS_VERS:-} == 3 ]]; then
    probe_start client-minlat --side client --min-latency 10000
    probe_start client-acl --side client --filter-prog 100227
else
    # client address filter: the server's address, and one nobody uses
    probe_start client-peer --side client --filter-addr "${LAB_SERVER_IP:-10.9.0.1}"
    probe_start client-nopeer --side client --filter-addr 10.9.0.99
fi
lab_mount
lab_log "workload start"
dd if=/dev/urandom of=/tmp/data bs=64k count=4 status=none
dd if=/tmp/data of="$LAB_MNT/probe.dat" bs=128k count=2 oflag=direct status=none
dd if="$LAB_MNT/probe.dat" of=/tmp/back bs=128k count=2 iflag=direct status=none
cmp /tmp/data /tmp/back
echo small > "$LAB_MNT/small.txt"
sync
ls -l "$LAB_MNT" > /dev/null
rm "$LAB_MNT/small.txt"
lab_log "workload end"
probe_stop client-probe
if [[ ${LAB_NFS_VERS:-} == 3 ]]; then
    probe_stop client-minlat; probe_stop client-acl
else
    probe_stop client-peer; probe_stop client-nopeer
fi
if [[ ${LAB_ARG_PROBE_DEGRADE:-} == client ]]; then probe_stop client-norpcrdma; fi
lab_signal workload.done
