# Export a file, wait until the client holds it open (with a read
# delegation), then write to it locally: the lease break makes knfsd
# recall the delegation over the NFSv4.1 backchannel (CB_RECALL on the
# same RDMA connection).
#
# knfsd grants no delegation while any lock manager is in its grace
# period (locks_in_grace): the NFSv4 one is ended by lab_nfsd_up, but
# lockd's lasts 90 s after start.  NFSv2/v3 off means no lockd at all.
no_v3() {
    printf '[nfsd]\nvers2=n\nvers3=n\n' >> /etc/nfs.conf
}
lab_server_start no_v3
lab_wait client.opened 120
sleep 2
lab_log "phase: local write (breaks the delegation)"
echo "written on the server" >> "$LAB_EXPORT/deleg/file"
lab_log "phase: local write done"
lab_signal server.wrote
