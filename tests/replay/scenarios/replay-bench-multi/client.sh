# replay-bench-multi client: the multi-client capture at --speed 1 (the
# issue-time error; LAB_ARG_BASE_BIN: an older build's too), then at
# --asap, each run on a fresh export, REPS times over: the plain
# (single-replay) run (and LAB_ARG_BASE_BIN's after it), then --clients 1, 2, 4, 8.  Each run's wall, user and system CPU time (the
# replay and its group processes) go to NAME.time; bench/replay.sh multi
# reports calls/s and CPU per call.  LAB_ARG_SPEED1_ONLY=1: the --speed 1
# runs alone; LAB_ARG_SPEED1_FLAGS: more options for them (-v or --per-call, --realtime).
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
MC=$LAB_REPO/tests/captures/multi-client.pcap
TIMEFORMAT='%R %U %S'
# --speed 1 first: the issue-time error (and, with LAB_ARG_BASE_BIN, an
# older build's, in the same boot)
for rep in $(seq 1 "${LAB_ARG_REPS:-3}"); do
    rp_reset multi
    # shellcheck disable=SC2086  # the flags are words
    rp_run "bm-speed1-$rep" "$REPLAY" --target "$S" --allow-mutations --speed 1 ${LAB_ARG_SPEED1_FLAGS:-} --json "$MC"
    if [[ -n ${LAB_ARG_BASE_BIN:-} && -x ${LAB_ARG_BASE_BIN:-} ]]; then
        rp_reset multi
        rp_run "bm-speed1base-$rep" "$LAB_ARG_BASE_BIN" --target "$S" --allow-mutations --speed 1 --json "$MC"
    fi
done
for rep in $(seq 1 "${LAB_ARG_REPS:-3}"); do
    [[ ${LAB_ARG_SPEED1_ONLY:-0} == 1 ]] && break
    rp_reset multi
    { time rp_run "bm-single-$rep" "$REPLAY" --target "$S" --allow-mutations --asap --json "$MC"; } 2>"$LAB_OUT/bm-single-$rep.time"
    # the base build's --asap beside it, in turn (issue 28: no slower)
    if [[ -n ${LAB_ARG_BASE_BIN:-} && -x ${LAB_ARG_BASE_BIN:-} ]]; then
        rp_reset multi
        { time rp_run "bm-singlebase-$rep" "$LAB_ARG_BASE_BIN" --target "$S" --allow-mutations --asap --json "$MC"; } \
            2>"$LAB_OUT/bm-singlebase-$rep.time"
    fi
    for n in 1 2 4 8; do
        rp_reset groups
        { time rp_run "bm-x$n-$rep" "$REPLAY" --target "$S" --allow-mutations --asap --clients "$n" --json "$MC"; } 2>"$LAB_OUT/bm-x$n-$rep.time"
    done
done
lab_signal client.steps-done
