# perftest: ib_send_bw (500 x 64 B SENDs) then ib_write_lat (200 x 64 B
# RDMA WRITE ping-pong), both connected through rdma_cm, each started once
# the server side listens.
# shellcheck shell=bash
lab_wait bw.listening
timeout 60 ib_send_bw -d rxe0 -R -s 64 -n 500 -F "$LAB_SERVER_IP"
lab_wait lat.listening
timeout 60 ib_write_lat -d rxe0 -R -s 64 -n 200 -F "$LAB_SERVER_IP"
