# chimera/replay client: no kernel mount; nfsrdma-replay is the NFS client.
# Each capture of the catalogue replayed as fast as the target answers,
# mutations allowed, on a fresh export; the JSON report compares every
# call's status with the one knfsd gave in the capture.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
for c in ${LAB_ARG_CAPTURES:-nfs3-read-write nfs3-metadata nfs3-readdirplus nfs3-symlink smoke nfs41 nfs42}; do
    rp_reset
    rp_run "replay-$c" "$REPLAY" --target "$S" --asap --allow-mutations --json "$LAB_REPO/tests/captures/$c.pcap"
done
lab_signal client.steps-done
