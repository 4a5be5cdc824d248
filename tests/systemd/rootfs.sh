#!/usr/bin/env bash
# tests/systemd/rootfs.sh — a minimal Debian bookworm root with systemd as
# init and the runtime libraries of the nfsrdma binaries, booted as the root
# of a lab guest (tests/systemd/run.sh).
#
# Built once with debootstrap into ${NFSRDMA_LAB_CACHE:-/var/cache/nfsrdma-lab}
# (the lab's cache, tests/lab/kernel.sh) as systemd-root/; rebuilt only when
# the package list below changes.  The cached root is never booted itself:
# run.sh boots a throwaway overlay (or copy) of it.
#
# Output (stdout): the path of the root.  Diagnostics on stderr; exit non-zero
# with a one-line reason on failure.
set -euo pipefail

CACHE=${NFSRDMA_LAB_CACHE:-/var/cache/nfsrdma-lab}
ROOT=$CACHE/systemd-root
MIRROR=${NFSRDMA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
# systemd as PID 1 and D-Bus for systemctl; curl to scrape the metrics
# endpoint from inside; the rest are the shared libraries the installed
# binaries link (ldd build/bin/*); kmod loads the lab kernel's modules
# (veth); iproute2, ethtool and python3-minimal make and measure the veth
# pair the capture is replayed into (inject.py).
PACKAGES=(systemd systemd-sysv dbus curl ca-certificates
          kmod iproute2 ethtool python3-minimal
          libpcap0.8 libbpf1 libelf1 zlib1g libdbus-1-3 libcap2
          libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200
          libncursesw6 libtinfo6 libzmq5 libprotobuf-c1)

die() { echo "rootfs.sh: $*" >&2; exit 1; }
log() { echo "rootfs.sh: $*" >&2; }

command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
[[ $(id -u) == 0 ]] || die "needs root (debootstrap)"

want="$SUITE ${PACKAGES[*]}"
if [[ -f $ROOT/.nfsrdma-root && $(cat "$ROOT/.nfsrdma-root") == "$want" ]]; then
    echo "$ROOT"
    exit 0
fi

mkdir -p "$CACHE"
# One builder at a time; a second caller waits and then finds the root.
exec 9>"$CACHE/.systemd-root.lock"
flock 9
if [[ -f $ROOT/.nfsrdma-root && $(cat "$ROOT/.nfsrdma-root") == "$want" ]]; then
    echo "$ROOT"
    exit 0
fi
log "debootstrap $SUITE into $ROOT (one time, ~60 MB, about 40 s)"
rm -rf "$ROOT" "$ROOT.tmp"
include=$(IFS=,; echo "${PACKAGES[*]}")
debootstrap --variant=minbase --include="$include" "$SUITE" "$ROOT.tmp" "$MIRROR" \
    > "$CACHE/systemd-root.log" 2>&1 ||
    die "debootstrap failed, see $CACHE/systemd-root.log: $(tail -n1 "$CACHE/systemd-root.log")"

# A machine-id makes the first boot not a "first boot" (no preset run, no
# firstboot prompts); nspawn would otherwise invent a transient one.
systemd-machine-id-setup --root="$ROOT.tmp" >/dev/null 2>&1 ||
    dbus-uuidgen > "$ROOT.tmp/etc/machine-id"
# No login prompt: run.sh's checks run as a unit in the guest.
rm -f "$ROOT.tmp/etc/systemd/system/getty.target.wants/"* 2>/dev/null || true
# Keep the apt cache out of the long-lived root.
rm -rf "$ROOT.tmp/var/cache/apt/archives/"*.deb
echo "$want" > "$ROOT.tmp/.nfsrdma-root"
mv "$ROOT.tmp" "$ROOT"
echo "$ROOT"
