#!/usr/bin/env bash
# Include layering: every `#include "..."` of every file in the folders of
# the table "Layers: where does X live" in docs/design.md must name a
# folder that the table lets that folder include (its own always), and
# dissect/ may include nothing but its own headers and libc's, and
# dissect/dissect_int.h (the dissector's internals) nothing outside dissect/.
#
#   tests/unit/layering.sh [--only FOLDER]
#
# One check per include line; a forbidden one prints "FAIL layering:
# FILE:LINE: ..." .  Before the real tree, the checker runs once on a small
# made-up tree holding forbidden includes and must reject each of them, so
# a checker that lets everything through fails here.  The Makefile runs
# `--only dissect` before it archives dissect/.
# Closing line: "layering: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
ONLY=
[ "${1:-}" = --only ] && ONLY=${2:-}

# libc's headers (glibc, with its POSIX and BSD networking parts); not
# libm, libpthread, libpcap, libbpf, the kernel's or anything else.
LIBC_RE='^(assert|ctype|errno|float|inttypes|iso646|limits|locale|setjmp|signal|stdalign|stdarg|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|strings|time|uchar|wchar|wctype|unistd|fcntl|endian|byteswap|arpa/inet|netinet/in|sys/types|sys/stat|sys/mman)\.h$'

# check ROOT FOLDER...: prints one line per include, "ok ..." or "FAIL ...".
check() {
	local root=$1; shift
	local table
	table=$(awk '/^## Layers/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' "$root/docs/design.md")
	if [ -z "$table" ]; then
		echo "FAIL layering: $root/docs/design.md has no \"## Layers\" table"
		return
	fi
	local folder allowed f n line inc tgt ok
	while IFS='|' read -r _ folder _ allowed _; do
		folder=$(tr -d '` ' <<<"$folder")
		allowed=" $(tr -d '`' <<<"$allowed $folder" | xargs -n1 | awk '!seen[$0]++' | xargs) "
		[ -n "$ONLY" ] && [ "$folder" != "$ONLY" ] && continue
		if [ ! -d "$root/$folder" ]; then
			echo "FAIL layering: table names $folder/, which does not exist"
			continue
		fi
		for f in "$root/$folder"/*.c "$root/$folder"/*.h; do
			[ -e "$f" ] || continue
			n=0
			while IFS= read -r line; do
				n=$((n + 1))
				if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
					inc=${BASH_REMATCH[1]}
					if [[ $inc == */* ]]; then
						tgt=${inc%/*}
					elif [ -e "${f%/*}/$inc" ]; then
						tgt=$folder
					elif [[ $inc == *.skel.h ]]; then
						tgt=skel
					else
						tgt="?"   # neither beside the file nor generated
					fi
					ok=0
					[[ $allowed == *" $tgt "* ]] && ok=1
					if [ "$inc" = dissect/dissect_int.h ] && [ "$folder" != dissect ]; then
						echo "FAIL layering: ${f#"$root"/}:$n: \"$inc\" is private to dissect/"
					elif [ $ok = 1 ]; then
						echo "ok $folder: $inc"
					else
						echo "FAIL layering: ${f#"$root"/}:$n: $folder/ may not include \"$inc\" (allowed: $(xargs <<<"$allowed"))"
					fi
				elif [ "$folder" = dissect ] && [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
					inc=${BASH_REMATCH[1]}
					if [[ $inc =~ $LIBC_RE ]]; then
						echo "ok $folder: <$inc>"
					else
						echo "FAIL layering: ${f#"$root"/}:$n: dissect/ may include libc headers only, not <$inc>"
					fi
				fi
			done <"$f"
		done
	done <<<"$table"
}

pass=0 fail=0

# The checker itself: a made-up tree with two folders and four forbidden
# includes (up a layer, a library header in dissect/, an unknown file,
# the dissector's internals from outside).
if [ -z "$ONLY" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/layering.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/docs" "$tmp/dissect" "$tmp/pcap"
	printf '## Layers\n\n| folder | holds | may include | used by |\n| --- | --- | --- | --- |\n| `dissect` | x | `dissect` | y |\n| `pcap` | x | `dissect` `pcap` | y |\n' >"$tmp/docs/design.md"
	printf '#include "dissect/a.h"\n#include <stdint.h>\n#include "pcap/p.h"\n#include <pcap/pcap.h>\n' >"$tmp/dissect/a.h"
	printf '#include "dissect/a.h"\n#include "pcap/p.h"\n#include "nowhere.h"\n#include "dissect/dissect_int.h"\n' >"$tmp/pcap/p.h"
	got=$(check "$tmp")
	bad=$(grep -c '^FAIL' <<<"$got")
	good=$(grep -c '^ok' <<<"$got")
	if [ "$bad" -eq 4 ] && [ "$good" -eq 4 ] &&
	   grep -q 'dissect/a.h:3: dissect/ may not include "pcap/p.h"' <<<"$got" &&
	   grep -q 'dissect/a.h:4: dissect/ may include libc headers only, not <pcap/pcap.h>' <<<"$got" &&
	   grep -q 'pcap/p.h:3: pcap/ may not include "nowhere.h"' <<<"$got" &&
	   grep -q 'pcap/p.h:4: "dissect/dissect_int.h" is private to dissect/' <<<"$got"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL layering: the checker did not reject exactly the 4 forbidden includes of its test tree:"
		sed 's/^/  /' <<<"$got"
	fi
fi

out=$(check .)
ok=$(grep -c '^ok' <<<"$out")
pass=$((pass + ok))
while IFS= read -r l; do
	[ -n "$l" ] || continue
	echo "$l"
	fail=$((fail + 1))
done < <(grep '^FAIL' <<<"$out")
[ "$ok" -gt 0 ] || { echo "FAIL layering: no include was checked"; fail=$((fail + 1)); }
echo "layering: $pass passed, $fail failed"
[ $fail -eq 0 ]
