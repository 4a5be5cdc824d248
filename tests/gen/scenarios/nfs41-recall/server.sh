# Export a file, wait until the client holds it open (with a read
# delegation), then write to it locally: the lease break makes knfsd
# recall the delegation over the NFSv4.1 backchannel (CB_RECALL on the
# same RDMA connection).
lab_server_start
lab_wait client.opened 120
sleep 2
lab_log "phase: local write (breaks the delegation)"
echo "written on the server" >> "$LAB_EXPORT/deleg/file"
lab_log "phase: local write done"
lab_signal server.wrote
