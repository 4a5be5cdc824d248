#!/usr/bin/env bash
# The man pages against the tools.  For every tool in $O/bin, whose
# --help src/base/opt.c generates from the option table:
#   - the page docs/man/TOOL.[18] exists, and every page names a tool;
#   - every option of --help, long and short, is a tag of the page's
#     OPTIONS section (a short one on the same tag line as its long form);
#   - every option the page documents, or names anywhere (--x), exists;
#   - the OPTIONS tag lines are the ones docs/man/options.py makes from the
#     option tables (name, short letter, placeholder);
# nfsrdmad.conf.5 lists every long option of nfsrdmad as a setting and no
# other, as does dist/nfsrdmad.conf; every man page a page or a --help
# refers to, NAME(N), is in docs/man or a well-known system page (below);
# every docs/*.md a page names exists; every option README.md's shell
# examples give a tool exists.
# Closing line: "manpages: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL manpages: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Pages of other packages a page may refer to (Debian's sections).
SYSTEM_PAGES=" adjtimex(2) tcpdump(8) tshark(1) editcap(1) wireshark(1) prometheus(1) top(1) \
 systemctl(1) journalctl(1) systemd.service(5) systemd.exec(5) ethtool(8) ip(8) \
 rdma(8) pcap(3PCAP) "

# roff to text: \- is a hyphen; font changes and special characters go.
plain() { sed -E 's/\\-/-/g; s/\\f[BIRP]//g; s/\\\(..//g; s/\\&//g' "$1"; }

# The lines of section NAME (".SH NAME" up to the next .SH), plain.
section() { plain "$1" | awk -v s="$2" '/^\.SH/ { on = ($0 == ".SH " s); next } on'; }

# The tag lines (the line after each .TP) of section NAME.
tags() { section "$1" "$2" | awk 'p { print; p = 0 } /^\.TP/ { p = 1 }'; }

longs() { grep -oE -- '(^|[^A-Za-z0-9-])--[a-z0-9][a-z0-9-]*' | sed -E 's/^.*--/--/'; }
shorts() { grep -oE -- '(^|[ "(])-[A-Za-z0-9]([ ",)]|$)' | grep -oE -- '-[A-Za-z0-9]'; }

# NAME(N) references, also in the ".BR name (N)" form.
refs() {
	sed -E 's/^\.(BR|IR|B|I) +"?([A-Za-z][A-Za-z0-9._+-]*)"? +\(/\2(/' |
		grep -oE '[A-Za-z][A-Za-z0-9._+-]*\([1-8][a-zA-Z]*\)' || true
}

check_ref() {   # WHERE REF
	local name=${2%%(*} sec=${2#*(}
	sec=${sec%)}
	if [ -f "docs/man/$name.$sec" ] || [[ "$SYSTEM_PAGES" == *" $2 "* ]]; then
		ok
	else
		bad "$1 refers to $2: not in docs/man, not a known system page"
	fi
}

# --help as "SHORT:LONG" lines (SHORT empty when there is none).
help_opts() { sed -nE 's/^  (-([A-Za-z0-9]), |     )--([a-z0-9][a-z0-9-]*).*/\2:\3/p' "$1"; }

bins=0
for bin in "$O"/bin/*; do
	[ -x "$bin" ] || continue
	bins=$((bins + 1))
	tool=${bin##*/}
	page=$(ls docs/man/"$tool".[1-8] 2>/dev/null | head -n1)
	if [ -z "$page" ]; then bad "$tool: no page docs/man/$tool.[1-8]"; continue; fi
	ok
	if ! "$bin" --help >"$tmp/help" 2>&1; then bad "$tool --help exits non-zero"; continue; fi
	help_opts "$tmp/help" >"$tmp/opts"
	# the parser sees every option line of --help (none in another layout)
	nlines=$(grep -cE '^ {2,7}-' "$tmp/help")
	nopts=$(wc -l <"$tmp/opts")
	if [ "$nopts" -ge 3 ] && [ "$nopts" -eq "$nlines" ]; then ok; else
		bad "$tool --help: parsed $nopts options of $nlines option lines"
	fi
	tags "$page" OPTIONS >"$tmp/tags"
	[ -s "$tmp/tags" ] || bad "$page: no tagged OPTIONS section"
	# every --help option is a tag, its short form on the same tag line
	while IFS=: read -r s l; do
		if [ -z "$s" ]; then
			if longs <"$tmp/tags" | grep -qxF -- "--$l"; then ok; else
				bad "$page lacks --$l"
			fi
			continue
		fi
		paired=0
		while IFS= read -r line; do
			longs <<<"$line" | grep -qxF -- "--$l" || continue
			shorts <<<"$line" | grep -qxF -- "-$s" && paired=1
		done <"$tmp/tags"
		if [ $paired -eq 1 ]; then ok; else bad "$page lacks -$s, --$l (on one tag line)"; fi
	done <"$tmp/opts"
	# every option the page documents or mentions exists
	cut -d: -f2 "$tmp/opts" | sed 's/^/--/' | sort -u >"$tmp/help.long"
	cut -d: -f1 "$tmp/opts" | sed '/^$/d; s/^/-/' | sort -u >"$tmp/help.short"
	# renamed spellings (--help's "Renamed" line): named in prose, in the
	# page's RENAMED OPTIONS section each, never a tag
	grep '^Renamed' "$tmp/help" | grep -oE -- '--[a-z0-9-]+ is' | sed 's/ is$//' | sort -u >"$tmp/renamed.long" || true
	grep -oE -- ' (-[A-Za-z0-9]|--[a-z0-9-]+) is ' "$tmp/help" | awk '{ print $1 }' | sort -u >"$tmp/renamed" || true
	while IFS= read -r old; do
		if section "$page" "RENAMED OPTIONS" | grep -qF -- "$old"; then ok; else
			bad "$page: renamed $old not in its RENAMED OPTIONS section"
		fi
		if { longs <"$tmp/tags"; shorts <"$tmp/tags"; } | grep -qxF -- "$old"; then
			bad "$page: the renamed $old is still a tag of OPTIONS"
		else ok; fi
	done <"$tmp/renamed"
	stale=$( { longs <"$tmp/tags"; plain "$page" | longs | sort -u | comm -23 - "$tmp/renamed.long"; } | sort -u |
		comm -23 - "$tmp/help.long" | tr '\n' ' ')
	stale="$stale$(shorts <"$tmp/tags" | sort -u | comm -23 - "$tmp/help.short" | tr '\n' ' ')"
	if [ -z "$stale" ]; then ok; else bad "$page documents options $tool does not have: $stale"; fi
	# references from the page and from --help
	while IFS= read -r r; do check_ref "$page" "$r"; done < <(plain "$page" | refs | sort -u)
	while IFS= read -r r; do check_ref "$tool --help" "$r"; done < <(refs <"$tmp/help" | sort -u)
	cp "$tmp/help.long" "$tmp/$tool.long"
	cp "$tmp/help.short" "$tmp/$tool.short"
done
[ $bins -ge 4 ] || bad "$bins tools in $O/bin (run make)"

# the OPTIONS tag lines are the option tables' (docs/man/options.py makes
# them from --help: `make man-options`)
if python3 docs/man/options.py --check "$O/bin" >"$tmp/man-options" 2>&1; then ok; else
	bad "OPTIONS tag lines differ from the option tables (make man-options): $(head -c 600 "$tmp/man-options")"
fi

# every page is a tool's, or a tool's configuration file
for page in docs/man/*.[1-8]; do
	name=${page##*/}
	name=${name%.*}
	case $name in
	*.conf) [ -x "$O/bin/${name%.conf}" ] && ok || bad "$page: no tool ${name%.conf}" ;;
	*) [ -x "$O/bin/$name" ] && ok || bad "$page: no tool $name in $O/bin" ;;
	esac
	while IFS= read -r d; do
		[ -f "$d" ] && ok || bad "$page names $d, which does not exist"
	done < <(plain "$page" | grep -oE 'docs/[A-Za-z0-9_./-]*[A-Za-z0-9]' | sort -u)
done

# nfsrdmad's settings: the long options but --config (and --help, --version,
# --completion)
conf=docs/man/nfsrdmad.conf.5
if [ -f "$conf" ] && [ -f "$tmp/nfsrdmad.long" ]; then
	grep -vxE -- '--(config|help|version|completion)' "$tmp/nfsrdmad.long" | sed 's/^--//' >"$tmp/settings"
	tags "$conf" SETTINGS | awk '{ print $2 }' | tr -d '"' | sort -u >"$tmp/conf.names"
	missing=$(comm -23 "$tmp/settings" "$tmp/conf.names" | tr '\n' ' ')
	extra=$(comm -13 "$tmp/settings" "$tmp/conf.names" | tr '\n' ' ')
	if [ -s "$tmp/conf.names" ] && [ -z "$missing$extra" ]; then ok; else
		bad "$conf SETTINGS: lacks [$missing], not nfsrdmad options [$extra]"
	fi
	extra=$(sed -nE 's/^#?([a-z][a-z-]*) *=.*/\1/p' dist/nfsrdmad.conf | sort -u | comm -23 - "$tmp/settings" | tr '\n' ' ')
	if [ -z "$extra" ]; then ok; else bad "dist/nfsrdmad.conf sets what nfsrdmad does not have: $extra"; fi
else
	bad "no $conf (nfsrdmad --help refers to nfsrdmad.conf(5))"
fi

# README.md's shell examples: every option given to one of the tools exists
# (the command up to a comment or a pipe; "build/bin/" and "sudo" allowed).
awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on' README.md | sed 's/ #.*//' | tr '|' '\n' |
	sed -E 's/^ *(sudo +)?(build\/bin\/)?//' >"$tmp/readme"
checked=0
while read -r tool args; do
	[ -f "$tmp/$tool.long" ] || continue
	checked=$((checked + 1))
	for a in $args; do
		case $a in
		--*) grep -qxF -- "${a%%=*}" "$tmp/$tool.long" && ok || bad "README.md: $tool has no $a" ;;
		-[A-Za-z]) grep -qxF -- "$a" "$tmp/$tool.short" && ok || bad "README.md: $tool has no $a" ;;
		esac
	done
done <"$tmp/readme"
[ $checked -ge 10 ] && ok || bad "README.md: only $checked tool commands found in its sh blocks"

echo "manpages: $pass passed, $fail failed"
[ $fail -eq 0 ]
