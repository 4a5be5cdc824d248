#!/usr/bin/env bash
# Exported functions and objects nothing else uses: a global symbol defined
# in one object of the library ($(O)/obj: dissect/, pcap/, src/) and
# referenced (nm's U) by no other object of the library and by none of
# the programs built on it (cli/, tests/, bench/: compiled here, so a
# symbol only a test or a bench calls counts as used), nor named as a
# word by any other file there (C in a script's here-document).  Each such symbol
# can be made static (used in its own file) or removed (used nowhere).
#
#   scripts/unused-exports.sh        (after `make`; O=build by default)
#
# Prints "SYMBOL OBJECT" per unused export; exits 1 when there is one, 2
# when a program would not compile (a reference lost to a failed compile
# would make a used symbol look unused, so that is no answer).
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
CC=${CC:-cc}

objs=$(find "$O/obj/dissect" "$O/obj/pcap" "$O/obj/src" "$O/obj/gen" -name '*.o' 2>/dev/null | sort)
[ -n "$objs" ] || { echo "unused-exports: no objects under $O/obj (run make first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/unused-exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The programs on the library: every .c of cli/, tests/ and bench/.
n=0
while IFS= read -r src; do
	n=$((n + 1))
	if ! $CC -std=gnu11 -D_GNU_SOURCE -I. -Itests/unit -Itests/fuzz -isystem "$O" -isystem "$O/gen" -w -O0 \
		-c "$src" -o "$tmp/prog$n.o" 2>"$tmp/err"; then
		echo "unused-exports: $src does not compile; its references are unknown:" >&2
		head -5 "$tmp/err" >&2
		exit 2
	fi
done < <(find cli tests bench -name '*.c' ! -name '*.bpf.c' | sort)

# Every symbol some object references: the library's and the programs'.
nm -u $objs "$tmp"/prog*.o 2>/dev/null | awk 'NF >= 2 && $(NF-1) == "U" { print $NF }' | sort -u >"$tmp/used"

# Every global symbol the library defines, with its object: a symbol its
# own object references counts only once another object does too.
for o in $objs; do
	nm -g --defined-only "$o" | awk -v o="${o#"$O"/obj/}" '$2 ~ /^[TDBRVW]$/ { print $3, o }'
done | sort -k1,1 >"$tmp/defined"

found=0
while read -r sym obj; do
	# referenced by another object: nm -u of its own object never lists
	# a symbol it defines, so any U is from elsewhere
	grep -qxF -- "$sym" "$tmp/used" && continue
	# C inside scripts (tests/daemon/unit.sh builds its driver from a
	# here-document), Python's ctypes, a bench script: the name as a word
	grep -rqw --exclude='*.c' -- "$sym" cli tests bench && continue
	# protoc-c's generated descriptors are its own API, not ours
	case "$obj" in gen/*) continue ;; esac
	echo "$sym $obj"
	found=$((found + 1))
done <"$tmp/defined"
echo "unused-exports: $found symbols" >&2
[ "$found" -eq 0 ]
