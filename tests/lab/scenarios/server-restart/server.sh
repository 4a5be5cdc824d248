# server-restart: serve, then when the client has done its first I/O stop
# every knfsd thread and listener (the RDMA connection is torn down), wait a
# little, and start them (and the RDMA listener) again.
# shellcheck shell=bash
lab_server_start
lab_wait client.phase1
lab_log "stopping knfsd"
lab_nfsd_down
lab_signal server.stopped
sleep 3
lab_log "restarting knfsd"
lab_nfsd_up
lab_signal server.restarted
