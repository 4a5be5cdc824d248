#!/usr/bin/env bash
# tests/lab/kernel.sh — provide the guest kernel and initramfs for the lab.
#
# usage: kernel.sh [VERSION]     VERSION: 6.1 (default) or 6.12; when not
#                                 given, $LAB_KVERSION, else 6.1.
#
# Finds Debian 12's current kernel package of that series (6.1: the one
# linux-image-amd64 depends on; 6.12: the one linux-image-6.12-amd64 from
# bookworm-security depends on), downloads it once into the cache, unpacks
# it, runs depmod, and builds a tiny busybox initramfs whose only job is to
# mount the host's "/" (9p, read-only) under an overlay and switch_root into
# the lab's stage 2.
#
# Everything is cached in ${NFSRDMA_LAB_CACHE:-/var/cache/nfsrdma-lab}; both
# series live side by side there. When the cache is warm this takes well
# under a second.
#
# Output (stdout): shell assignments, meant for `eval "$(kernel.sh)"`:
#   LAB_KVER LAB_KERNEL LAB_INITRD LAB_KROOT
# Diagnostics go to stderr. Exit non-zero with a one-line reason on failure.
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${NFSRDMA_LAB_CACHE:-/var/cache/nfsrdma-lab}
# Modules the initramfs must load before it can reach the root filesystem.
# Everything else is loaded later by the real modprobe from the host tree.
INITRD_MODULES=(virtio_pci virtio_net 9pnet_virtio 9p overlay)

die() { echo "kernel.sh: $*" >&2; exit 1; }
log() { echo "kernel.sh: $*" >&2; }

# series VERSION: set META (the package that follows the series), PATTERN
# (a regex of the versioned image package names) and GLOB (their .debs).
series() {
    case $1 in
    6.1)
        META=linux-image-amd64
        PATTERN='linux-image-6\.1\.[0-9]*-[0-9]*-amd64'
        GLOB='linux-image-6.1.*-amd64_*.deb' ;;
    6.12)
        META=linux-image-6.12-amd64
        PATTERN='linux-image-6\.12\.[0-9]*+deb12-amd64'
        GLOB='linux-image-6.12.*+deb12-amd64_*.deb' ;;
    *) die "unknown kernel version '$1' (LAB_KVERSION is 6.1 or 6.12)" ;;
    esac
}

# meta_depends: the versioned image package $META points at today.
meta_depends() {
    apt-cache depends "$META" 2>/dev/null |
        sed -n "s/^ *Depends: \($PATTERN\)\$/\1/p" | head -n1
}

# pick_package: print the versioned image package name Debian currently
# points the series' meta package at. Falls back to what is cached when apt
# knows nothing (offline), and runs `apt-get update` once if needed.
pick_package() {
    local pkg
    pkg=$(meta_depends)
    if [[ -z $pkg ]]; then
        log "apt-cache knows no $META; running apt-get update once"
        apt-get update -qq >&2 || true
        pkg=$(meta_depends)
    fi
    if [[ -z $pkg ]]; then
        # Offline: use the newest kernel of the series already in the cache.
        local deb
        deb=$(find "$CACHE" -maxdepth 1 -name "$GLOB" 2>/dev/null | sort -V | tail -n1)
        [[ -n $deb ]] || die "cannot find a Debian $KSERIES kernel package (apt-cache depends $META gave nothing)"
        pkg=$(basename "$deb"); pkg=${pkg%%_*}
    fi
    echo "$pkg"
}

# fetch_deb PKG: print the path of PKG's .deb in the cache, downloading it
# when no version of it is cached.
fetch_deb() {
    local pkg=$1 deb
    deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n1)
    if [[ -z $deb ]]; then
        log "downloading $pkg"
        # apt-get download writes into the current directory; the _apt
        # sandbox user may not write there, which only yields a warning.
        (cd "$CACHE" && apt-get download -q "$pkg" >&2 2>/dev/null) ||
            (cd "$CACHE" && apt-get update -qq >&2 && apt-get download -q "$pkg" >&2) ||
            die "apt-get download $pkg failed"
        deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n1)
        [[ -n $deb ]] || die "apt-get download $pkg left no .deb in $CACHE"
    fi
    echo "$deb"
}

# unpack DEB KVER: unpack the kernel into $CACHE/root-KVER (once), depmod it.
unpack() {
    local deb=$1 kver=$2 root=$CACHE/root-$2
    if [[ -f $root/.unpacked && $(cat "$root/.unpacked") == "$(basename "$deb")" ]]; then
        return 0
    fi
    log "unpacking $(basename "$deb")"
    rm -rf "$root" "$root.tmp"
    mkdir -p "$root.tmp"
    dpkg-deb -x "$deb" "$root.tmp"
    [[ -f $root.tmp/boot/vmlinuz-$kver ]] || die "no boot/vmlinuz-$kver in $(basename "$deb")"
    depmod -b "$root.tmp" "$kver"
    basename "$deb" > "$root.tmp/.unpacked"
    mv "$root.tmp" "$root"
}

# build_initrd KVER: build $CACHE/initrd-KVER.img from busybox, the init
# script and the boot modules; rebuilt whenever any of those change.
build_initrd() {
    local kver=$1 root=$CACHE/root-$1 img=$CACHE/initrd-$1.img
    local busybox init=$LAB_DIR/initramfs-init
    busybox=/bin/busybox
    [[ -x $busybox ]] || die "busybox not installed (apt-get install busybox-static)"
    # A dynamically linked busybox (package busybox) cannot run in the initramfs.
    ! grep -q /lib64/ld-linux "$busybox" || die "$busybox is dynamically linked: install busybox-static"
    local -a deps
    mapfile -t deps < <(for m in "${INITRD_MODULES[@]}"; do
        modprobe -d "$root" -S "$kver" --show-depends "$m" || die "modprobe: no $m"
    done | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++')
    ((${#deps[@]})) || die "could not resolve initramfs modules"
    local key
    key=$( { echo "$kver"; cat "$busybox" "$init" "${deps[@]}" | sha256sum; } | sha256sum | cut -c1-64)
    if [[ -f $img && -f $img.key && $(cat "$img.key") == "$key" ]]; then
        return 0
    fi
    log "building initramfs for $kver"
    local tmp
    tmp=$(mktemp -d "$CACHE/initrd.XXXXXX")
    mkdir -p "$tmp"/{bin,dev,proc,sys,mnt,newroot,lower,upper,modules}
    cp "$busybox" "$tmp/bin/busybox"
    ln -s busybox "$tmp/bin/sh"
    install -m 0755 "$init" "$tmp/init"
    local m i=0
    for m in "${deps[@]}"; do
        # Numbered so a plain glob gives the dependency order. 6.12's modules
        # are xz-compressed and busybox insmod takes only plain ones.
        local dst
        dst="$tmp/modules/$(printf '%02d' "$i")-$(basename "${m%.xz}")"
        case $m in
            *.ko.xz) xz -dc "$m" > "$dst" ;;
            *) cp "$m" "$dst" ;;
        esac
        i=$((i + 1))
    done
    (cd "$tmp" && find . | sort | cpio -o -H newc --quiet | gzip -1) > "$img.tmp"
    rm -rf "$tmp"
    mv "$img.tmp" "$img"
    echo "$key" > "$img.key"
}

# prune KVER DEB: when Debian moved to a newer kernel of this series, drop
# the series' older ones from the cache (an unpacked tree is ~400 MB). The
# other series is left alone.
prune() {
    local kver=$1 deb=$2 f stem
    case $KSERIES in
        6.1) stem='6.1.0-' ;;
        6.12) stem='6.12.' ;;
    esac
    for f in "$CACHE"/root-"$stem"* "$CACHE"/initrd-"$stem"*.img "$CACHE"/initrd-"$stem"*.img.key \
             "$CACHE"/linux-image-"$stem"*.deb; do
        [[ -e $f ]] || continue
        case $f in
            "$CACHE/root-$kver" | "$CACHE/initrd-$kver.img" | "$CACHE/initrd-$kver.img.key" | "$deb") ;;
            *) log "pruning old $(basename "$f")"; rm -rf "$f" ;;
        esac
    done
}

main() {
    KSERIES=${1:-${LAB_KVERSION:-6.1}}
    series "$KSERIES"
    mkdir -p "$CACHE"
    # Serialise concurrent runs on the cache (parallel run-scenario calls).
    exec 9>"$CACHE/.lock"
    flock 9
    local pkg deb kver
    pkg=$(pick_package)
    kver=${pkg#linux-image-}
    deb=$(fetch_deb "$pkg")
    unpack "$deb" "$kver"
    build_initrd "$kver"
    prune "$kver" "$deb"
    printf 'LAB_KVER=%q\nLAB_KERNEL=%q\nLAB_INITRD=%q\nLAB_KROOT=%q\n' \
        "$kver" "$CACHE/root-$kver/boot/vmlinuz-$kver" "$CACHE/initrd-$kver.img" "$CACHE/root-$kver"
}

main "$@"
