#!/usr/bin/env bash
# The maintainers' gates on the series, each one line in TSV (status, name,
# reason) appended to the file given:
#   - per patch, in order, on the tree as it is before that patch:
#     checkpatch --strict (run from the tree top, as a maintainer does),
#     then the patch applied and the objects it touches built (bisectable);
#   - sparse (C=1) on the kernel files the series touches: no new warning;
#   - the kernel builds with CONFIG_PERF_EVENTS=n (User-Mode Linux);
#   - tools/perf/check-headers.sh: no difference the base does not have;
#   - perf trace's prctl table generator picks up the new prctl;
#   - the new rst builds with Sphinx without warnings;
#   - make -C tools/testing/selftests TARGETS=perf_uevent builds;
#   - every commit message keeps its Signed-off-by as a trailer.
# Usage: check-series.sh RESULT.tsv   (after build-kernel.sh patched)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tsv=$1
# laid out like build/linux and build/kbuild, to share their ccache entries
WT=$BUILD/bisect/linux		# detached worktree walked through the series
BK=$BUILD/bisect/kbuild		# its kernel objects (the guest config)
BP=$BUILD/bisect-perf		# its perf objects
NP=$BUILD/kbuild-noperf		# CONFIG_PERF_EVENTS=n kernel
J=-j$(jobs_n)
# checkpatch's CamelCase check knows the names the kernel's include/
# declares, not those of the Python C API that perf's python scripting
# engine calls, nor the ELF types of the C library's <elf.h> that
# <perf/uevent.h> reads the vDSO with. A CAMELCASE remark passes only for
# a name CPython's headers or <elf.h> declare; it is listed on the patch's
# line. Anything else fails.
PY_INC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)
LIBC_ELF=/usr/include/elf.h

result() {	# status name [reason]
	printf '%s\t%s\t%s\n' "$1" "$2" "$(printf '%s' "${3:-}" | tr '\n\t' '  ' | cut -c1-400)" >>"$tsv"
}

[[ -f $KBUILD/.config ]] || die "no $KBUILD/.config: run build-kernel.sh patched first"
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..uevent)
mapfile -t patches < <(series_patches "$TOP/patches")
(( ${#commits[@]} == ${#patches[@]} )) ||
	die "${#commits[@]} commits in $TREE but ${#patches[@]} patches: run 'make tree'"

# build/bisect was the worktree itself before it moved to build/bisect/linux
[[ -e $BUILD/bisect/.git ]] && rm -rf "$BUILD/bisect" "$BUILD/bisect-kbuild"
if [[ ! -e $WT/.git ]]; then
	rm -rf "$WT"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$WT" base
fi
git -C "$WT" checkout -q --detach base

mkdir -p "$BK" "$BP"
cp "$KBUILD/.config" "$BK/.config"
make -C "$WT" O="$BK" olddefconfig >/dev/null

# Every file commit $1 adds is covered by a MAINTAINERS entry with an M:
# line other than the project's, in the series' final tree.
maintained() {
	local f m
	while IFS= read -r f; do
		[[ -n $f ]] || continue
		m=$(cd "$TREE" || exit
			./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
				--m --nol --nor -f "$f" 2>/dev/null | grep -v 'perf-uevent@example.org')
		[[ -n $m ]] || return 1
	done < <(git -C "$TREE" diff-tree --no-commit-id --name-only --diff-filter=A -r "$1")
}

# perf's feature detection ran for the full perf build: reuse its result
# rather than detect again for every perf target of every patch
fdump=()
[[ -f $PERF_OUT/FEATURE-DUMP ]] && fdump=("FEATURES_DUMP=$PERF_OUT/FEATURE-DUMP")

# checkpatch from the tree top, on the tree the patch applies to:
# CamelCase names already in a file it changes are known, as for anyone
# running it before sending. The tree patch N applies to is the one patch
# N-1 is built in, so that checkpatch runs beside that build.
cpdir=$BUILD/bisect/checkpatch
rm -rf "$cpdir"
mkdir -p "$cpdir"
checkpatch() {	# index: output in $cpdir/index, exit status in index.rc
	local rc=0
	(cd "$WT" && ./scripts/checkpatch.pl --strict --terse --no-summary --show-types \
		"${patches[$1]}" >"$cpdir/$1" 2>&1) || rc=$?
	echo "$rc" >"$cpdir/$1.rc"
}
cpid=
trap '[[ -z $cpid ]] || kill "$cpid" 2>/dev/null || true' EXIT
libsymbol=0	# perf's libsymbol built in $BP

step "checkpatch and a build of what it touches, patch by patch (${#commits[@]} patches, 3-10 min)"
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	p=${patches[$i]}
	name=$(basename "$(dirname "$p")")/$(basename "$p")

	(( i )) || checkpatch 0
	out=$(cat "$cpdir/$i")
	# 1 is checkpatch's answer to remarks; more is a crash or a kill
	cprc=$(cat "$cpdir/$i.rc" 2>/dev/null || echo none)
	[[ $cprc == [01] ]] || out+=$'\n'"checkpatch.pl ended with status $cprc"
	bad="" kept=()
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		word=$(sed -n 's/.*CHECK:CAMELCASE: Avoid CamelCase: <\([A-Za-z0-9_]*\)>$/\1/p' <<<"$line")
		if [[ -n $word && -n $PY_INC ]] && grep -rqw -- "$word" "$PY_INC"; then
			kept+=("$word")
		elif [[ -n $word && -f $LIBC_ELF ]] && grep -qE "^} $word;|typedef .* $word;" "$LIBC_ELF"; then
			kept+=("$word (<elf.h>)")
		elif [[ $line == *WARNING:UNKNOWN_COMMIT_ID:* ]] &&
			id=$(sed -n "s/.*Unknown commit id '\([0-9a-f]\{12,\}\)'.*/\1/p" <<<"$line") &&
			[[ -n $id ]] && grep -qE "^Fixes: $id \(\".+\"\)$" "$p"; then
			# the base is a source package with no upstream history,
			# so checkpatch cannot look up the commit a Fixes: tag
			# names; the tag's form is still checked (GIT_COMMIT_ID)
			kept+=("Fixes: $id, not in the base's history")
		elif [[ $line == *WARNING:MISSING_FIXES_TAG:* ]] &&
			grep -q '^there is no Fixes: tag' "$p"; then
			# a stable fix whose message says why no commit is to blame
			kept+=("Cc: stable without Fixes:, as its message explains")
		elif [[ $line == *WARNING:PREFER_LORE_ARCHIVE:* ]] &&
			grep -q '^Link: ' "$p"; then
			# the 2014-2015 postings as their archives name them: their
			# lore message-ids cannot be looked up where this runs
			kept+=("Link: to an earlier posting outside lore")
		elif [[ $line == *WARNING:FILE_PATH_CHANGES:* ]] && maintained "$c"; then
			# "does MAINTAINERS need updating?": no, every file the
			# patch adds is in an entry that has maintainers
			kept+=("new files in maintained entries")
		else
			bad+="$line"$'\n'
		fi
	done <<<"$out"
	if [[ -z $bad ]]; then
		result pass "checkpatch --strict: $name" "${kept[*]:+allowed: ${kept[*]}}"
	else
		result fail "checkpatch --strict: $name" "$(echo "$bad" | sed "s|$TOP/||" | head -n 3)"
	fi
	# the sign-off is a trailer, what b4, patchwork and the maintainers'
	# scripts read, and no editor text (git's "# ..." lines) is left
	msg=$(git -C "$TREE" log -1 --format=%B "$c")
	if git interpret-trailers --parse <<<"$msg" | grep -q '^Signed-off-by: ' &&
		! grep -qE '^# |interactive rebase in progress' <<<"$msg"; then
		result pass "sign-off in the trailers: $name"
	else
		result fail "sign-off in the trailers: $name" \
			"no Signed-off-by in the message's last paragraph, or git's editor text left in it"
	fi

	git -C "$WT" checkout -q --detach "$c"
	cpid=
	if (( i + 1 < ${#commits[@]} )); then
		checkpatch $((i + 1)) &
		cpid=$!
	fi
	mapfile -t files < <(git -C "$WT" diff-tree --no-commit-id --name-only -r "$c")
	kobjs=() pobjs=() plibs=() lib=0 self=() other=0
	for f in "${files[@]}"; do
		case $f in
		tools/perf/ui/stdio/*.c)
			# ui/stdio/ has no Build file of its own (ui/Build lists
			# its objects), hence no single-object target: build
			# perf's ui part
			plibs=("$BP/perf-ui-in.o") ;;
		tools/perf/*.c) pobjs+=("${f#tools/perf/}") ;;
		tools/perf/* | tools/include/*) other=1 ;;
		tools/lib/perf/*) lib=1 ;;
		tools/lib/symbol/* | tools/lib/api/*) other=1 ;;
		tools/testing/selftests/*/*) self+=("$(cut -d/ -f4 <<<"$f")") ;;
		tools/testing/selftests/*) ;;
		Documentation/* | MAINTAINERS) ;;
		lib/vdso/*.c | arch/x86/entry/vdso/*) kobjs+=("$f") ;;
		*.c) kobjs+=("$f") ;;
		*) other=1 ;;
		esac
	done
	# what libsymbol builds from changed: build it again
	grep -q '^tools/\(include\|lib/api\|lib/symbol\)/' < <(printf '%s\n' "${files[@]}") && libsymbol=0
	# a header-only change: build the objects that use the headers most
	if (( other && ${#kobjs[@]} == 0 )) && ! grep -q '^tools/' < <(printf '%s\n' "${files[@]}"); then
		kobjs=(kernel/events/core.c kernel/sys.c)
	fi
	if (( other || lib )) && (( ${#pobjs[@]} + ${#plibs[@]} == 0 )) &&
		grep -q '^tools/\(perf\|include\|lib/perf\|lib/api\|lib/symbol\)' < <(printf '%s\n' "${files[@]}"); then
		pobjs=(util/evsel.c util/session.c util/event.c)
	fi
	mapfile -t self < <(printf '%s\n' "${self[@]}" | sort -u | grep . || true)

	built=() err=""
	if (( ${#kobjs[@]} )); then
		mapfile -t ktargets < <(kernel_targets "${kobjs[@]}")
		if ! out=$(make -C "$WT" O="$BK" CC="ccache gcc" HOSTCC="ccache gcc" "$J" "${ktargets[@]}" 2>&1); then
			err+="kernel: $(echo "$out" | grep -m 3 -E 'error|Error')"
		fi
		built+=("${ktargets[@]}")
	fi
	if (( ${#pobjs[@]} + ${#plibs[@]} )); then
		# perf's single-object targets need its libraries' headers
		# installed first: prepare, then libsymbol, which is not part
		# of prepare (the series does not change it: built once). The
		# objects depend on prepare, which follows the patch's changes.
		# Makefile.perf itself, in one make: perf's Makefile wrapper
		# runs one Makefile.perf per target, in parallel under -j, and
		# each builds prepare, so two of them could write libperf.a at
		# once (seen: libperf.a's ar failing in one CI run).
		pmake() {
			make -C "$WT/tools/perf" -f Makefile.perf --no-print-directory O="$BP" NO_RUST=1 \
				CC="ccache gcc" HOSTCC="ccache gcc" "${fdump[@]}" "$J" "$@" 2>&1
		}
		if (( !libsymbol )) && out=$(pmake prepare && pmake "$BP/libsymbol/libsymbol.a"); then
			libsymbol=1
		fi
		if (( !libsymbol )) || ! out=$(pmake "${pobjs[@]/%.c/.o}" "${plibs[@]}"); then
			err+=" perf: $(echo "$out" | grep -E 'error|Error|^ar: | truncated' | head -n 3)"
		fi
		built+=("tools/perf: ${pobjs[*]/%.c/.o}${plibs:+ ${plibs[*]#"$BP/"}}")
	fi
	if (( lib )); then
		if ! out=$(make -C "$WT/tools/lib/perf" CC="ccache gcc" "$J" make-tests 2>&1); then
			err+=" libperf: $(echo "$out" | grep -E 'error|Error' | head -n 3)"
		fi
		git -C "$WT" clean -qfdx tools/lib/perf
		built+=("libperf + its tests")
	fi
	for s in "${self[@]}"; do
		if ! out=$(make -C "$WT" O="$BK" headers 2>&1 &&
			make -C "$WT/tools/testing/selftests" O="$BK" TARGETS="$s" 2>&1); then
			err+=" selftests/$s: $(echo "$out" | grep -v HDRINST | tail -n 5)"
		fi
		built+=("selftests/$s")
	done
	[[ -z $cpid ]] || wait "$cpid"
	cpid=
	if [[ -n $err ]]; then
		result fail "bisect: $name builds" "$err"
	else
		result pass "bisect: $name builds" "${built[*]:-nothing to build (documentation)}"
	fi
done
git -C "$WT" checkout -q --detach uevent

# C files of the kernel proper that the series changes
mapfile -t kfiles < <(git -C "$TREE" diff --name-only base..uevent -- '*.c' | grep -v '^tools/')
mapfile -t ktargets < <(kernel_targets "${kfiles[@]}")

step "sparse on ${kfiles[*]} (about a minute)"
sparse_warnings() {	# tree build -> sparse lines, line numbers stripped
	touch "${kfiles[@]/#/$1/}"
	make -C "$1" O="$2" CC="ccache gcc" HOSTCC="ccache gcc" C=1 "$J" "${ktargets[@]}" 2>&1 |
		grep -E ': (warning|error):' | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
}
if command -v sparse >/dev/null; then
	new=$(comm -23 <(sparse_warnings "$WT" "$BK") <(sparse_warnings "$TREE_BASE" "$KBUILD_BASE"))
	if [[ -z $new ]]; then
		result pass "sparse (C=1): no new warnings in ${kfiles[*]}"
	else
		result fail "sparse (C=1): no new warnings in ${kfiles[*]}" "$new"
	fi
else
	result fail "sparse (C=1)" "sparse is not installed"
fi

# x86 selects PERF_EVENTS; User-Mode Linux on this host has no perf
# events at all, so it builds the !CONFIG_PERF_EVENTS side of the series
# (the stubs, the prctl without perf) with the host's gcc
step "the kernel with CONFIG_PERF_EVENTS=n: ARCH=um, 64-bit tinyconfig (3-6 min cold)"
rm -rf "$NP"
mkdir -p "$NP"
umake() { make -C "$WT" ARCH=um O="$NP" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
umake tinyconfig >/dev/null
"$WT/scripts/config" --file "$NP/.config" -e 64BIT
umake olddefconfig >/dev/null
if grep -q '^CONFIG_PERF_EVENTS=y' "$NP/.config"; then
	result fail "build with CONFIG_PERF_EVENTS=n (ARCH=um)" "PERF_EVENTS is set in this config"
elif run_logged "$NP.log" umake "$J" linux; then
	result pass "build with CONFIG_PERF_EVENTS=n (ARCH=um)" "kernel/sys.o and the uapi headers without perf events"
else
	result fail "build with CONFIG_PERF_EVENTS=n (ARCH=um)" "$(grep -m 3 -E 'error|Error' "$NP.log")"
fi

step "tools/perf/check-headers.sh on the base and the patched tree"
headers_diff() { (cd "$1/tools/perf" && ./check-headers.sh 2>&1) | grep -i 'differ' | sort -u || true; }
new=$(comm -23 <(headers_diff "$WT") <(headers_diff "$TREE_BASE"))
if [[ -z $new ]]; then
	result pass "tools/perf/check-headers.sh: no new difference"
else
	result fail "tools/perf/check-headers.sh: no new difference" "$new"
fi

# perf trace names prctl options from a table generated out of its copy
# of prctl.h
nr=$(sed -n 's/^#define PR_TASK_PERF_UEVENT[[:space:]]*\([0-9]*\).*/\1/p' "$WT/include/uapi/linux/prctl.h")
table=$(cd "$WT" && sh tools/perf/trace/beauty/prctl_option.sh)
if [[ -n $nr ]] && grep -qx "[[:space:]]*\[$nr\] = \"TASK_PERF_UEVENT\"," <<<"$table"; then
	result pass "perf trace's prctl table names PR_TASK_PERF_UEVENT ($nr)"
else
	result fail "perf trace's prctl table names PR_TASK_PERF_UEVENT" "not in prctl_option.sh's output"
fi

step "Sphinx on Documentation/userspace-api (1-2 min)"
docs=$BUILD/docs
rst=$(git -C "$TREE" diff --name-only --diff-filter=A base..uevent -- 'Documentation/*.rst')
if run_logged "$docs.log" make -C "$WT" O="$docs" SPHINXDIRS=userspace-api htmldocs; then
	warn=$(grep -E 'WARNING|ERROR' "$docs.log" | grep -F "$(printf '%s\n' "$rst" | sed 's|.*/||')" || true)
	if [[ -z $warn ]]; then
		result pass "htmldocs: $(echo "$rst" | tr '\n' ' ')builds without warnings"
	else
		result fail "htmldocs: $(echo "$rst" | tr '\n' ' ')builds without warnings" "$warn"
	fi
else
	result fail "htmldocs (SPHINXDIRS=userspace-api)" "$(tail -n 3 "$docs.log")"
fi

# with O=, the selftests take the uapi headers from O/usr/include and
# build into O/kselftest, keeping the source tree clean for O= builds
step "make -C tools/testing/selftests TARGETS=perf_events"
sel=$BUILD/selftests-build
rm -rf "$sel"
# the selftests take the uapi headers that 'make headers' installs in O
if out=$(make -C "$WT" O="$sel" headers 2>&1 &&
	make -C "$WT/tools/testing/selftests" O="$sel" TARGETS=perf_events 2>&1); then
	result pass "make -C tools/testing/selftests TARGETS=perf_events" \
		"$(find "$sel/kselftest/perf_events" -maxdepth 1 -type f -executable -name 'uevent_*' | wc -l) uevent programs"
else
	result fail "make -C tools/testing/selftests TARGETS=perf_events" "$(echo "$out" | grep -v HDRINST | tail -n 5)"
fi

# The shape of each series: a kernel series (NN-*kernel*) leaves the perf
# tool alone, a tools series the kernel; a cover letter fits a page
# (Subject: to the shortlog, at most 120 lines)
while IFS= read -r d; do
	sname=$(basename "$d")
	mapfile -t touched < <(grep -h '^diff --git a/' "$d"/[0-9][0-9][0-9][0-9]-*.patch | awk '{print substr($3, 3)}' | sort -u)
	if [[ $sname == *kernel* ]]; then
		wrong=$(printf '%s\n' "${touched[@]}" | grep -E '^tools/(perf|lib|include)/' || true)
		what="a kernel series: no file of tools/perf, tools/lib or tools/include"
	else
		wrong=$(printf '%s\n' "${touched[@]}" | grep -vE '^tools/' | grep -vx 'MAINTAINERS' || true)
		what="a tools series: files under tools/ only"
	fi
	if [[ -z $wrong ]]; then
		result pass "series $sname: $what"
	else
		result fail "series $sname: $what" "$(echo "$wrong" | head -n 3)"
	fi
	lines=$(awk '/^Subject:/ { on = 1 } on { n++ } on && /^[^ ].* \([0-9]+\):$/ { print n; exit }' "$d/0000-cover-letter.patch")
	if [[ -n $lines ]] && (( lines <= 120 )); then
		result pass "series $sname: cover letter of $lines lines (at most 120)"
	else
		result fail "series $sname: cover letter of at most 120 lines" "${lines:-no shortlog found} lines"
	fi
done < <(series_dirs)

step "make series, then git am of its output onto the pristine base"
ser=$BUILD/series-check
am=$BUILD/series-am
if ! out=$(SENDER='Series Check <series-check@example.org>' "$TOP/scripts/series.sh" --to "$ser" 2>&1); then
	result fail "make series: the mailable set applies to the base" "$out"
else
	rm -rf "$am"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$am" base
	# the kernel's series (series.sh also writes those of other bases)
	if out=$(series_patches "$ser" |
		xargs git -C "$am" -c user.name=am -c user.email=am@example.org am -q 2>&1) &&
		# the same tree as the series (its files sit in the perf entry
		# of MAINTAINERS, so no line names the sender)
		[[ -z $(git -C "$am" diff uevent HEAD) ]] &&
		[[ $(git -C "$am" log --format='%an <%ae>' base..HEAD | sort -u) == 'Series Check <series-check@example.org>' ]]; then
		result pass "make series: the mailable set applies to the base" \
			"$(series_dirs "$ser" | xargs -I{} find {} -name '*.patch' | wc -l) files, the series' tree with the sender as author"
	else
		result fail "make series: the mailable set applies to the base" "${out:-tree or authors differ}"
	fi
	git -C "$TREE" worktree remove --force "$am"
fi
