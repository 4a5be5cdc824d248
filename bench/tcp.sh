#!/usr/bin/env bash
# nfsrdma-dissect on a large NFS/TCP capture (bench/mktcpcap.py: the lab's
# NFSv3/TCP run repeated, a new client address per pass) against `cat` of
# the same file, and its peak RSS at 1x and 10x the size (flat: memory
# follows the streams open at once, not the capture).  Numbers in
# bench/README.md.   bench/tcp.sh [MEGABYTES]   (1x, default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
mb=${1:-100}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 bench/mktcpcap.py "$tmp/1x.pcap" "$mb"
python3 bench/mktcpcap.py "$tmp/10x.pcap" $((mb * 10))
rate() {   # LABEL FILE CMD...: MB/s of CMD over FILE (best of 3), peak RSS in KiB
	local label=$1 f=$2 best=0 rss=0
	shift 2
	for _ in 1 2 3; do
		cat "$f" >/dev/null   # warm the page cache
		/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" "$f" >/dev/null 2>"$tmp/err" || true
		read -r s k <"$tmp/t"
		r=$(python3 -c "import os,sys; print('%.0f' % (os.path.getsize(sys.argv[1]) / 1048576 / max(float(sys.argv[2]), 0.001)))" "$f" "$s")
		[ "$r" -gt "$best" ] && best=$r
		rss=$k
	done
	echo "$label $best MB/s, peak RSS $rss KiB"
}
for x in 1x 10x; do
	f=$tmp/$x.pcap
	echo "== $x: $(du -m "$f" | cut -f1) MB"
	rate "cat" "$f" cat
	rate "nfsrdma-dissect -q" "$f" "$O/bin/nfsrdma-dissect" -q
	rate "nfsrdma-dissect (lines)" "$f" "$O/bin/nfsrdma-dissect"
	"$O/bin/nfsrdma-dissect" -q --stats "$f" 2>&1 | grep -E "^rpc-net|^dissect" | cut -c1-200
done
