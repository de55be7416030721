#!/usr/bin/env bash
# Write the series (build/linux, base..uevent) back to patches/ as
# git format-patch files with stable names and no run-dependent output.
# Usage: export.sh [--to DIR]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=$TOP/patches
[[ ${1:-} == --to ]] && out=$2
[[ -d $TREE/.git ]] || die "no tree at $TREE: run 'make tree'"
[[ -z $(git -C "$TREE" status --porcelain --untracked-files=no) ]] ||
	die "$TREE has uncommitted changes: commit them first"

mkdir -p "$out"
find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false format-patch -q \
	--no-signature --zero-commit --no-renames -o "$out" base..uevent
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	[[ $p == */0000-* ]] || echo "${p#"$TOP"/}"
done
