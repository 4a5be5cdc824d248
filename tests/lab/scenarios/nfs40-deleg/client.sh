# nfs40-deleg: the nfs41-deleg workload over NFSv4.0 (see ../nfs41-deleg).
# In 4.0 knfsd grants no delegation to an open-owner it has not confirmed
# yet (the first OPEN of an owner needs OPEN_CONFIRM): root's owner is
# confirmed by reading "kept" once before the delegation workload.
# shellcheck shell=bash
lab_mount
sleep 4
lab_log "phase: confirm root's open-owner"
cat "$LAB_MNT/deleg/kept" > /dev/null
deleg=$LAB_REPO/tests/lab/scenarios/nfs41-deleg/deleg.py
python3 "$deleg" recall "$LAB_MNT/deleg/recalled" "$LAB_SYNC"
lab_log "phase: READ under a delegation after CLOSE"
python3 "$deleg" after-close "$LAB_MNT/deleg/kept"
lab_log "phase: done"
