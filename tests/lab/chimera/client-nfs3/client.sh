# chimera/client-nfs3 client: Chimera's daemon mounts knfsd's export with its
# own NFSv3 client over RDMA (module nfs) and exports it as /knfsd; the
# guest kernel mounts that over TCP on loopback (not on the wire) and runs
# workload.sh on it, so every RPC-over-RDMA message on the wire is
# Chimera's client talking to knfsd.
# shellcheck shell=bash
cat > /tmp/chimera-client.json <<JSON
{
    "server": { "threads": 1, "delegation_threads": 1, "rdma": false, "rdma_max_inline": 0 },
    "mounts": { "knfsd": { "module": "nfs", "path": "$LAB_SERVER_IP:$LAB_EXPORT",
                           "options": "vers=3,rdma,port=20049" } },
    "exports": { "/knfsd": { "path": "/knfsd" } }
}
JSON
lab_chimera_start /tmp/chimera-client.json
D=/mnt/chimera
mkdir -p "$D"
mount -t nfs -o vers=3,proto=tcp,port=2049,nolock,mountproto=tcp,mountport=20048 127.0.0.1:/knfsd "$D"
grep " $D " /proc/mounts >&2
# shellcheck source=tests/lab/chimera/workload.sh
source "$LAB_REPO/tests/lab/chimera/workload.sh"
lab_log "workload end"
umount "$D"
lab_signal workload.done
sleep 2
lab_chimera_finish
