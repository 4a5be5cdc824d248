# chimera/replay client: no kernel mount for the replays; nfsrdma-replay is
# the NFS client. Each capture of the catalogue replayed as fast as the
# target answers, mutations allowed, on a fresh export (Chimera restarted);
# the JSON report compares every call's status with the one knfsd gave in
# the capture. What a capture's server had before the capture began is made
# first through this guest kernel's NFS client (TCP): nfs3-readdirplus's
# 200 files. NFSv4 traces replay in the export (--export: the trace's
# PUTROOTFH goes as PUTFH of it): Chimera's pseudo-root holds its export,
# knfsd's fsid=0 one is the export.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
populate_bigdir() {   # as tests/lab/scenarios/nfs3-readdirplus/server.sh
    local m=/mnt/populate i
    mkdir -p "$m"
    mount -t nfs -o vers=3,proto=tcp,port=2049,nolock,mountproto=tcp,mountport=20048 "$S:$LAB_EXPORT" "$m"
    mkdir -p "$m/bigdir"
    for i in $(seq -w 1 200); do
        echo "$i" > "$m/bigdir/$(printf 'file-%s-with-a-rather-long-name-to-make-readdirplus-replies-big' "$i")"
    done
    umount "$m"
}
for c in ${LAB_ARG_CAPTURES:-nfs3-read-write nfs3-metadata nfs3-readdirplus nfs3-symlink smoke nfs41 nfs42}; do
    rp_reset
    args=()
    case $c in
    nfs3-readdirplus) populate_bigdir ;;
    nfs41|nfs42) args=(--export "$LAB_EXPORT") ;;
    esac
    rp_run "replay-$c" "$REPLAY" --target "$S" --asap --allow-mutations --json "${args[@]}" "$LAB_REPO/tests/captures/$c.pcap"
done
# The study's crash (a send completion around a disconnect): the connection
# dropped once the first reply of nfs3-read-write's four READs
# is in (0x2ba5f564), the others in flight, then the rest of
# the capture over a new connection; Chimera must live through it.
rp_reset
rp_run "disconnect-nfs3-read-write" "$REPLAY" --target "$S" --asap --allow-mutations --json \
    --disconnect-after 0x2ba5f564 "$LAB_REPO/tests/captures/nfs3-read-write.pcap"
lab_signal client.steps-done
