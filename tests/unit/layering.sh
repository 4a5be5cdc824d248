#!/usr/bin/env bash
# Include layering: every `#include "..."` of every file in the folders of
# the table "Layers: where does X live" in docs/design.md must name a
# folder that the table lets that folder include (its own always), and
# dissect/ may include nothing but its own headers and libc's, and
# dissect/dissect_int.h (the dissector's internals) nothing outside dissect/.
# An `extern` declaration counts as an include of the folder whose .c
# defines the name (an include by other means, which the table must see).
#
# The table is checked too: its rows go up the layers, every edge it
# allows is taken by some file, and its "used by" column is what the
# files say (--write-used-by rewrites the column from them).
#
#   tests/unit/layering.sh [--only FOLDER | --write-used-by]
#
# One check per include line; a forbidden one prints "FAIL layering:
# FILE:LINE: ..." .  Before the real tree, the checker runs once on a small
# made-up tree holding forbidden includes and must reject each of them, so
# a checker that lets everything through fails here.  The Makefile runs
# `--only dissect` before it archives dissect/.
# Closing line: "layering: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
ONLY= WRITE=
[ "${1:-}" = --only ] && ONLY=${2:-}
[ "${1:-}" = --write-used-by ] && WRITE=1

# libc's headers (glibc, with its POSIX and BSD networking parts); not
# libm, libpthread, libpcap, libbpf, the kernel's or anything else.
LIBC_RE='^(assert|ctype|errno|float|inttypes|iso646|limits|locale|setjmp|signal|stdalign|stdarg|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|strings|time|uchar|wchar|wctype|unistd|fcntl|endian|byteswap|arpa/inet|netinet/in|sys/types|sys/stat|sys/mman)\.h$'

# extern_check ROOT FOLDER ALLOWED FILE LINE TEXT: the folder of the .c
# that defines the declared name (a line of it neither extern nor a
# prototype) must be allowed; a name defined nowhere in the table's
# folders is the system's (environ), not ours.
extern_check() {
	local root=$1 folder=$2 allowed=$3 file=$4 n=$5 decl=$6 sym def tgt
	decl=${decl%%;*}
	decl=$(sed -E 's/\([^()]*\)[[:space:]]*$//; s/(\[[^]]*\][[:space:]]*)+$//' <<<"$decl")
	[[ $decl =~ ([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$ ]] || return
	sym=${BASH_REMATCH[1]}
	def=$(cd "$root" && grep -lE "^[A-Za-z_][^;]*\b${sym}\b[[:space:]]*(\[[^]]*\])*[[:space:]]*(=|\([^;]*$)" \
		$(awk '/^## Layers/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' docs/design.md |
		  awk -F'|' '{ gsub(/[` ]/, "", $2); print $2 "/*.c" }') 2>/dev/null |
		while IFS= read -r d; do grep -qE "^extern[[:space:]].*\b${sym}\b" <(grep -E "\b${sym}\b" "$d" | head -1) || echo "$d"; done |
		grep -vxF "$file" | head -1)
	[ -n "$def" ] || { echo "ok $folder: extern $sym (not ours)"; return; }
	tgt=${def%/*}
	if [[ $allowed == *" $tgt "* ]]; then
		echo "ok $folder: extern $sym ($def)"
		echo "edge $folder $tgt"
	else
		echo "FAIL layering: $file:$n: $folder/ may not declare extern \"$sym\" of $def (allowed: $(xargs <<<"$allowed"))"
	fi
}

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
						echo "edge $folder $tgt"
					else
						echo "FAIL layering: ${f#"$root"/}:$n: $folder/ may not include \"$inc\" (allowed: $(xargs <<<"$allowed"))"
					fi
				elif [[ $line =~ ^[[:space:]]*extern[[:space:]][^\"]*\;[[:space:]]*(/\*.*)?$ ]]; then
					# An extern declaration is an include by other
					# means: it reaches the folder that defines it.
					extern_check "$root" "$folder" "$allowed" "${f#"$root"/}" "$n" "$line"
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

# The checker itself: a made-up tree with two folders and five forbidden
# includes (up a layer, a library header in dissect/, an unknown file,
# the dissector's internals from outside, an extern declaration up a
# layer).
if [ -z "$ONLY" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/layering.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/docs" "$tmp/dissect" "$tmp/pcap"
	printf '## Layers\n\n| folder | holds | may include | used by |\n| --- | --- | --- | --- |\n| `dissect` | x | `dissect` | y |\n| `pcap` | x | `dissect` `pcap` | y |\n' >"$tmp/docs/design.md"
	printf '#include "dissect/a.h"\n#include <stdint.h>\n#include "pcap/p.h"\n#include <pcap/pcap.h>\n' >"$tmp/dissect/a.h"
	printf '#include "dissect/a.h"\n#include "pcap/p.h"\n#include "nowhere.h"\n#include "dissect/dissect_int.h"\n' >"$tmp/pcap/p.h"
	# an extern up a layer (forbidden) and one down (allowed)
	printf 'int dis_count = 1;\nextern const int pcap_table[];\n' >"$tmp/dissect/b.c"
	printf 'const int pcap_table[] = { 1 };\nextern int dis_count;\n' >"$tmp/pcap/q.c"
	got=$(check "$tmp")
	bad=$(grep -c '^FAIL' <<<"$got")
	good=$(grep -c '^ok' <<<"$got")
	if [ "$bad" -eq 5 ] && [ "$good" -eq 5 ] &&
	   grep -q 'dissect/b.c:2: dissect/ may not declare extern "pcap_table" of pcap/q.c' <<<"$got" &&
	   grep -q 'dissect/a.h:3: dissect/ may not include "pcap/p.h"' <<<"$got" &&
	   grep -q 'dissect/a.h:4: dissect/ may include libc headers only, not <pcap/pcap.h>' <<<"$got" &&
	   grep -q 'pcap/p.h:3: pcap/ may not include "nowhere.h"' <<<"$got" &&
	   grep -q 'pcap/p.h:4: "dissect/dissect_int.h" is private to dissect/' <<<"$got"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL layering: the checker did not reject exactly the 5 forbidden includes and externs of its test tree:"
		sed 's/^/  /' <<<"$got"
	fi
fi

out=$(check .)
ok=$(grep -c '^ok' <<<"$out")
pass=$((pass + ok))

# The map is code: every edge the table allows is one some file of the
# folder takes (an include or an extern), and each row's "used by" is
# what the files say, generated by --write-used-by.  Rows of folders
# without C (debian, dist/...) are prose.
if [ -z "$ONLY" ]; then
	declare -A used=() users=()
	while read -r _ a b; do
		[ "$a" = "$b" ] && continue
		used["$a $b"]=1
		users[$b]+=" $a"
	done < <(grep '^edge ' <<<"$out" | sort -u)
	table=$(awk '/^## Layers/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' docs/design.md)
	order=$(awk -F'|' '{ gsub(/[` ]/, "", $2); print $2 }' <<<"$table")
	declare -A gen=()
	while IFS='|' read -r _ folder _ allowed usedby _; do
		folder=$(tr -d '` ' <<<"$folder")
		compgen -G "$folder/*.[ch]" >/dev/null || continue
		list=
		for u in $order; do
			[[ " ${users[$folder]:-} " == *" $u "* ]] && list+="${list:+, }\`$u\`"
		done
		gen[$folder]=${list:-—}
		have=$(grep -o '`[^`]*`' <<<"$usedby" | paste -sd, | sed 's/,/, /g')
		have=${have:-$(xargs <<<"$usedby")}
		if [ "$have" = "${gen[$folder]}" ]; then
			pass=$((pass + 1))
		elif [ -z "$WRITE" ]; then
			echo "FAIL layering: docs/design.md: $folder is used by ${gen[$folder]}, the table says $(xargs <<<"$usedby") (tests/unit/layering.sh --write-used-by)"
			fail=$((fail + 1))
		fi
		for a in $(tr -d '`' <<<"$allowed"); do
			[ "$a" = "$folder" ] && continue
			# the rows go up the layers: a folder includes only rows above
			# its own (skel and gen are generated, not rows)
			if grep -qxF -- "$a" <<<"$order" && ! sed "/^${folder//\//\\/}\$/,\$d" <<<"$order" | grep -qxF -- "$a"; then
				echo "FAIL layering: docs/design.md lets $folder/ include $a, a row below it (the rows go up the layers)"
				fail=$((fail + 1))
			fi
			if [ -n "${used["$folder $a"]:-}" ]; then
				pass=$((pass + 1))
			else
				echo "FAIL layering: docs/design.md lets $folder/ include $a, which no file of it does (take the edge out)"
				fail=$((fail + 1))
			fi
		done
	done <<<"$table"
	if [ -n "$WRITE" ]; then
		tmpd=$(mktemp "${TMPDIR:-/tmp}/design.XXXXXX")
		awk -v spec="$(for k in "${!gen[@]}"; do printf '%s\t%s\n' "$k" "${gen[$k]}"; done)" '
			BEGIN { n = split(spec, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], kv, "\t"); g[kv[1]] = kv[2] } }
			/^## Layers/ { on = 1 } /^## / && !/^## Layers/ { on = 0 }
			on && /^\| `/ {
				split($0, c, "|"); f = c[2]; gsub(/[` ]/, "", f)
				if (f in g) { c[5] = " " g[f] " "; s = ""; for (i = 2; i < length(c); i++) s = s "|" c[i]; print s "|"; next }
			}
			{ print }' docs/design.md >"$tmpd" && cat "$tmpd" >docs/design.md && rm -f "$tmpd"
		echo "layering: docs/design.md's used-by column written"
	fi
fi
while IFS= read -r l; do
	[ -n "$l" ] || continue
	echo "$l"
	fail=$((fail + 1))
done < <(grep '^FAIL' <<<"$out")
[ "$ok" -gt 0 ] || { echo "FAIL layering: no include was checked"; fail=$((fail + 1)); }
echo "layering: $pass passed, $fail failed"
[ $fail -eq 0 ]
