#!/usr/bin/env bash
# Build the kernel objects the series touches with W=1, patched and base,
# and fail on any warning the patched build has that the base does not.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t srcs < <(git -C "$TREE" diff --name-only base..uevent -- '*.c' | grep -v '^tools/')
(( ${#srcs[@]} )) || { log "no kernel C files in the series"; exit 0; }
mapfile -t objs < <(kernel_targets "${srcs[@]}")

w1() {	# src out -> warning lines, line numbers stripped
	touch "${srcs[@]/#/$1/}"
	make -C "$1" O="$2" CC="ccache gcc" W=1 -j"$(jobs_n)" "${objs[@]}" 2>&1 |
		grep -E 'warning:' | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
}
log "W=1 build of ${objs[*]}"
new=$(comm -23 <(w1 "$TREE" "$KBUILD") <(w1 "$TREE_BASE" "$KBUILD_BASE"))
if [[ -n $new ]]; then
	echo "$new" >&2
	die "the series adds W=1 warnings"
fi
log "no new W=1 warnings"
