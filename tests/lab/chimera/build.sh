#!/usr/bin/env bash
# tests/lab/chimera/build.sh — build Chimera (chimera-nas: a userspace NFS
# server over libevpl, a second RPC-over-RDMA implementation) for the lab,
# from the pinned pristine tarballs in ../shared/third-party/chimera plus the
# local patches beside this script, into the lab cache (like the guest
# kernels: CI has no network). Prints `CHIMERA_BIN=PATH`; the build tree
# stays in the cache because the guests run the host's files over 9p.
#
# The cache key hashes the tarballs, the patches, this script and the
# compiler, so any change rebuilds; older builds are removed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
SRC=${NFSRDMA_CHIMERA_SRC:-$REPO/../shared/third-party/chimera}
CACHE=${NFSRDMA_LAB_CACHE:-/var/cache/nfsrdma-lab}

fail() { echo "chimera/build.sh: $*" >&2; exit 1; }

declare -A TARBALL=(
	[chimera]=chimera-5871cf87.tar.xz
	[libevpl]=libevpl-ea2f91b5.tar.xz
	[xdrzcc]=xdrzcc-a60e1db8.tar.xz
	[prometheus-c]=prometheus-c-d9780ee6.tar.xz
)
# where each project goes in the assembled tree (git submodules upstream)
declare -A PLACE=(
	[chimera]=.
	[libevpl]=ext/libevpl
	[xdrzcc]=ext/libevpl/ext/xdrzcc
	[prometheus-c]=ext/libevpl/ext/prometheus-c
)
ORDER=(chimera libevpl xdrzcc prometheus-c)

for p in "${ORDER[@]}"; do
	[[ -r $SRC/${TARBALL[$p]} ]] || fail "missing $SRC/${TARBALL[$p]} (the pinned sources; see ../shared/third-party/chimera/README.md)"
done
command -v cmake >/dev/null && command -v ninja >/dev/null ||
	fail "cmake and ninja-build are needed (scripts/deps.sh lab installs them)"

key=$({
	for p in "${ORDER[@]}"; do sha256sum "$SRC/${TARBALL[$p]}" | cut -d' ' -f1; done
	cat "$HERE"/patches/*.patch "$0"
	gcc --version | head -1
} | sha256sum | cut -c1-16)
OUT=$CACHE/chimera-$key
BIN=$OUT/build/src/daemon/chimera

if [[ ! -f $OUT/ok ]]; then
	mkdir -p "$CACHE"
	exec 9>"$CACHE/chimera.lock"
	flock 9
fi
if [[ ! -f $OUT/ok ]]; then
	echo "chimera/build.sh: building into $OUT (a few minutes)" >&2
	rm -rf "$OUT"
	mkdir -p "$OUT/src"
	tree=$OUT/src/chimera
	for p in "${ORDER[@]}"; do
		mkdir -p "$tree/${PLACE[$p]}"
		# each tarball holds one top-level directory named after the project
		tar -xJf "$SRC/${TARBALL[$p]}" -C "$tree/${PLACE[$p]}" --strip-components=1
	done
	# patches are named PROJECT-NN-what.patch and apply inside that project
	for pf in "$HERE"/patches/*.patch; do
		p=$(basename "$pf"); p=${p%%-[0-9][0-9]-*}
		[[ -n ${PLACE[$p]:-} ]] || fail "patch $pf names no known project"
		patch -s -p1 --forward --fuzz=0 -d "$tree/${PLACE[$p]}" <"$pf" ||
			fail "patch $pf does not apply"
	done
	# Baseline x86-64 (the lab's TCG guests have no AVX2), no CUDA, no
	# io_uring (bookworm's liburing 2.3 lacks io_uring_setup_buf_ring), no
	# tests: only the daemon is needed.
	# ccache (when installed) keyed on paths relative to the build, so a
	# rebuild after a patch changes recompiles only what the patch touched
	launcher=()
	if command -v ccache >/dev/null; then
		export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G
		launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
	fi
	cmake -S "$tree" -B "$OUT/build" -G Ninja "${launcher[@]}" >"$OUT/cmake.log" 2>&1 \
		-DCMAKE_BUILD_TYPE=Release -DDISABLE_TESTS=ON \
		-DCHIMERA_ENABLE_PYNFS_TESTS=OFF -DCAIRN_ENABLED=OFF \
		-DIO_URING_ENABLED=OFF -DCHIMERA_VFS_IO_URING=OFF \
		-DMARCH_FLAG=-march=x86-64 -DXXH_VECTOR_IMPL=XXH_SSE2 -DCUDA_AUTODETECT=OFF ||
		{ tail -20 "$OUT/cmake.log" >&2; fail "cmake failed; see $OUT/cmake.log"; }
	nice ninja -C "$OUT/build" -j"$(nproc)" src/daemon/chimera >"$OUT/ninja.log" 2>&1 ||
		{ grep -m5 -B2 -A5 'error' "$OUT/ninja.log" >&2; fail "build failed; see $OUT/ninja.log"; }
	[[ -x $BIN ]] || fail "no $BIN after the build"
	touch "$OUT/ok"
	for old in "$CACHE"/chimera-*; do
		[[ -d $old && $old != "$OUT" ]] && rm -rf "$old"
	done
	echo "chimera/build.sh: built $BIN" >&2
fi
echo "CHIMERA_BIN=$BIN"
