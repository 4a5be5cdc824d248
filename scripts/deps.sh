#!/usr/bin/env bash
# Installs the Debian packages nfsrdma needs, by group:
#   scripts/deps.sh build test lab deb  (default: build)
# Idempotent and fast when everything is present: one dpkg-query, no apt.
set -euo pipefail

declare -A GROUP=(
	[build]="gcc make clang llvm libclang-rt-14-dev pkg-config libpcap-dev libbpf-dev bpftool
	         libelf-dev zlib1g-dev libzstd-dev liblzma-dev libibverbs-dev librdmacm-dev libncurses-dev
	         libzmq3-dev libprotobuf-c-dev protobuf-c-compiler"
	[test]="tshark prometheus jsonnet tmux ethtool iproute2 systemd gzip zstd xz-utils bzip2 libzmq3-dev"
	# lab: the guests, and (from cmake on) Chimera's build, tests/lab/chimera/build.sh
	[lab]="qemu-system-x86 busybox-static cpio kmod nfs-kernel-server nfs-common
	       iproute2 rdma-core ibverbs-utils rdmacm-utils perftest debootstrap systemd-container chrony
	       cmake ninja-build flex bison uthash-dev libjansson-dev libxxhash-dev liburcu-dev liburing-dev
	       libunwind-dev libnuma-dev libaio-dev libkrb5-dev libssl-dev uuid-dev ccache"
	# the Debian package: built (debian/), linted, installed in systemd-nspawn (tests/dist/deb.sh)
	[deb]="build-essential dpkg-dev debhelper fakeroot lintian systemd-container curl"
)

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build)

want=()
for g in "${groups[@]}"; do
	[ -n "${GROUP[$g]+x}" ] || { echo "deps.sh: unknown group '$g' (build, test, lab, deb)" >&2; exit 2; }
	# shellcheck disable=SC2206  # word splitting of the package list is intended
	want+=(${GROUP[$g]})
done

# dpkg-query prints one status line per package it knows; anything not
# "installed" (or unknown to dpkg) is missing.
missing=()
status=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${want[@]}" 2>/dev/null || true)
for p in "${want[@]}"; do
	grep -q "^$p ii" <<<"$status" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
if ! $SUDO apt-get install -y -qq "${missing[@]}" >/tmp/nfsrdma-deps.log 2>&1; then
	$SUDO apt-get update -qq >>/tmp/nfsrdma-deps.log 2>&1
	$SUDO apt-get install -y -qq "${missing[@]}" >>/tmp/nfsrdma-deps.log 2>&1 || {
		echo "deps.sh: apt-get install failed; see /tmp/nfsrdma-deps.log" >&2
		tail -5 /tmp/nfsrdma-deps.log >&2
		exit 1
	}
fi
