#!/usr/bin/env bash
# Regenerates the seeds of fuzz_nfs3_clnt, fuzz_nfs4_reply and
# fuzz_nfs4_rewrite from the lab captures (tests/fuzz/clnt_seeds.c, built
# against the library in $O).  Crashers kept in those directories
# (named crash-*) are left alone.
#   O=build tests/fuzz/make-clnt-seeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
make --no-print-directory -s O="$O" lib
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
${CC:-cc} -std=gnu11 -O1 -g -I. -Wall -Wextra tests/fuzz/clnt_seeds.c -o "$bin/clnt_seeds" \
	"$O/libnfsrdma.a" $(make -s --no-print-directory print-ldlibs)
for d in nfs3_clnt nfs4_reply nfs4_rewrite nfs41_cb; do
	mkdir -p tests/fuzz/seeds/$d
	find tests/fuzz/seeds/$d -maxdepth 1 -type f ! -name 'crash-*' -delete
done
"$bin/clnt_seeds" tests/fuzz/seeds tests/captures/nfs3-*.pcap tests/captures/nfs40*.pcap \
	tests/captures/nfs41*.pcap tests/captures/nfs42.pcap tests/captures/smoke.pcap
du -sh tests/fuzz/seeds/nfs3_clnt tests/fuzz/seeds/nfs4_reply tests/fuzz/seeds/nfs4_rewrite tests/fuzz/seeds/nfs41_cb
