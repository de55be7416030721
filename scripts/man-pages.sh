#!/usr/bin/env bash
# The man-pages series (patches/NN-man-pages-*): the pages of the uevent
# ABI, against the man-pages project as Debian's newest manpages has it
# (fetch-base.sh man-pages), never against the kernel tree.
#   tree     build/man-pages: the base commit (branch "base") and the
#            series applied with git am (branch "uevent", s/NN-topic at
#            each series' last commit), as tree.sh makes build/linux;
#            an up-to-date tree is left alone, unexported work is kept
#            (FORCE=1 throws it away)
#   export   write build/man-pages' series back to patches/ (export.sh)
#   series   the mailable set in build/series/NN-topic (series.sh; To and
#            Cc from series/NN-topic/to and cc)
#   check [RESULT.tsv]
#            apply the series with git am on a fresh base, then every page
#            it adds or changes through man --warnings and groff -ww: one
#            TSV line per gate (status, name, reason), appended to the file
#            given or printed; fails when a gate fails
# Usage: man-pages.sh tree|export [--to DIR]|series [--to DIR]|check [RESULT.tsv]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

MP=$BUILD/man-pages			# the man-pages tree with the series
MP_SRC=$CACHE/man-pages/man-pages	# its base commit (fetch-base.sh)
IDENT_NAME=${PATCH_AUTHOR_NAME:-perf uevent project}
IDENT_EMAIL=${PATCH_AUTHOR_EMAIL:-perf-uevent@example.org}
g() { git -C "$MP" "$@"; }

# the export.sh and series.sh of the kernel, on this base's tree and series
on_man_pages() { SERIES_BASE=man-pages TREE=$MP "$@"; }
mapfile -t dirs < <(SERIES_BASE=man-pages series_dirs)

base() {
	"$TOP/scripts/fetch-base.sh" man-pages
	[[ -d $MP_SRC/.git ]] || die "no man-pages base at $MP_SRC"
}

# git am of every man-pages series onto the base in worktree $1, with a
# branch s/NN-topic at each series' last commit when $2 is "branches"
apply() {	# dir [branches]
	local d
	for d in "${dirs[@]}"; do
		series_dir_patches "$d" | xargs -r git -C "$1" am -q ||
			{ git -C "$1" am --abort >/dev/null 2>&1 || true; return 1; }
		[[ ${2:-} != branches ]] || git -C "$1" branch -q -f "s/$(basename "$d")" HEAD
	done
}

# The tree holds what patches/ holds: the export of its series equals
# the series directories, and nothing is left uncommitted
uptodate() {
	local tmp rc=0
	tmp=$(mktemp -d)
	mkdir -p "$tmp/out" "$tmp/in"
	(( ${#dirs[@]} == 0 )) || cp -r "${dirs[@]}" "$tmp/in/"
	if [[ -n $(g for-each-ref 'refs/heads/s/') ]]; then
		on_man_pages "$TOP/scripts/export.sh" --to "$tmp/out" >/dev/null 2>&1 || rc=1
	fi
	diff -rq -x '0000-*' "$tmp/out" "$tmp/in" >/dev/null 2>&1 || rc=1
	[[ -z $(g status --porcelain --untracked-files=no) ]] || rc=1
	rm -rf "$tmp"
	return "$rc"
}

tree() {
	base
	# a new base (Debian moved on): start again from it, unless that
	# would throw away work
	if [[ -e $MP/.git && $(g rev-parse base) != $(git -C "$MP_SRC" rev-parse base) ]]; then
		if ! g rev-parse -q --verify uevent >/dev/null || uptodate || [[ ${FORCE:-0} == 1 ]]; then
			rm -rf "$MP"
		else
			die "$MP has work on the previous base: 'man-pages.sh export' it first, or FORCE=1 to discard it"
		fi
	fi
	if [[ ! -e $MP/.git ]]; then
		git clone -q -b base "$MP_SRC" "$MP"
		g remote remove origin
		g config user.name "$IDENT_NAME"
		g config user.email "$IDENT_EMAIL"
	fi
	# leave an up-to-date tree alone; never throw away unexported work
	if g rev-parse -q --verify uevent >/dev/null; then
		if uptodate; then
			log "man-pages tree up to date with patches/ ($(g log -1 --format=%s base))"
			return 0
		elif [[ ${FORCE:-0} != 1 ]]; then
			die "$MP differs from patches/ (uncommitted edits or unexported commits): 'man-pages.sh export' first, or FORCE=1 to discard them"
		fi
	fi
	step "applying ${#dirs[@]} man-pages series onto $(g log -1 --format=%s base) with git am"
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f -B uevent base
	g for-each-ref --format='%(refname:short)' 'refs/heads/s/' | xargs -r git -C "$MP" branch -q -D
	apply "$MP" branches || die "git am failed; see 'git -C $MP am --show-current-patch'"
	g log --reverse --oneline base..uevent | sed "s/^/$PROG:   /" >&2
}

check() {
	local tsv=${1:-/dev/stdout} start=$SECONDS wt ver n f out bad=0 name
	base
	ver=$(git -C "$MP_SRC" log -1 --format=%s base | sed 's/^Base: //')
	result() {	# status name [reason]
		printf '%s\t%s\t%s\n' "$1" "$2" "$(printf '%s' "${3:-}" | tr '\n\t' '  ' | cut -c1-400)" >>"$tsv"
		[[ $1 != fail ]] || bad=1
	}
	if (( ${#dirs[@]} == 0 )); then
		result skip "man-pages: no series in patches/ (NN-man-pages-*)"
		return 0
	fi
	n=$(for d in "${dirs[@]}"; do series_dir_patches "$d"; done | wc -l)
	name="man-pages: $(basename -a "${dirs[@]}" | tr '\n' ' ')applies to $ver"
	wt=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: wt is local
	trap "rm -rf '$wt'" EXIT
	git clone -q -b base "$MP_SRC" "$wt/man-pages"
	git -C "$wt/man-pages" config user.name am
	git -C "$wt/man-pages" config user.email am@example.org
	git -C "$wt/man-pages" checkout -q -b uevent
	if ! out=$(apply "$wt/man-pages" 2>&1); then
		result fail "$name" "git am: $(echo "$out" | head -n 3)"
		return 1
	fi
	result pass "$name" "$n patches with git am"
	# every page the series adds or changes, as man and groff render
	# it for a reader: no warning at all
	while IFS= read -r f; do
		out=$(cd "$wt/man-pages" && {
			MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null
			groff -man -z -ww "$f" 2>&1
		} </dev/null)
		if [[ -z $out ]]; then
			result pass "man-pages: $f: no man/groff warnings"
		else
			result fail "man-pages: $f: no man/groff warnings" "$(echo "$out" | head -n 3)"
		fi
	done < <(git -C "$wt/man-pages" diff --name-only --diff-filter=AM base..HEAD -- 'man/*')
	log "man-pages check took $((SECONDS - start)) s"
	return "$bad"
}

cmd=${1:-}
shift || true
case $cmd in
tree) tree ;;
export)
	[[ -e $MP/.git ]] || die "no tree at $MP: run '$0 tree'"
	on_man_pages "$TOP/scripts/export.sh" "$@" ;;
series)
	tree
	VERSION=${MAN_PAGES_VERSION:-1} on_man_pages "$TOP/scripts/series.sh" "$@" ;;
check) check "$@" ;;
*) die "usage: $0 tree|export [--to DIR]|series [--to DIR]|check [RESULT.tsv]" ;;
esac
