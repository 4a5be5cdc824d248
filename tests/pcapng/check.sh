#!/usr/bin/env bash
# The mapped pcapng reader (pcap/pcapng_map.c) against libpcap and the
# classic pcap it was converted from.  Closing line "pcapng: N passed, N failed".
#  1. every committed capture (tests/captures/, tests/gen/out/) converted
#     with editcap -F pcapng, and to a big-endian pcapng by mkpcapng.py:
#     nfsrdma-dissect --json gives the same output, diagnostics and exit
#     status on the classic file, on the pcapng mapped, on the same
#     pcapng through libpcap (standard input is not mapped) and on the
#     big-endian one;
#  2. multi.pcapng (two sections, the second big-endian; interfaces of 4
#     link types, if_tsresol 10^-9, 2^-30, 2^-20 and 10^-3, if_tsoffset
#     1000 and -5 s, snapshot lengths; NRB/ISB/DSB/custom blocks between
#     the packets; an 802.11 interface): the same records as its parts
#     dissected one by one, written by the generator as classic pcaps
#     with the timestamps a reader must give; the 802.11 packets are
#     skipped with one warning; Packet Blocks and Simple Packet Blocks
#     against their truths;
#  3. tests/badinput/capfile/*.pcapng (mkpcapng.py bad writes them byte
#     for byte): the diagnostics in NAME.expect, the file named NAME.
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
MK=tests/pcapng/mkpcapng.py
export TZ=UTC LC_ALL=C
pass=0 fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL pcapng: $2"; fi; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
[ -x "$BIN" ] || { echo "FAIL pcapng: $BIN not built"; echo "pcapng: 0 passed, 1 failed"; exit 1; }

# run NAME FILE [< input]: stdout, stderr with the file's name as NAME, status
run() {
	local name=$1 f=$2
	shift 2
	"$BIN" --json "$@" "$f" >"$work/out" 2>"$work/err"
	echo "exit $?" >>"$work/out"
	if [ "$f" = - ]; then sed "s|: -: |: $name: |g" "$work/err"; else sed "s|$f|$name|g" "$work/err"; fi >>"$work/out"
	cat "$work/out"
}

# 1.
if command -v editcap >/dev/null; then
	for c in tests/captures/*.pcap tests/gen/out/*.pcap; do
		n=${c##*/}
		if ! editcap -F pcapng "$c" "$work/le.pcapng" 2>/dev/null; then
			echo "info pcapng: editcap cannot convert $c: mkpcapng.py le does"
			python3 "$MK" le "$c" "$work/le.pcapng"
		fi
		python3 "$MK" be "$c" "$work/be.pcapng"
		run CAP "$c" >"$work/want"
		run CAP "$work/le.pcapng" >"$work/got"
		cmp -s "$work/want" "$work/got"; ok $? "$n: editcap's pcapng, mapped, differs from the classic pcap"
		run CAP - <"$work/le.pcapng" >"$work/got"
		cmp -s "$work/want" "$work/got"; ok $? "$n: editcap's pcapng through libpcap differs from the classic pcap"
		run CAP "$work/be.pcapng" >"$work/got"
		cmp -s "$work/want" "$work/got"; ok $? "$n: the big-endian pcapng differs from the classic pcap"
	done
else
	echo "FAIL pcapng: editcap is not installed (wireshark-common; scripts/deps.sh)"; fail=$((fail + 1))
fi

# 2.
python3 "$MK" multi "$work/m"
"$BIN" "$work/m/multi.pcapng" 2>"$work/merr" | sort >"$work/got"
for p in "$work"/m/part-*.pcap; do "$BIN" "$p" 2>/dev/null; done | sort >"$work/want"
[ "$(wc -l <"$work/want")" -gt 20 ]; ok $? "multi: its parts have too few records"
cmp -s "$work/want" "$work/got"; ok $? "multi: records differ from its parts': $(diff "$work/want" "$work/got" | head -3)"
grep -qx "nfsrdma-dissect: warning: $work/m/multi.pcapng: unsupported link type 105 (IEEE 802.11) from frame 1: its packets are skipped" "$work/merr"
ok $? "multi: no warning for the 802.11 interface: $(head -3 "$work/merr")"
[ "$(grep -c 'link type' "$work/merr")" = 1 ]; ok $? "multi: the 802.11 interface told more than once"
run CAP "$work/m/pb.pcapng" >"$work/got"; run CAP tests/captures/smoke.pcap >"$work/want"
cmp -s "$work/want" "$work/got"; ok $? "pb.pcapng (Packet Blocks) differs from smoke.pcap"
run CAP "$work/m/spb.pcapng" >"$work/got"; run CAP "$work/m/spb.pcap" >"$work/want"
cmp -s "$work/want" "$work/got"; ok $? "spb.pcapng (Simple Packet Blocks) differs from its truth"

# 3.
python3 "$MK" bad "$work/bad"
for f in "$work"/bad/*.pcapng; do
	n=${f##*/}
	cmp -s "$f" "tests/badinput/capfile/$n"; ok $? "$n: mkpcapng.py bad writes another file than tests/badinput/capfile/$n"
done
for f in tests/badinput/capfile/*.pcapng; do
	n=${f##*/}; n=${n%.pcapng}
	"$BIN" -q "$f" 2>&1 >/dev/null | sed "s|$f|$n|g" >"$work/got"
	cmp -s "tests/badinput/capfile/$n.expect" "$work/got"
	ok $? "$n: diagnostics differ: $(diff "tests/badinput/capfile/$n.expect" "$work/got" | head -4)"
done
echo "pcapng: $pass passed, $fail failed"
[ $fail -eq 0 ]
