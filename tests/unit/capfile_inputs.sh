#!/usr/bin/env bash
# Capture inputs beyond a plain file: gzip, zstd and xz captures (told by
# their bytes, from a file and from stdin) decode exactly as the plain
# capture does in every tool; formats that cannot be read get a hint; a
# capture cut short ends every tool with the records so far, then
# "FILE: frame N, offset O: capture truncated in the middle of a packet
# record (N bytes of M)" and status 1.  The expected frame and offset are
# found here by walking the record headers, not by the tools.
# Closing line: "capfile-inputs: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
SRC=$PWD
BIN=$PWD/${O:-build}/bin
case ${O:-build} in /*) BIN=$O/bin ;; esac
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL capfile-inputs: $*"; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
for t in gzip zstd xz bzip2 python3; do
	command -v $t >/dev/null || { bad "needs $t (scripts/deps.sh test)"; echo "capfile-inputs: $pass passed, $fail failed"; exit 1; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plain" "$work/packed"

compress() {   # CODEC < in > out
	case $1 in gzip) gzip -c ;; zstd) zstd -q -c ;; xz) xz -c ;; esac
}

# ---- compressed captures: the same bytes out as the plain capture ----
for cap in smoke nfs42; do
	in=$SRC/tests/captures/$cap.pcap
	"$BIN/nfsrdma-dissect" "$in" >"$work/$cap.txt" 2>&1
	"$BIN/nfsrdma-dissect" --json "$in" >"$work/$cap.json" 2>&1
	[ -s "$work/$cap.txt" ] && [ -s "$work/$cap.json" ] && ok || bad "$cap: no reference output"
	for codec in gzip zstd xz; do
		z=$work/$cap.pcap.$codec
		compress $codec <"$in" >"$z"
		cmp -s <("$BIN/nfsrdma-dissect" "$z" 2>&1 | sed "s|$z|$in|g") "$work/$cap.txt" &&
			ok || bad "$cap $codec: lines differ from the plain capture's"
		cmp -s <("$BIN/nfsrdma-dissect" --json "$z" 2>&1 | sed "s|$z|$in|g") "$work/$cap.json" &&
			ok || bad "$cap $codec: --json differs from the plain capture's"
		cmp -s <("$BIN/nfsrdma-dissect" - <"$z" 2>&1 | sed "s|(stdin)|$in|g") "$work/$cap.txt" &&
			ok || bad "$cap $codec from stdin: lines differ"
		cmp -s <("$BIN/nfsrdma-dissect" --json - <"$z" 2>&1 | sed "s|(stdin)|$in|g") "$work/$cap.json" &&
			ok || bad "$cap $codec from stdin: --json differs"
	done
done

# told by the bytes, not the name: each file below is called x.pcap
in=$SRC/tests/captures/smoke.pcap
cp "$in" "$work/plain/x.pcap"
gzip -c "$in" >"$work/packed/x.pcap"
run_in() { (cd "$work/$1" && shift && "$@"); }
cmp -s <(run_in packed "$BIN/nfsrdma-dissect" x.pcap) <(run_in plain "$BIN/nfsrdma-dissect" x.pcap) &&
	ok || bad "a gzip capture named .pcap: output differs"
# gzip members one after another (pigz, cat a.gz b.gz) are one stream
head -c 100000 "$in" | gzip -c >"$work/two.gz"
tail -c +100001 "$in" | gzip -c >>"$work/two.gz"
cmp -s <("$BIN/nfsrdma-dissect" "$work/two.gz" 2>&1) "$work/smoke.txt" && ok || bad "concatenated gzip members differ"
# the pcapng export reads its input twice: compressed works
run_in plain "$BIN/nfsrdma-dissect" -q -w x.pcapng x.pcap && run_in packed "$BIN/nfsrdma-dissect" -q -w x.pcapng x.pcap &&
	cmp -s "$work/plain/x.pcapng" "$work/packed/x.pcapng" && ok || bad "-w on a gzip capture differs from the plain one's"
# a pcapng capture, compressed
zstd -q -c "$work/plain/x.pcapng" >"$work/x.pcapng.zst"
cmp -s <("$BIN/nfsrdma-dissect" "$work/x.pcapng.zst" 2>&1) "$work/smoke.txt" && ok || bad "zstd pcapng differs"
# the other tools read through the same reader
xz -c "$in" >"$work/packed/x.pcap"
cmp -s <(run_in packed timeout 20 "$BIN/nfsrdma-top" -b -r x.pcap -n 1 -d 0.5) \
       <(run_in plain timeout 20 "$BIN/nfsrdma-top" -b -r x.pcap -n 1 -d 0.5) && ok || bad "nfsrdma-top -r on xz differs"
daemon() { timeout 30 "$BIN/nfsrdmad" --exit-at-end --metrics none --socket none --json --source "pcap:$1"; }
cmp -s <(run_in packed daemon x.pcap) <(run_in plain daemon x.pcap) && ok || bad "nfsrdmad pcap: on xz differs"
cmp -s <(run_in packed "$BIN/nfsrdma-replay" --dry-run x.pcap) <(run_in plain "$BIN/nfsrdma-replay" --dry-run x.pcap) &&
	ok || bad "nfsrdma-replay --dry-run on xz differs"

# ---- what cannot be read: one line saying what it is and what to do ----
bzip2 -c "$in" >"$work/x.pcap.bz2"
"$BIN/nfsrdma-dissect" "$work/x.pcap.bz2" >"$work/out" 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "bzip2: exit $rc, expected 1"
[ "$(cat "$work/err")" = "nfsrdma-dissect: error: $work/x.pcap.bz2: bzip2-compressed: decompress it first (bunzip2 -k $work/x.pcap.bz2)" ] &&
	ok || bad "bzip2 hint: $(cat "$work/err")"
"$BIN/nfsrdma-dissect" - <"$work/x.pcap.bz2" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q '^nfsrdma-dissect: error: (stdin): bzip2-compressed: decompress it first' "$work/err" &&
	ok || bad "bzip2 on stdin: exit $rc, $(cat "$work/err")"
tar -C "$SRC/tests/captures" -cf "$work/x.tar" smoke.pcap
"$BIN/nfsrdma-dissect" "$work/x.tar" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'a tar archive: extract the capture first (tar xf ' "$work/err" && ok ||
	bad "tar: exit $rc, $(cat "$work/err")"
# a damaged gzip stream is named as such (here its CRC: every record
# decodes, then the check fails)
gzip -c "$in" >"$work/bad.gz"
size=$(stat -c %s "$work/bad.gz")
printf 'X' | dd of="$work/bad.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
"$BIN/nfsrdma-dissect" "$work/bad.gz" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q ': gzip data is damaged (incorrect data check)$' "$work/err" && ok ||
	bad "damaged gzip: exit $rc, $(cat "$work/err")"
# a compressed file cut short says so, even when the cut falls between records
head -c $(($(stat -c %s "$work/smoke.pcap.zstd") - 3)) "$work/smoke.pcap.zstd" >"$work/short.zst"
"$BIN/nfsrdma-dissect" "$work/short.zst" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'the zstd data ends early' "$work/err" && ok || bad "zstd cut short: exit $rc, $(cat "$work/err")"

# ---- a capture cut short ----
# where a cut at LEN bytes falls: "frame offset have want" of the record it cuts
where() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()[:int(sys.argv[2])]
end = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
off, frame = 24, 1
while off < len(data):
    if len(data) - off < 16:
        print(frame, off, len(data) - off, 16); break
    caplen = struct.unpack(end + 'I', data[off + 8:off + 12])[0]
    if len(data) - off < 16 + caplen:
        print(frame, off, len(data) - off, 16 + caplen); break
    off += 16 + caplen; frame += 1
EOF
}
cut_case() {   # LEN: the smoke capture cut at LEN bytes, through every tool
	local len=$1 frame off have want msg name=cut$1.pcap
	read -r frame off have want < <(where "$in" "$len")
	[ -n "$want" ] || { bad "cut at $len: the cut does not fall inside a record"; return; }
	head -c "$len" "$in" >"$work/plain/$name"
	head -c "$off" "$in" >"$work/plain/whole$len.pcap"   # the records before the cut
	msg="$name: frame $frame, offset $off: capture truncated in the middle of a packet record ($have bytes of $want)"
	local tool out rc
	# nfsrdma-dissect: the records before the cut, then the line, status 1
	out=$(run_in plain "$BIN/nfsrdma-dissect" "$name" 2>"$work/err"); rc=$?
	[ $rc -eq 1 ] && ok || bad "dissect cut at $len: exit $rc, expected 1"
	[ "$(cat "$work/err")" = "nfsrdma-dissect: error: $msg" ] && ok || bad "dissect cut at $len: $(cat "$work/err") (expected $msg)"
	[ "$out" = "$(run_in plain "$BIN/nfsrdma-dissect" "whole$len.pcap" 2>/dev/null)" ] && ok ||
		bad "dissect cut at $len: the records before the cut are not printed as a whole capture's"
	# from stdin and compressed: the same line (the offset counts decompressed bytes)
	run_in plain "$BIN/nfsrdma-dissect" - <"$work/plain/$name" >/dev/null 2>"$work/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$work/err")" = "nfsrdma-dissect: error: (stdin): ${msg#"$name: "}" ] && ok ||
		bad "dissect stdin cut at $len: exit $rc, $(cat "$work/err")"
	zstd -q -c "$work/plain/$name" >"$work/packed/$name"
	run_in packed "$BIN/nfsrdma-dissect" "$name" >/dev/null 2>"$work/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$work/err")" = "nfsrdma-dissect: error: $msg" ] && ok ||
		bad "dissect zstd cut at $len: exit $rc, $(cat "$work/err")"
	# nfsrdma-top -b -r: its snapshot, then the line, status 1
	out=$(run_in plain timeout 20 "$BIN/nfsrdma-top" -b -r "$name" -n 1 -d 0.5 2>"$work/err"); rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$work/err")" = "nfsrdma-top: error: $msg" ] && ok ||
		bad "top cut at $len: exit $rc, $(cat "$work/err")"
	[ -n "$out" ] && ok || bad "top cut at $len: no snapshot printed"
	# nfsrdmad --exit-at-end, without -v: logged all the same, status 1
	out=$(run_in plain timeout 30 "$BIN/nfsrdmad" --exit-at-end --metrics none --socket none --json \
		--source "pcap:$name" 2>"$work/err"); rc=$?
	[ $rc -eq 1 ] && grep -qxF "nfsrdmad: error: $msg" "$work/err" && ok ||
		bad "nfsrdmad cut at $len: exit $rc, $(cat "$work/err")"
	# nfsrdma-replay --dry-run: the calls so far listed, then the line, status 1
	out=$(run_in plain "$BIN/nfsrdma-replay" --dry-run "$name" 2>"$work/err"); rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$work/err")" = "nfsrdma-replay: error: $msg" ] && ok ||
		bad "replay cut at $len: exit $rc, $(cat "$work/err")"
}
cut_case 30000                  # inside a record's body
cut_case 29025                  # inside a record's header
cut_case 29                     # inside the first record's header
cut_case $(($(stat -c %s "$in") - 1))   # one byte short of the end

echo "capfile-inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
