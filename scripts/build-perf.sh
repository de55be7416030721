#!/usr/bin/env bash
# Build perf from the patched tree, out of tree, into build/perf.
# About 2.5 minutes cold on 2 cores.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[[ -d $TREE/tools/perf ]] || die "no tree at $TREE: run 'make tree'"
mkdir -p "$PERF_OUT"
# NO_RUST: Debian bookworm's ar rejects the archives this rustc writes.
step "building perf from the patched tree (about 2.5 min cold)"
run_logged "$BUILD/perf.log" make -C "$TREE/tools/perf" O="$PERF_OUT" NO_RUST=1 \
	CC="ccache gcc" HOSTCC="ccache gcc" -j"$(jobs_n)"
log "perf: $PERF_OUT/perf"
