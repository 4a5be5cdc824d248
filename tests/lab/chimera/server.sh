# Server side of the Chimera scenarios: Chimera's daemon instead of knfsd
# (lab_chimera_start, tests/lab/guest/lib.sh); stage2.sh keeps it up until
# the client is done, then lab_server_finish notes whether it still ran.
# shellcheck shell=bash
lab_chimera_start
