#!/usr/bin/env bash
# Materialize the kernel git tree: build/linux holds one base commit
# (branch "base") and the series of patches/ applied on top with git am,
# directory by directory (branch "uevent"; branch s/NN-topic at the last
# commit of each series); build/base/linux is a worktree of the base alone.
# KERNEL_SRC=/path/to/linux takes the base from an existing tree instead
# of Debian's linux-source package.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

IDENT_NAME=${PATCH_AUTHOR_NAME:-perf uevent project}
IDENT_EMAIL=${PATCH_AUTHOR_EMAIL:-perf-uevent@example.org}
g() { git -C "$TREE" "$@"; }

create_tree() {
	local src=${KERNEL_SRC:-$CACHE/base/linux}
	[[ -f $src/Makefile && -d $src/kernel ]] || die "no kernel source at $src"
	rm -rf "$TREE" "$TREE_BASE"
	if [[ -n ${KERNEL_SRC:-} ]] && git -C "$src" rev-parse --verify -q HEAD >/dev/null; then
		step "cloning $src (shared objects, a minute)"
		git clone -q --shared --no-checkout "$src" "$TREE"
		g checkout -q -b base "$(git -C "$src" rev-parse HEAD)"
	elif [[ -n ${KERNEL_SRC:-} ]]; then
		step "creating the base commit from the kernel source at $src (about a minute)"
		mkdir -p "$TREE"
		cp -a "$src/." "$TREE/"
		rm -rf "$TREE/.git"
		g init -q -b base
		g add -A -f
		g -c user.name=base -c user.email=base@localhost commit -q \
			-m "Base: kernel source from $src"
	else
		# the cached base commit (fetch-base.sh); a local clone shares no
		# state with the cache, which may go away afterwards
		[[ -d $src/.git ]] || die "no base commit at $src: run scripts/fetch-base.sh"
		step "cloning the base commit of $(cat "$CACHE/base/VERSION") (under a minute)"
		git clone -q -b base "$src" "$TREE"
		g remote remove origin
	fi
	g config user.name "$IDENT_NAME"
	g config user.email "$IDENT_EMAIL"
}

[[ -e $TREE/.git ]] || create_tree

# Leave an up-to-date tree alone (no rebuilds); never throw away work that
# has not been exported to patches/.
uptodate=0
if g rev-parse -q --verify uevent >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$TOP/scripts/export.sh" --to "$tmp" >/dev/null 2>&1 || true
	# the series of other bases (lib.sh) are not in this tree
	excl=(-x '0000-*' -x '*.txt')
	for b in "${OTHER_BASES[@]}"; do excl+=(-x "[0-9][0-9]-$b-*"); done
	if diff -rq "${excl[@]}" "$tmp" "$TOP/patches" >/dev/null 2>&1 &&
		[[ -z $(g status --porcelain --untracked-files=no) ]]; then
		uptodate=1
	elif [[ ${FORCE:-0} != 1 ]]; then
		die "$TREE differs from patches/ (uncommitted edits or unexported commits): commit and 'make export' first, or FORCE=1 to discard them"
	fi
fi

if (( uptodate )); then
	log "tree up to date with patches/"
else
	mapfile -t dirs < <(series_dirs)
	(( ${#dirs[@]} )) || die "no series in patches/ (directories NN-topic)"
	step "applying $(series_patches "$TOP/patches" | wc -l) patches of ${#dirs[@]} series with git am"
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f -B uevent base
	series_refs | xargs -r git -C "$TREE" branch -q -D
	for d in "${dirs[@]}"; do
		series_dir_patches "$d" | xargs -r git -C "$TREE" am -q --keep-cr ||
			die "git am failed in $(basename "$d"); see 'git -C $TREE am --show-current-patch'"
		g branch -q -f "s/$(basename "$d")" HEAD
	done
fi

if [[ ! -e $TREE_BASE/.git ]]; then
	# the base worktree and its build were build/linux-base and
	# build/kbuild-base before they moved under build/base/
	rm -rf "$BUILD/linux-base" "$BUILD/kbuild-base" "$BUILD/kbuild-arm64-base"
	g worktree prune
	g worktree add -q -f "$TREE_BASE" base
fi
prev=base
while IFS= read -r r; do
	log "  ${r#s/}:"
	g log --reverse --oneline "$prev..$r" | sed "s/^/$PROG:     /" >&2
	prev=$r
done < <(series_refs)
