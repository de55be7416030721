#!/usr/bin/env bash
# Write the series (build/linux, base..uevent) back to patches/ as
# git format-patch files with stable names and no run-dependent output,
# with the cover letter as 0000.
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
find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
# the cover letter (0000) comes from series/cover-letter.txt; its Date is
# the last commit's, so that exporting twice gives the same bytes
git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
	-c "branch.uevent.description=$(cat "$TOP/series/cover-letter.txt")" format-patch -q \
	--cover-letter --cover-from-description=subject \
	--no-signature --zero-commit --no-renames -o "$out" base..uevent
date=$(git -C "$TREE" log -1 --format=%aD uevent)
sed -i "1,5s/^Date: .*/Date: $date/" "$out"/0000-cover-letter.patch
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	echo "${p#"$TOP"/}"
done
