#!/usr/bin/env bash
# XDP fast path benchmark (docs/xdp.md):
#  1. BPF_PROG_TEST_RUN with repeat over a lab capture's packet mix:
#     ns/packet (target <= 100 ns) with 512-byte and full-frame records;
#  2. on a veth pair in private network namespaces, fed by an in-kernel
#     generator (bpf/xdp_gen.bpf.c, XDP live frames) on CPU 0 with the
#     receiving side (threaded NAPI at SCHED_FIFO + reader) on CPU 1: for
#     the XDP path, the XDP path as a mirror port (xdp:IFACE,mirror) and a
#     libpcap capture feeding the same per-XID pipeline, the receive CPU's
#     time per frame and the highest rate with zero loss (target >= 10x).
# Needs root.  About two minutes.  Nothing here is pass/fail on time.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
bin=$O/tests/bpf/test_xdp_bench
cap=${XDP_BENCH_CAPTURE:-tests/captures/nfs3-read-write.pcap}
if [ "$(id -u)" -ne 0 ]; then
	echo "bench xdp: cannot run: needs root (BPF, network namespaces)"; exit 1
fi
[ -x "$bin" ] || { echo "bench xdp: $bin missing (run make O=$O)"; exit 1; }
# ns/packet over the other lab mixes too: metadata-heavy ones (every
# frame a SEND Only, parsed, timed and copied, or its ACK, copied) cost
# more per frame than bulk transfers, whose middle packets are cheap.
for c in tests/captures/smoke.pcap tests/captures/nfs3-metadata.pcap tests/captures/nfs3-readdirplus.pcap \
	tests/captures/parallel.pcap tests/captures/nfs42.pcap; do
	timeout 30 "$bin" --testrun "$c" | grep 'ns/packet:'
done
exec timeout 150 "$bin" --bench "$cap"
