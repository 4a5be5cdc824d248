# chimera/client-nfs3 server: knfsd, with the server probes (nfsrdmad,
# kernel:server, JSON Lines in server.jsonl) attached before it serves.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"
probe_hook() {
    DAEMON_METRICS=127.0.0.1:9464 daemon_start server --source kernel:server
}
lab_server_start probe_hook
lab_wait workload.done 250
sleep 1
daemon_stop server
cp "$LAB_OUT/server.rc" "$LAB_OUT/server.nfsrdmad.rc"
