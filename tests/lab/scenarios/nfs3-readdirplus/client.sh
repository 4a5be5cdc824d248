# nfs3-readdirplus: list the big directory. Each READDIRPLUS reply is far
# beyond the 4 KB inline threshold, so the server sends it through the
# client's Reply chunk (RDMA WRITE + RDMA_NOMSG).
# shellcheck shell=bash disable=SC2012  # ls is the point: it issues READDIRPLUS
lab_mount
ls -l "$LAB_MNT/bigdir" | tail -n 3
ls "$LAB_MNT/bigdir" | wc -l
