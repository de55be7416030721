#!/usr/bin/env bash
# Write the series of build/linux back to patches/, one directory per
# series: branch s/NN-topic marks the last commit of series NN-topic, whose
# patches are the commits after the previous series (or the base). Each
# directory gets git format-patch files with stable names and no
# run-dependent output, and its cover letter as 0000, written from
# series/NN-topic/cover-letter.txt.
# Usage: export.sh [--to DIR]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=$TOP/patches
[[ ${1:-} == --to ]] && out=$2
[[ -e $TREE/.git ]] || die "no tree at $TREE: run 'make tree'"
[[ -z $(git -C "$TREE" status --porcelain --untracked-files=no) ]] ||
	die "$TREE has uncommitted changes: commit them first"

mapfile -t refs < <(series_refs)
(( ${#refs[@]} )) || die "no series branch (s/NN-topic) in $TREE"
base=$(base_version)

# the series follow each other, and the last one is the top of "uevent"
prev=base
for r in "${refs[@]}"; do
	git -C "$TREE" merge-base --is-ancestor "$prev" "$r" ||
		die "$r does not follow $prev: series branches must stack in order"
	[[ $(git -C "$TREE" rev-parse "$prev") != $(git -C "$TREE" rev-parse "$r") ]] ||
		die "$r has no commit of its own"
	prev=$r
done
[[ $(git -C "$TREE" rev-parse "$prev") == $(git -C "$TREE" rev-parse uevent) ]] ||
	die "uevent has commits after $prev: move the branch of the series they belong to (git branch -f)"

mkdir -p "$out"
# series that are gone, and patches that are gone from a series
while IFS= read -r d; do
	[[ -n $(git -C "$TREE" rev-parse -q --verify "refs/heads/s/$(basename "$d")") ]] || rm -rf "$d"
done < <(series_dirs "$out")

prev=base
for r in "${refs[@]}"; do
	name=${r#s/}
	cover=$TOP/series/$name/cover-letter.txt
	[[ -f $cover ]] || die "no cover letter for $name: write $cover"
	dir=$out/$name
	mkdir -p "$dir"
	find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	# the cover letter's Date is the series' last commit's, so that
	# exporting twice gives the same bytes
	git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
		-c "branch.$r.description=$(sed "s|@BASE@|$base|g" "$cover")" format-patch -q \
		--cover-letter --cover-from-description=subject \
		--no-signature --zero-commit --no-renames -o "$dir" "$prev..$r"
	date=$(git -C "$TREE" log -1 --format=%aD "$r")
	sed -i "1,5s/^Date: .*/Date: $date/" "$dir"/0000-cover-letter.patch
	for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		echo "${p#"$TOP"/}"
	done
	prev=$r
done
