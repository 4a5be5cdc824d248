#!/usr/bin/env bash
# Every output file of every tool follows one rule (src/base/outfile.h):
# a character device or a FIFO is written through in place and stays what
# it was (type, major:minor), its write errors fail the run with one line
# ("-w PATH: No space left on device" for a full device); a symbolic link
# stays a link and what it leads to gets the content; a directory and a
# block device are refused before the run with one line; a FIFO with no
# reader fails at once instead of hanging.  For nfsrdma-dissect -w,
# --plot and --compare --plot, and nfsrdma-replay --plot's check before
# the run.  The nodes are made with mknod in a temporary directory (null
# is c 1 3, full is c 1 7, a loop block node b 7 0): the machine's own /dev
# is never named.  A pipe named as /proc/self/fd/1 (a link readlink cannot
# follow) is written through.  Needs root (mknod); without it the script
# says so and fails.
# Closing line: "out-nodes: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=$PWD/${O:-build}/bin
case ${O:-build} in /*) BIN=$O/bin ;; esac
D=$BIN/nfsrdma-dissect
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL out-nodes: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
CAP=$OLDPWD/tests/captures/nfs40.pcap
CAP2=$OLDPWD/tests/captures/nfs41.pcap
if ! mknod probe c 1 3 2>/dev/null; then
	echo "out-nodes: cannot mknod (not root?)"
	echo "out-nodes: 0 passed, 1 failed"
	exit 1
fi
rm -f probe

node() { stat -c '%F %t:%T' "$1"; }
fresh() {   # the nodes, remade for every run
	rm -rf nodes && mkdir nodes
	mknod nodes/null c 1 3 && mknod nodes/full c 1 7 && mknod nodes/blk b 7 0
	mkdir nodes/dir && mkfifo nodes/fifo
	ln -s null nodes/to-null
	echo old >nodes/reg && ln -s reg nodes/to-reg
	ln -s new nodes/to-new
}
# NAME WANT-RC WANT-ERR TARGET FLAG CMD...: runs CMD with the output named
# TARGET; checks the exit status, stderr (empty, or one line containing
# WANT-ERR) and, under a one-minute hang catcher, that it ended at all
run() {
	local name=$1 want=$2 werr=$3; shift 3
	timeout 60 "$@" >/dev/null 2>err; local rc=$?
	[ "$rc" -ne 124 ] || { bad "$name: hung"; return 1; }
	[ "$rc" -eq "$want" ] || { bad "$name: exit $rc, expected $want ($(cat err))"; return 1; }
	if [ -z "$werr" ]; then
		[ ! -s err ] || { bad "$name: stderr: $(cat err)"; return 1; }
	else
		[ "$(wc -l <err)" -eq 1 ] && grep -qF -- "$werr" err ||
			{ bad "$name: stderr is not one line with '$werr': $(cat err)"; return 1; }
	fi
	ok
}
same_node() {   # NAME PATH WANT
	[ "$(node "$2")" = "$3" ] && ok || bad "$1: $2 is now $(node "$2"), was $3"
}

# each flag: FLAG and the command before the output name, after it
check_flag() {
	local flag=$1; shift
	local pre=("$@")
	local label="${pre[*]} $flag"
	# the bytes a regular file gets
	"$D" "${pre[@]}" "$flag" ref.out $CAP $CAP2_ARG >/dev/null 2>&1
	[ -s ref.out ] && ok || { bad "$label: no reference output"; return; }

	fresh
	run "$label null device" 0 "" "$D" "${pre[@]}" "$flag" nodes/null $CAP $CAP2_ARG
	same_node "$label null device" nodes/null "character special file 1:3"

	fresh
	run "$label full device" 1 "$flag nodes/full: No space left on device" "$D" "${pre[@]}" "$flag" nodes/full $CAP $CAP2_ARG
	same_node "$label full device" nodes/full "character special file 1:7"

	fresh
	run "$label block device" 1 "$flag nodes/blk: is a block device" "$D" "${pre[@]}" "$flag" nodes/blk $CAP $CAP2_ARG
	same_node "$label block device" nodes/blk "block special file 7:0"

	fresh
	run "$label directory" 1 "$flag nodes/dir: is a directory" "$D" "${pre[@]}" "$flag" nodes/dir $CAP $CAP2_ARG
	same_node "$label directory" nodes/dir "directory 0:0"

	fresh
	timeout 60 cat nodes/fifo >fifo.out &   # never a writer: ends anyway
	local reader=$!
	# a FIFO with no reader fails at once: wait until cat (under timeout)
	# is in its open, waiting for a writer (the kernel counts it a reader)
	for ((i = 0; i < 600; i++)); do
		for p in $(pgrep -P "$reader"); do
			[ "$(cat "/proc/$p/wchan" 2>/dev/null)" = wait_for_partner ] && break 2
		done
		sleep 0.1
	done
	run "$label FIFO with a reader" 0 "" "$D" "${pre[@]}" "$flag" nodes/fifo $CAP $CAP2_ARG
	wait "$reader"
	same_node "$label FIFO" nodes/fifo "fifo 0:0"
	cmp -s fifo.out ref.out && ok || bad "$label FIFO: the reader got other bytes than a file does"

	fresh
	run "$label FIFO without a reader" 1 "$flag nodes/fifo: a FIFO with no reader" "$D" "${pre[@]}" "$flag" nodes/fifo $CAP $CAP2_ARG
	same_node "$label FIFO without a reader" nodes/fifo "fifo 0:0"

	fresh
	run "$label link to a file" 0 "" "$D" "${pre[@]}" "$flag" nodes/to-reg $CAP $CAP2_ARG
	same_node "$label link to a file" nodes/to-reg "symbolic link 0:0"
	[ "$(readlink nodes/to-reg)" = reg ] && cmp -s nodes/reg ref.out && ok ||
		bad "$label link to a file: the link moved or its file lacks the output"

	fresh
	run "$label link to a name not made yet" 0 "" "$D" "${pre[@]}" "$flag" nodes/to-new $CAP $CAP2_ARG
	same_node "$label link to a new name" nodes/to-new "symbolic link 0:0"
	cmp -s nodes/new ref.out && ok || bad "$label link to a new name: its target lacks the output"

	fresh
	run "$label link to a null device" 0 "" "$D" "${pre[@]}" "$flag" nodes/to-null $CAP $CAP2_ARG
	same_node "$label link to a null device" nodes/to-null "symbolic link 0:0"
	same_node "$label link to a null device" nodes/null "character special file 1:3"
	ls nodes | grep -q '\.tmp-' && bad "$label: temporary left: $(ls nodes)" || ok
}

CAP2_ARG=
check_flag -w -q
check_flag --plot -q
CAP2_ARG=$CAP2
check_flag --plot --compare

# a pipe named through /proc/self/fd/N (what /dev/stdout leads to): a
# link readlink cannot follow ("pipe:[N]"), written through all the same
rm -f ref.out via-pipe.out
"$D" -q -w ref.out $CAP
timeout 60 "$D" -q -w /proc/self/fd/1 $CAP 2>err | cat >via-pipe.out; rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && [ ! -s err ] && cmp -s ref.out via-pipe.out && ok ||
	bad "-w /proc/self/fd/1 into a pipe: exit $rc, $(cat err), $(wc -c <via-pipe.out) bytes"

# nfsrdma-replay --plot: refused before anything is sent (could not do the job, 1: src/base/exit.h)
fresh
for t in blk dir; do
	want="is a block device"; [ $t = dir ] && want="is a directory"
	run "replay --plot $t" 1 "--plot nodes/$t: $want" "$BIN/nfsrdma-replay" --generate read --sweep 4k \
		--plot nodes/$t --target 192.0.2.1
done
same_node "replay --plot block device" nodes/blk "block special file 7:0"

echo "out-nodes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
