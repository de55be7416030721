#!/usr/bin/env bash
# Build the guest kernel out of tree with ccache.
# Usage: build-kernel.sh [patched|base] [extra make args, e.g. W=1]
#   patched: build/linux (the series)       -> build/kbuild
#   base:    build/base/linux (no series)   -> build/base/kbuild
# Config: tinyconfig + configs/guest.config.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

which=${1:-patched}
shift || true
case $which in
patched) src=$TREE out=$KBUILD ;;
base) src=$TREE_BASE out=$KBUILD_BASE ;;
*) die "usage: $0 [patched|base] [make args]" ;;
esac
[[ -f $src/Makefile ]] || die "no tree at $src: run 'make tree'"
mkdir -p "$out"

frag=$TOP/configs/guest.config
kmake() { make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(jobs_n)" "$@"; }

# Regenerate the config when the fragment changed.
if [[ ! -f $out/.config || $frag -nt $out/.config || ! -f $out/.config.frag ]] ||
	! cmp -s "$frag" "$out/.config.frag"; then
	log "configuring $which kernel: tinyconfig + configs/guest.config"
	kconfig_from_fragments "$src" "$out" "$frag" ||
		die "configs/guest.config does not apply cleanly"
	cp "$frag" "$out/.config.frag"
fi

step "building the $which kernel (about 10 min cold on 2 cores, seconds with a warm ccache)"
run_logged "$out.log" kmake bzImage "$@"
log "kernel: $out/arch/x86/boot/bzImage"
