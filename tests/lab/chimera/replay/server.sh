# chimera/replay server: Chimera, restarted (a fresh memfs export) each
# time the client asks for a reset (reset.N -> reset.N.done).
# shellcheck shell=bash
lab_chimera_start
n=1
while [[ ! -e $LAB_SYNC/client.steps-done ]]; do
    if [[ -e $LAB_SYNC/reset.$n ]]; then
        lab_chimera_restart
        lab_signal "reset.$n.done"
        n=$((n + 1))
    fi
    sleep 0.2
done
