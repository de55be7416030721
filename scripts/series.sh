#!/usr/bin/env bash
# make series: every series of build/linux as a mailable set of its own,
# in build/series/NN-topic/: a cover letter from
# series/NN-topic/cover-letter.txt (with the base version in place of
# @BASE@), the patches numbered with the series' subject prefix, To/Cc from
# the tree's scripts/get_maintainer.pl on the series' patches and on the
# files series/NN-topic/cc names (lines with an @ are addresses), and the
# sender's identity in place of the project's on From: and Signed-off-by:.
# A series whose series/NN-topic/to names its maintainers (a base without
# get_maintainer.pl) takes To from it and Cc from the addresses of its cc.
# The series of other bases (NN-man-pages-*: scripts/man-pages.sh series)
# go to the same place.
# Usage: SENDER='Name <addr>' series.sh [--to DIR]
#   SENDER defaults to the project's identity;
#   VERSION (default 7) gives "[PATCH v7 nn/NN]"; a series whose
#   series/NN-topic/prefix says e.g. "RFC PATCH" gets "[RFC PATCH v7 nn/NN]";
#   VERSION=1 gives "[PATCH nn/NN]".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PROJECT='perf uevent project <perf-uevent@example.org>'
out=$BUILD/series
[[ ${1:-} == --to ]] && out=$2
[[ -e $TREE/.git ]] || die "no tree at $TREE: run 'make tree'"
mapfile -t refs < <(series_refs)
(( ${#refs[@]} )) || die "no series branch (s/NN-topic) in $TREE: run 'make tree'"
base=$(base_version)

# the person who mails the series says who they are; without SENDER the
# project's identity stays (a git identity of the machine may be nobody's)
sender=${SENDER:-$PROJECT}
[[ $sender =~ ^[^\<\>]+\ \<[^\<\>@[:space:]]+@[^\<\>[:space:]]+\>$ ]] ||
	die "SENDER must look like 'Name <user@host>', not '$sender'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# this base's sets only: the other bases' sets stay
mkdir -p "$out"
while IFS= read -r d; do rm -rf "$d"; done < <(series_dirs "$out")

prev=base
for r in "${refs[@]}"; do
	name=${r#s/}
	sdir=$TOP/series/$name
	cover=$sdir/cover-letter.txt
	[[ -f $cover ]] || die "no $cover"
	text=$(sed "s|@BASE@|$base|g" "$cover")
	if grep -q '@[A-Z]*@' <<<"$text"; then
		die "$cover still has a placeholder: $(grep -m1 -o '@[A-Z]*@' <<<"$text")"
	fi
	prefix="$(cat "$sdir/prefix" 2>/dev/null || echo PATCH)"
	[[ ${VERSION:-7} == 1 ]] || prefix+=" v${VERSION:-7}"

	fp() {	# dir [format-patch args]: the series with its cover letter
		local dir=$1
		shift
		rm -rf "$dir"
		git -C "$TREE" -c core.abbrev=12 -c "branch.$r.description=$text" \
			format-patch -q --cover-letter --cover-from-description=subject \
			--no-signature --subject-prefix="$prefix" -o "$dir" "$@" "$prev..$r"
	}

	# Who gets it: maintainers To, lists and reviewers Cc, over the
	# series' patches and the files its cc list names
	fp "$tmp/$name"
	mapfile -t files < <(find "$tmp/$name" -name '*.patch' ! -name '0000-*' | sort)
	mapfile -t extra < <(grep -v '@' "$sdir/cc" 2>/dev/null | grep -v '^#' | grep . || true)
	gm() {
		{
			(cd "$TREE" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
				--no-git-fallback --no-keywords "$@" "${files[@]}" 2>/dev/null)
			if (( ${#extra[@]} )); then
				(cd "$TREE" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
					--no-git-fallback --no-keywords "$@" -f "${extra[@]}" 2>/dev/null)
			fi
		} | grep -vF "$PROJECT" | sort -u
	}
	if [[ -f $sdir/to ]]; then
		mapfile -t to < <(grep '@' "$sdir/to" | grep -v '^#')
		mapfile -t cc < <({ grep '@' "$sdir/cc" 2>/dev/null | grep -v '^#' || true; } |
			grep -vxF -f <(printf '%s\n' "${to[@]}") | sort -u)
	else
		mapfile -t to < <(gm --m --no-r --no-l)
		mapfile -t cc < <({ gm --no-m --r --l; grep '@' "$sdir/cc" 2>/dev/null | grep -v '^#' || true; } |
			grep -vxF -f <(printf '%s\n' "${to[@]}") | sort -u)
	fi
	(( ${#to[@]} )) || die "get_maintainer.pl found no maintainer for $name"
	args=()
	for a in "${to[@]}"; do args+=(--to "$a"); done
	for a in "${cc[@]}"; do args+=(--cc "$a"); done
	fp "$out/$name" "${args[@]}"

	# the sender's identity on From: and Signed-off-by:
	if [[ $sender != "$PROJECT" ]]; then
		for f in "$out/$name"/*.patch; do
			S=$sender P=$PROJECT perl -pi -e 's/\Q$ENV{P}\E/$ENV{S}/g' "$f"
		done
	fi
	log "$name: $(find "$out/$name" -name '*.patch' | wc -l) files, [$prefix], ${#to[@]} To, ${#cc[@]} Cc"
	prev=$r
done
if [[ $SERIES_BASE == linux ]]; then
	# the series of other bases, from their own trees
	if [[ -n $(SERIES_BASE=man-pages series_dirs) ]]; then
		"$TOP/scripts/man-pages.sh" series --to "$out"
	fi
	log "from $sender; send each series with: git send-email ${out#"$TOP"/}/NN-topic/*.patch"
fi
