# Open a file for reading and keep it open: knfsd hands out a read
# delegation (the backchannel is up); the server's local write recalls it.
lab_mount
mkdir -p "$LAB_MNT/deleg"
echo "first version" > "$LAB_MNT/deleg/file"
lab_drop_caches
sleep 1
lab_log "phase: open for read (delegation)"
exec 3< "$LAB_MNT/deleg/file"
cat <&3
lab_signal client.opened
lab_wait server.wrote 120
lab_log "phase: recall answered"
exec 3<&-
lab_drop_caches
cat "$LAB_MNT/deleg/file"
