# Default client.sh: mount and list the export.
# shellcheck shell=bash
lab_mount
ls -la "$LAB_MNT"
