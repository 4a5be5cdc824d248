# multi-client client: four NFS clients in one guest. Client i mounts
# server address S_i from client address C_i (a host route picks the source
# address; soft-RoCE has a GID per address) under its own UTS name, so each
# is its own NFS client to the server: own connection, own NFSv4 client
# owner and client ID.
#   c1 NFSv4.1  10.9.0.2  -> 10.9.0.1   creates, writes, renames a file, then tells c2
#   c2 NFSv3    10.9.0.3  -> 10.9.0.11  (after c1) reads that file, removes it, makes a dir
#   c3 NFSv4.2  10.9.0.4  -> 10.9.0.12  reads shared/big 4x while c4 does (parallel readers)
#   c4 NFSv4.1  10.9.0.5  -> 10.9.0.13  reads shared/big 4x, lists shared/
# The cross-client order (c1's write and rename before c2's read and
# remove) is held here with a flag file outside NFS.
# shellcheck shell=bash
declare -A VERS=([1]=4.1 [2]=3 [3]=4.2 [4]=4.1)
declare -A SRV=([1]=10.9.0.1 [2]=10.9.0.11 [3]=10.9.0.12 [4]=10.9.0.13)
declare -A CLI=([1]=10.9.0.2 [2]=10.9.0.3 [3]=10.9.0.4 [4]=10.9.0.5)
for i in 2 3 4; do
    ip addr add "${CLI[$i]}/24" dev eth0
    ip route add "${SRV[$i]}/32" dev eth0 src "${CLI[$i]}"
done
mkdir -p /tmp/mc
mnt() { echo "/mnt/c$1"; }
# mount_client I: mount client I's NFS client under its own UTS name.
mount_client() {
    local i=$1 vers=${VERS[$1]} src opts
    opts="vers=$vers,proto=rdma,port=20049"
    if [[ $vers == 3 ]]; then src=${SRV[$i]}:$LAB_EXPORT; opts+=",nolock"; else src=${SRV[$i]}:/; fi
    mkdir -p "$(mnt "$i")"
    unshare -u sh -c "hostname lab-c$i && mount -t nfs -o $opts $src $(mnt "$i")" || return 1
    grep " $(mnt "$i") " /proc/mounts >&2
}
w_create() {   # c1: create + write + rename, then tell c2
    local m=$1
    mkdir -p "$m/xc"
    dd if=/dev/urandom of="$m/xc/new.tmp" bs=32k count=2 oflag=direct status=none
    mv "$m/xc/new.tmp" "$m/xc/new"
    sync
    touch /tmp/mc/c1.done
}
w_consume() {  # c2: after c1, read what c1 wrote, remove it, make a dir
    local m=$1 n=0
    until [[ -e /tmp/mc/c1.done ]]; do sleep 0.2; n=$((n + 1)); ((n < 300)) || return 1; done
    dd if="$m/xc/new" of=/dev/null bs=32k iflag=direct status=none
    rm "$m/xc/new"
    mkdir "$m/xc/after"
    ls -l "$m/xc" >/dev/null
}
w_read() {     # c3, c4: parallel readers of shared/big
    local m=$1 k
    for k in 1 2 3 4; do
        dd if="$m/shared/big" of=/dev/null bs=64k iflag=direct status=none
    done
    ls -l "$m/shared" >/dev/null
}
for i in 1 2 3 4; do mount_client "$i" || exit 1; done
lab_log "phase: four clients"
w_create "$(mnt 1)" & p1=$!
w_consume "$(mnt 2)" & p2=$!
w_read "$(mnt 3)" & p3=$!
w_read "$(mnt 4)" & p4=$!
rc=0
for p in $p1 $p2 $p3 $p4; do wait "$p" || rc=1; done
ls -lR "$(mnt 1)" >&2
exit $rc
