#!/usr/bin/env bash
# make series: the mailable set in build/series: a cover letter from
# series/cover-letter.txt and the patches of build/linux (base..uevent),
# numbered, with the subject prefix of this version, To/Cc from the tree's
# scripts/get_maintainer.pl, and the sender's identity in place of the
# project's on From: and Signed-off-by: lines.
# Usage: SENDER='Name <addr>' series.sh [--to DIR]
#   SENDER defaults to git's user.name/user.email, then the project's;
#   VERSION (default 6) gives "[PATCH v6 nn/NN]".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PROJECT='perf uevent project <perf-uevent@example.org>'
out=$BUILD/series
[[ ${1:-} == --to ]] && out=$2
[[ -d $TREE/.git ]] || die "no tree at $TREE: run 'make tree'"
cover=$TOP/series/cover-letter.txt
[[ -f $cover ]] || die "no $cover"
if grep -q '@[A-Z]*@' "$cover"; then
	die "$cover still has a placeholder: $(grep -m1 -o '@[A-Z]*@' "$cover")"
fi

sender=${SENDER:-}
if [[ -z $sender ]]; then
	name=$(git config user.name || true)
	mail=$(git config user.email || true)
	sender=$PROJECT
	[[ -n $name && -n $mail ]] && sender="$name <$mail>"
fi
[[ $sender =~ ^[^\<\>]+\ \<[^\<\>@[:space:]]+@[^\<\>[:space:]]+\>$ ]] ||
	die "SENDER must look like 'Name <user@host>', not '$sender'"

fp() {	# dir [format-patch args]: the series with its cover letter
	local dir=$1
	shift
	rm -rf "$dir"
	git -C "$TREE" -c core.abbrev=12 -c "branch.uevent.description=$(cat "$cover")" \
		format-patch -q --cover-letter --cover-from-description=subject --no-signature \
		--subject-prefix="PATCH v${VERSION:-6}" -o "$dir" "$@" base..uevent
}

# Who gets it: maintainers To, lists and reviewers Cc, over all patches
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fp "$tmp"
mapfile -t files < <(find "$tmp" -name '*.patch' ! -name '0000-*' | sort)
gm() {
	(cd "$TREE" && ./scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback \
		"$@" "${files[@]}" 2>/dev/null) |
		grep -vF "$PROJECT" | sort -u
}
mapfile -t to < <(gm --m --no-r --no-l)
mapfile -t cc < <(gm --no-m --r --l)
(( ${#to[@]} )) || die "get_maintainer.pl found no maintainer"
args=()
for a in "${to[@]}"; do args+=(--to "$a"); done
for a in "${cc[@]}"; do args+=(--cc "$a"); done
fp "$out" "${args[@]}"

# the sender's identity on From: and Signed-off-by:
if [[ $sender != "$PROJECT" ]]; then
	for f in "$out"/*.patch; do
		S=$sender P=$PROJECT perl -pi -e 's/\Q$ENV{P}\E/$ENV{S}/g' "$f"
	done
fi
n=$(find "$out" -name '*.patch' | wc -l)
log "$n files in ${out#"$TOP"/}/ from $sender: ${#to[@]} To, ${#cc[@]} Cc"
log "send with: git send-email ${out#"$TOP"/}/*.patch"
