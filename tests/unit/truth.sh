#!/usr/bin/env bash
# Ground truth (kernel rpc_stats_latency) and tshark vs nfsrdma-dissect on
# every lab capture; see truth.py.
exec python3 "$(dirname "$0")/truth.py" "$@"
