# nfs40-locks server: lockd's grace period (50 s by default: nlm_timeout x 5)
# also holds back NFSv4 LOCKs (knfsd's locks_in_grace() asks every lock
# manager of the net, lockd's too), and /proc/fs/nfsd/v4_end_grace only
# ends nfsd's own. Shorten it to 3 s (roundup(nlm_grace_period,
# nlm_timeout)) before knfsd starts lockd.
# shellcheck shell=bash
echo 3 > /proc/sys/fs/nfs/nlm_timeout
echo 1 > /proc/sys/fs/nfs/nlm_grace_period
lab_server_start
