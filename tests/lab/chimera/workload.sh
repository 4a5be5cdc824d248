# The Chimera scenarios' workload, on the directory $D (sourced): every chunk
# type: O_DIRECT 128 KB writes (Read chunks) and reads (Write chunks), a
# 1 KB inline write/read, a directory of 80 entries listed with attributes
# (READDIRPLUS replies beyond the inline size: Reply chunks), metadata,
# and parallel writers racing metadata; every byte read back compared.
# shellcheck shell=bash
lab_log "workload start"
dd if=/dev/urandom of=/tmp/big bs=128k count=1 status=none
dd if=/dev/urandom of=/tmp/small bs=1k count=1 status=none
dd if=/tmp/big of="$D/big.dat" bs=128k count=1 oflag=direct status=none
dd if=/tmp/small of="$D/small.dat" bs=1k count=1 oflag=direct status=none
mkdir -p "$D/dir"
for i in $(seq 1 80); do : > "$D/dir/entry-with-a-longish-name-$i"; done
lab_drop_caches
dd if="$D/big.dat" of=/tmp/big.back bs=128k count=1 iflag=direct status=none
dd if="$D/small.dat" of=/tmp/small.back bs=1k count=1 iflag=direct status=none
cmp /tmp/big /tmp/big.back
cmp /tmp/small /tmp/small.back
n=$(ls -l "$D/dir" | grep -c entry-with)
[[ $n == 80 ]] || { echo "lab[client]: listed $n of 80 entries" >&2; exit 1; }
lab_signal workload.half
# parallel: writers racing metadata
pids=()
for i in 1 2 3; do
    dd if=/tmp/big of="$D/p$i" bs=64k count=2 oflag=direct status=none & pids+=($!)
done
( for i in $(seq 1 10); do stat "$D/dir/entry-with-a-longish-name-$i" > /dev/null
    mv "$D/dir/entry-with-a-longish-name-$i" "$D/dir/moved-$i"; done
  rm -f "$D"/dir/moved-* ) & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
for i in 1 2 3; do cmp /tmp/big "$D/p$i"; done
rm -f "$D"/p[123] "$D/small.dat"
