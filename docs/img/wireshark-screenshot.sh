#!/usr/bin/env bash
# Makes docs/img/wireshark-nfsrdma.png: Wireshark (Debian 12's wireshark-qt
# 4.0) under Xvfb with dist/wireshark/nfsrdma.lua on the lab's
# nfs3-read-write capture joined with its kernel traces, the slow calls
# filtered, an NFSv3 READ's nfsrdma tree expanded.  Needs xvfb, xdotool,
# imagemagick (import) and a build (make).  The clicks are at fixed
# places of a 1400x1400 screen: check the picture after a Wireshark upgrade.
#   docs/img/wireshark-screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
OUT=${1:-docs/img/wireshark-nfsrdma.png}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
T=$(mktemp -d /tmp/nfsrdma-shot.XXXXXX)
trap 'rm -rf "$T"' EXIT
cap=tests/captures/nfs3-read-write
for side in client server; do
	python3 tests/join/trace2records.py $side $cap.truth/$side.trace >"$T/$side.jsonl"
done
"$O/bin/nfsrdma-dissect" --json -r $cap.pcap --join "$T/client.jsonl" --join "$T/server.jsonl" >"$T/joined.jsonl" 2>/dev/null

cat >"$T/run.sh" <<EOS
#!/usr/bin/env bash
export HOME=$T/home
mkdir -p \$HOME
wireshark -X lua_script:$PWD/dist/wireshark/nfsrdma.lua -o nfsrdma.records:$T/joined.jsonl \\
	-o gui.layout_content_3:NONE \\
	-o 'gui.column.format:"No.","%m","Time","%t","Source","%s","Destination","%d","Info","%i","nfsrdma.total","%Cus:nfsrdma.total:0:R","nfsrdma.verdict","%Cus:nfsrdma.verdict:0:R"' \\
	-r $PWD/$cap.pcap >$T/wireshark.log 2>&1 &
ws=\$!
sleep 15
w=\$(xdotool search --onlyvisible --name nfs3-read-write | head -1)
xdotool windowmove \$w 0 0 windowsize \$w 1400 1400
sleep 2
xdotool mousemove 300 75 click 1
sleep 1
xdotool type --delay 20 'nfsrdma.role == "call" && nfsrdma.total > 0.005'
xdotool key Return
sleep 4
# the splitter between the packet list and the details, up; frame 290
# (an NFSv3 READ); its nfsrdma tree (the last item) expanded whole
xdotool mousemove 700 733 mousedown 1 mousemove 700 450 mousemove 700 370 mouseup 1
sleep 1
xdotool mousemove 200 273 click 1
sleep 2
xdotool mousemove 300 395 click 1
xdotool key End shift+Right
sleep 2
import -window root $OUT
kill \$ws
wait \$ws || true
EOS
chmod +x "$T/run.sh"
timeout 120 xvfb-run -a -s "-screen 0 1400x1400x24" "$T/run.sh"
if grep -q '^nfsrdma:' "$T/wireshark.log"; then
	grep '^nfsrdma:' "$T/wireshark.log" >&2
	exit 1
fi
echo "wrote $OUT"
