# Server of probe-cost: the empty programs and the server probe attached
# while the client's cost workload runs; the kernel's accounting of every
# program saved before they go (server.bpftool.json).
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"
sysctl -qw kernel.bpf_stats_enabled=1
lab_server_start
# shellcheck disable=SC2086  # a list of SYSTEM:EVENT words
empty_start server-empty $LAB_ARG_SERVER_TPS
probe_start server-cost --side server --quiet
lab_signal cost.server
lab_wait cost.client.done
bpftool -j prog show > "$LAB_OUT/server.bpftool.json"
probe_stop server-cost
kill -INT "$(cat /tmp/server-empty.pid)"
lab_signal cost.server.done
lab_wait workload.done
lab_server_finish
