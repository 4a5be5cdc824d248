# replay-basic client: no kernel mount; nfsrdma-replay is the NFS client.
# Every step keeps its output in $LAB_OUT/STEP.{out,err,rc}; the host-side
# checker (tests/replay/check-basic.py) judges them and the capture.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
# 1. the endpoint, one call type at a time (the capture shows the chunks)
rp_run gen-null        "$REPLAY" --target "$S" --generate null --count 100 --qd 4 --json
rp_run gen-getattr     "$REPLAY" --target "$S" --generate getattr --file data.bin --count 50 --qd 4 --json
rp_run gen-read        "$REPLAY" --target "$S" --generate read --file data.bin --size 128k --file-size 1M --count 8 --qd 2 --json
rp_run gen-write       "$REPLAY" --target "$S" --generate write --allow-mutations --file wfile.bin --size 128k --file-size 1M --count 8 --qd 2 --json
rp_run gen-readdirplus "$REPLAY" --target "$S" --generate readdirplus --file bigdir --count 4 --json
# a WRITE beyond the server's wtmax (128 KB here): knfsd answers RDMA_ERROR
# (ERR_CHUNK); the endpoint reports it and the connection stays usable
rp_run gen-write-oversize "$REPLAY" --target "$S" --generate write --allow-mutations --file big-write.bin --size 256k --file-size 512k --count 2 --json
rp_run gen-write-refused "$REPLAY" --target "$S" --generate write --file refused.bin --size 4k --count 1
rp_run gen-mix-tcp     "$REPLAY" --target "$S" --proto tcp --generate mix:50 --allow-mutations --file mix.bin --size 64k --file-size 512k --count 16 --qd 4 --json
rp_run gen-getattr-tcp "$REPLAY" --target "$S" --proto tcp --generate getattr --file data.bin --count 50 --qd 4 --json
rp_run gen-sweep       "$REPLAY" --target "$S" --generate read --file data.bin --sweep 4k,64k,256k --file-size 1M --count 8 --qd 4 --plot "$LAB_OUT/sweep.svg"
# 2. replays of the v3 catalogue, each on a fresh export (nfs3-tcp: NFSv3
# captured over TCP, replayed over RDMA)
for c in nfs3-read-write nfs3-metadata nfs3-readdirplus nfs3-symlink smoke parallel midconn server-restart nfs3-tcp; do
    rp_reset
    rp_run "replay-$c" "$REPLAY" --target "$S" --asap --allow-mutations --json "$LAB_REPO/tests/captures/$c.pcap"
done
# 2b. NFSv4.1/4.2: replays of the v4 catalogue (own client, session and
# slots; handles and stateids mapped), then load over a session
for c in nfs41 nfs42; do
    rp_reset
    rp_run "replay-$c" "$REPLAY" --target "$S" --asap --allow-mutations --json "$LAB_REPO/tests/captures/$c.pcap"
done
rp_reset
rp_run replay-nfs41-readonly "$REPLAY" --target "$S" --asap --json "$LAB_REPO/tests/captures/nfs41.pcap"
# 2c. NFSv4.0: the replay's own client ID (SETCLIENTID + CONFIRM), its own
# open-owner seqids, OPEN_CONFIRM where the target asks for it
rp_reset
rp_run replay-nfs40 "$REPLAY" --target "$S" --asap --allow-mutations --json "$LAB_REPO/tests/captures/nfs40.pcap"
rp_reset
rp_run replay-nfs40-readonly "$REPLAY" --target "$S" --asap --json "$LAB_REPO/tests/captures/nfs40.pcap"
# the export already holds v4dir/data and small: read-only, the trace's
# first (confirmed) OPEN is refused, so the target asks the replay to
# confirm the later OPEN of data, which the trace never confirmed
rp_reset v4dir
rp_run replay-nfs40-preloaded "$REPLAY" --target "$S" --asap --json "$LAB_REPO/tests/captures/nfs40.pcap"
rp_run v41-null        "$REPLAY" --target "$S" --vers 4.1 --generate null --count 50 --qd 4 --json
rp_run v41-getattr     "$REPLAY" --target "$S" --vers 4.1 --generate getattr --file data.bin --count 50 --qd 4 --json
rp_run v41-read        "$REPLAY" --target "$S" --vers 4.1 --generate read --file data.bin --size 128k --file-size 1M --count 8 --qd 2 --json
rp_run v41-write       "$REPLAY" --target "$S" --vers 4.1 --generate write --allow-mutations --file v41-w.bin --size 128k --file-size 1M --count 8 --qd 2 --json
rp_run v41-readdir     "$REPLAY" --target "$S" --vers 4.1 --generate readdirplus --file bigdir --count 4 --json
rp_run v41-mix-tcp     "$REPLAY" --target "$S" --vers 4.1 --proto tcp --generate mix:50 --allow-mutations --file v41-mix.bin --size 64k --file-size 512k --count 16 --qd 4 --json
# 3. read-only by default: the mutations are refused and never reach the server
rp_reset
rp_run replay-readonly "$REPLAY" --target "$S" --asap --json "$LAB_REPO/tests/captures/nfs3-read-write.pcap"
lab_signal snapshot
lab_wait snapshot.done 30 || true
# 4. knfsd restarted under load: reconnect, calls lost in flight, exit 2
lab_signal restart.go
rp_run gen-restart "$REPLAY" --target "$S" --generate getattr --file data.bin --qd 8 --duration 14 --json
lab_wait restart.done 60 || true
lab_signal client.steps-done
