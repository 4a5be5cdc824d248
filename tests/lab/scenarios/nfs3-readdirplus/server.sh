# nfs3-readdirplus: fill the export with 200 files with long names before
# the client mounts (so the capture holds no CREATEs, only the listing).
# shellcheck shell=bash
lab_server_start_prepare() {
    mkdir -p "$LAB_EXPORT/bigdir"
    local i name
    for i in $(seq -w 1 200); do
        name=$(printf 'file-%s-with-a-rather-long-name-to-make-readdirplus-replies-big' "$i")
        echo "$i" > "$LAB_EXPORT/bigdir/$name"
    done
}
lab_server_start lab_server_start_prepare
