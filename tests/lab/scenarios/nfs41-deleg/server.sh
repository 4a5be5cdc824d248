# nfs41-deleg server: files the client has never written (knfsd grants no
# read delegation on a file that its file cache still holds open for
# write), and lockd's grace cut to 3 s: knfsd grants no delegation while
# any lock manager of the net is in grace (locks_in_grace()), lockd's
# 50 s default included. When the client holds its delegation, a local
# write breaks the lease: knfsd recalls it over the backchannel, and the
# write waits until the client has returned it.
# shellcheck shell=bash
echo 3 > /proc/sys/fs/nfs/nlm_timeout
echo 1 > /proc/sys/fs/nfs/nlm_grace_period
populate() {
    mkdir -m 755 "$LAB_EXPORT/deleg"
    head -c 16384 /dev/urandom > "$LAB_EXPORT/deleg/recalled"
    head -c 16384 /dev/urandom > "$LAB_EXPORT/deleg/kept"
    chmod 644 "$LAB_EXPORT"/deleg/*
}
lab_server_start populate
lab_wait client.held
lab_log "phase: local write on the server (breaks the client's read delegation)"
timeout 60 bash -c "echo 'written on the server' >> '$LAB_EXPORT/deleg/recalled'"
lab_log "phase: local write done (the delegation came back)"
lab_signal server.wrote
