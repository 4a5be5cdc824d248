# multi-client server: three more addresses (10.9.0.11-13), one per extra
# client, so each client's mount is its own NFS client (the Linux client
# shares one per server address); the export serves them all and holds a
# shared file the parallel readers read.
# shellcheck shell=bash
lab_export_line() {
    echo "$LAB_EXPORT 10.9.0.0/24(rw,insecure,no_root_squash,no_subtree_check,fsid=0)"
}
for a in 11 12 13; do ip addr add "10.9.0.$a/24" dev eth0; done
populate() {
    mkdir -p "$LAB_EXPORT/shared"
    dd if=/dev/urandom of="$LAB_EXPORT/shared/big" bs=64k count=4 status=none
    chmod -R a+rwX "$LAB_EXPORT/shared"
}
lab_server_start populate
