# nfs41-deleg: read delegations over NFSv4.1/RDMA (see env and deleg.py).
# shellcheck shell=bash
lab_mount
# lockd's grace on the server (3 s, see server.sh) must be over before the
# first OPEN, or knfsd grants no delegation.
sleep 4
python3 "$LAB_REPO/tests/lab/scenarios/nfs41-deleg/deleg.py" recall "$LAB_MNT/deleg/recalled" "$LAB_SYNC"
lab_log "phase: READ under a delegation after CLOSE"
python3 "$LAB_REPO/tests/lab/scenarios/nfs41-deleg/deleg.py" after-close "$LAB_MNT/deleg/kept"
lab_log "phase: done"
