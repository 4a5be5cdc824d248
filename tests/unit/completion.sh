#!/usr/bin/env bash
# Each tool's bash completion (`TOOL --completion bash`, made from the
# option table --help comes from), in a real bash: it parses; completing
# "-" offers exactly --help's options, long and short; a choice argument
# offers its words (replay --proto, --vers; dissect -z); a file
# argument offers the files of the directory, a directory one only its
# directories; a numeric one offers nothing; an operand offers files; and
# a shell it does not know is refused with status 2.
# Closing line: "completion: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL completion: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cwd/sub.d" && touch "$tmp/cwd/trace.pcap" "$tmp/cwd/notes.txt"

# complete TOOL WORD...: the words bash offers for the last one
complete_words() {
	local script=$1; shift
	(cd "$tmp/cwd" && bash -c '
		source "$1"; shift
		fn=$(complete -p "$1" | sed -E "s/.*-F ([^ ]+) .*/\1/")
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		"$fn"
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$script" "$@")
}

for tool in nfsrdma-dissect nfsrdma-replay nfsrdma-top nfsrdmad; do
	bin=$O/bin/$tool
	[ -x "$bin" ] || { bad "$bin missing (make first)"; continue; }
	s=$tmp/$tool.bash
	"$bin" --completion bash >"$s" && ok || bad "$tool --completion bash exited non-zero"
	bash -n "$s" && ok || bad "$tool: the script does not parse"
	# "-": --help's options, long and short, and nothing else
	"$bin" --help | sed -nE 's/^  (-([A-Za-z0-9]), |     )--([a-z0-9][a-z0-9-]*).*/--\3 -\2/p' |
		tr ' ' '\n' | grep -vx -- - | sort -u >"$tmp/want"
	complete_words "$s" "$tool" - | sort -u >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then ok; else
		bad "$tool: '-' offers [$(comm -13 "$tmp/want" "$tmp/got" | tr '\n' ' ')] beyond --help, lacks [$(comm -23 "$tmp/want" "$tmp/got" | tr '\n' ' ')]"
	fi
	# an operand: files
	[ "$(complete_words "$s" "$tool" tr)" = trace.pcap ] && ok || bad "$tool: an operand 'tr' does not offer trace.pcap"
	"$bin" --completion zsh >/dev/null 2>&1; rc=$?
	[ "$rc" = 2 ] && ok || bad "$tool --completion zsh: status $rc (want 2: a shell it does not know)"
done

r=$tmp/nfsrdma-replay.bash d=$tmp/nfsrdma-dissect.bash m=$tmp/nfsrdmad.bash
[ "$(complete_words "$r" nfsrdma-replay --proto "" | tr '\n' ' ')" = "rdma tcp " ] && ok ||
	bad "replay --proto: not 'rdma tcp'"
[ "$(complete_words "$r" nfsrdma-replay --vers 4 | tr '\n' ' ')" = "4.1 4.2 " ] && ok || bad "replay --vers 4: not '4.1 4.2'"
[ -z "$(complete_words "$r" nfsrdma-replay --qd "")" ] && ok || bad "replay --qd: a number offers nothing"
[ "$(complete_words "$d" nfsrdma-dissect -z "" | tr '\n' ' ')" = "client conn proc transport " ] && ok ||
	bad "dissect -z: not its four summaries"
[ "$(complete_words "$m" nfsrdmad --export-dir "" | tr '\n' ' ')" = "sub.d " ] && ok || bad "nfsrdmad --export-dir: not the directories alone"
[ "$(complete_words "$m" nfsrdmad --config "" | tr '\n' ' ')" = "notes.txt sub.d trace.pcap " ] && ok ||
	bad "nfsrdmad --config FILE: not the directory's entries"
echo "completion: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
