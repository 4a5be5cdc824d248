# Attach / detach the server probe when the client asks, round by round.
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"
lab_server_start
for ((r = 1; r <= ${LAB_ARG_BENCH_ROUNDS:-3}; r++)); do
    lab_wait "attach.$r"
    probe_start "server-bench.$r" --side server --quiet
    lab_signal "attached.$r"
    lab_wait "detach.$r"
    probe_stop "server-bench.$r"
    lab_signal "detached.$r"
done
