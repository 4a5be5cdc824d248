#!/usr/bin/env bash
# The generated captures against the truth written beside them
# (tests/unit/gen_truth.py).  Closing line: "gen_truth: N passed, N failed".
exec python3 "$(dirname "$0")/gen_truth.py" "$@"
