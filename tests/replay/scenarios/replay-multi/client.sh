# replay-multi client: no kernel mount; nfsrdma-replay replays the
# multi-client capture (every traced client its own replay client, with
# its own connections to the one target) and the mount-sequence capture, each on a fresh
# export, with --allow-mutations at speed 1 (the issue-time error is
# measured there).  tests/replay/check-multi.py judges the reports and the
# lab's capture of the replays (one RDMA connection per replay, in order).
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
MC=$LAB_REPO/tests/captures/multi-client.pcap
MS=$LAB_REPO/tests/captures/mount-sequence.pcap
rp_run multi-dry "$REPLAY" --dry-run --json "$MC"
rp_reset multi
rp_run multi "$REPLAY" --target "$S" --allow-mutations --speed 1 --json "$MC"
rp_reset multi
rp_run mountseq "$REPLAY" --target "$S" --allow-mutations --speed 1 --json "$MS"
rp_reset multi
rp_run multi-text "$REPLAY" --target "$S" --allow-mutations --speed 1 --per-call "$MC"
# --delegations: every NFSv4 client serves its own callbacks
rp_reset multi
rp_run multi-deleg "$REPLAY" --target "$S" --allow-mutations --delegations --speed 1 --json "$MC"
# --clients 4: four groups at once, each in its own directory: made by
# the replay (mountseq-x4, on an export without them), or there already
# (multi-x4-text: with shared/big, which its readers read)
rp_reset
rp_run mountseq-x4 "$REPLAY" --target "$S" --allow-mutations --clients 4 --json "$MS"
# --clients 4 --delegations: the target grants the groups' OPEN_NOATTRs
# read delegations the trace's client never got; the replay gives them
# back at once, so the trace's DESTROY_CLIENTIDs find no state left
rp_reset
rp_run mountseq-x4-deleg "$REPLAY" --target "$S" --allow-mutations --clients 4 --delegations --json "$MS"
# without --allow-mutations, a capture that changes state is refused
rp_run multi-x2-ro "$REPLAY" --target "$S" --clients 2 "$MC"
rp_reset groups
rp_run multi-x4-text "$REPLAY" --target "$S" --allow-mutations --clients 4 "$MC"
# the capture without its NFSv4 clients' set-up (as one taken mid-session):
# each needs a session of the replay's own, set up before the start, all
# at once (tests/replay/cut-setup.py)
python3 "$LAB_REPO/tests/replay/cut-setup.py" "$RB/nfsrdma-dissect" "$MC" "$LAB_OUT/multi-cut.pcap" \
    >"$LAB_OUT/multi-cut.txt" 2>&1
rp_reset multi
rp_run multi-cut "$REPLAY" --target "$S" --allow-mutations --speed 1 --json "$LAB_OUT/multi-cut.pcap"
lab_signal client.steps-done
