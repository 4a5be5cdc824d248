#!/usr/bin/env bash
# nfsrdma-dissect -w with an input it can read only once: a FIFO, a
# process substitution <(...), standard input, and those compressed
# (gzip, zstd, xz).  The export is written after the records from a
# spool of what was read (pcap/capspool.h), so each run ends (timeout is
# only a hang catcher) with exit 0 and writes the export a regular file
# gives: byte for byte when the FIFO has the regular file's name, and
# every block but the interface description (which names the input:
# /dev/fd/63, "-") otherwise; the records on stdout are the same too.
# No spool is left behind in TMPDIR.
# Closing line: "export-once: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
D=$PWD/${O:-build}/bin/nfsrdma-dissect
case ${O:-build} in /*) D=$O/bin/nfsrdma-dissect ;; esac
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL export-once: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR=$work/tmp

# the pcapng blocks of A and B equal, the interface description aside
same_but_idb() {
	[ -s "$1" ] && [ -s "$2" ] || return 1
	python3 - "$1" "$2" <<'PY'
import struct, sys
def blocks(p):
    b = open(p, 'rb').read(); o = 0; out = []
    while o + 8 <= len(b):
        t, n = struct.unpack_from('<II', b, o)
        if n < 12 or o + n > len(b):
            sys.exit('%s: bad block at %d' % (p, o))
        out.append((t, b[o:o + n])); o += n
    return out
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
idb = lambda bl: [x[1][8:16] for x in bl if x[0] == 1]    # link type, snap length
rest = lambda bl: [x for x in bl if x[0] != 1]
sys.exit(0 if len(a) > 2 and rest(a) == rest(b) and idb(a) == idb(b) else 1)
PY
}

for cap in nfs41 nfs3-read-write; do
	src=$PWD/tests/captures/$cap.pcap
	cp "$src" "$work/$cap.pcap"
	(cd "$work" && "$D" -w ref.pcapng "$cap.pcap" >ref.txt 2>ref.err); rc=$?
	[ "$rc" -eq 0 ] && [ -s "$work/ref.pcapng" ] && ok || { bad "$cap: the regular-file run failed ($rc)"; continue; }

	# a FIFO under the regular file's own name: the same bytes
	mv "$work/$cap.pcap" "$work/$cap.real"
	mkfifo "$work/$cap.pcap"
	timeout 120 cat "$work/$cap.real" >"$work/$cap.pcap" &
	(cd "$work" && timeout 120 "$D" -w fifo.pcapng "$cap.pcap" >fifo.txt 2>fifo.err); rc=$?
	wait
	[ "$rc" -eq 0 ] && ok || bad "$cap: FIFO: exit $rc ($(head -1 "$work/fifo.err"))"
	cmp -s "$work/ref.pcapng" "$work/fifo.pcapng" && ok || bad "$cap: FIFO: the export differs from the file's"
	cmp -s "$work/ref.txt" "$work/fifo.txt" && ok || bad "$cap: FIFO: the records differ from the file's"
	rm -f "$work/$cap.pcap"; mv "$work/$cap.real" "$work/$cap.pcap"

	# <(...) and stdin, plain and compressed
	for z in cat "gzip -c" "zstd -q -c" "xz -c"; do
		name=${z%% *}
		rm -f "$work/ps.pcapng" "$work/in.pcapng"
		timeout 120 "$D" -w "$work/ps.pcapng" <($z "$src") >"$work/ps.txt" 2>"$work/ps.err"; rc=$?
		[ "$rc" -eq 0 ] && ok || bad "$cap: <($name): exit $rc ($(head -1 "$work/ps.err"))"
		same_but_idb "$work/ref.pcapng" "$work/ps.pcapng" && ok || bad "$cap: <($name): the export differs from the file's"
		cmp -s "$work/ref.txt" "$work/ps.txt" && ok || bad "$cap: <($name): the records differ"
		$z "$src" | timeout 120 "$D" -w "$work/in.pcapng" - >"$work/in.txt" 2>"$work/in.err"; rc=$?
		[ "$rc" -eq 0 ] && ok || bad "$cap: stdin ($name): exit $rc ($(head -1 "$work/in.err"))"
		same_but_idb "$work/ref.pcapng" "$work/in.pcapng" && ok || bad "$cap: stdin ($name): the export differs from the file's"
		cmp -s "$work/ref.txt" "$work/in.txt" && ok || bad "$cap: stdin ($name): the records differ"
	done
done
[ -z "$(ls -A "$work/tmp")" ] && ok || bad "spool left in TMPDIR: $(ls -A "$work/tmp")"

# a spool that cannot be made: one line naming the directory, exit 1
TMPDIR=$work/no/such timeout 120 "$D" -q -w "$work/x.pcapng" - <"$PWD/tests/captures/nfs41.pcap" 2>"$work/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "in $work/no/such: No such file or directory" "$work/err" &&
	[ ! -e "$work/x.pcapng" ] && ok || bad "unwritable TMPDIR: exit $rc, $(cat "$work/err")"

echo "export-once: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
