# shellcheck shell=bash
# Common paths and helpers for the lab scripts; sourced, never run.
# shellcheck disable=SC2034 # the paths are used by the scripts that source this

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}		# base commit + the series, branch "uevent"
# patches/ holds one directory per postable series, NN-topic, applied in
# directory order; in the tree, branch s/NN-topic marks each series' last
# commit, and series/NN-topic/ holds its cover letter and recipients.
KBUILD=${KBUILD:-$BUILD/kbuild}		# patched kernel build (O=)
# The base tree and its build sit in a directory of their own, laid out
# like the patched pair (tree ../linux from the build directory): ccache
# then sees the same relative paths and compiler lines in both builds,
# and every object the series does not change comes out of the cache.
TREE_BASE=$BUILD/base/linux	# worktree of the base commit alone
KBUILD_BASE=$BUILD/base/kbuild	# unpatched kernel build (O=)
PERF_OUT=${PERF_OUT:-$BUILD/perf}		# perf build (O=)
PROG=${PROG:-$(basename "$0")}

# Debian's tools first: the kernel's scripts (checkpatch's SPDX check,
# kernel-doc) need the python3 modules installed from Debian packages.
export PATH=/usr/bin:/bin:$PATH

# What outlives a clone: ccache, the base source and the downloaded
# packages live in a per-user cache, so a second clone on the same machine
# (CI right after a session) builds warm. Every user of it is correct with
# the cache cold, deleted, or shared by two trees (writers take a lock).
CACHE=${PERF_UEVENT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/perf-uevent}
mkdir -p "$CACHE"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# paths under the clone hash as relative ones, and the working directory
# of a -g build (perf) is left out of the hash: another clone hits the
# same entries (its debug info names the first clone's directory)
export CCACHE_BASEDIR=$TOP
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# A step that takes a while: say what and how long it usually takes.
step() { printf '%s: ==> %s\n' "$PROG" "$*" >&2; }

# Run a long command, keeping its output in a log and showing a line of
# progress every 20 s; on failure print the log's tail.
run_logged() {
	local logfile=$1
	shift
	local start=$SECONDS pid rc
	mkdir -p "$(dirname "$logfile")"
	"$@" >"$logfile" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		if (( (SECONDS - start) % 20 < 2 && SECONDS > start + 1 )); then
			log "  ... $((SECONDS - start)) s: $(tail -n 1 "$logfile" | cut -c1-100)"
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if (( rc != 0 )); then
		log "failed after $((SECONDS - start)) s; last lines of $logfile:"
		tail -n 30 "$logfile" >&2
		return "$rc"
	fi
	log "  done in $((SECONDS - start)) s"
}

jobs_n() { nproc 2>/dev/null || echo 2; }

# A series applies to the kernel unless its name says another base:
# NN-man-pages-* to the man-pages project (scripts/man-pages.sh),
# NN-libtraceevent-* to libtraceevent. The kernel's scripts never see
# them; SERIES_BASE=man-pages makes the same scripts (export.sh,
# series.sh) work on that base's series and tree (TREE=) instead.
OTHER_BASES=(man-pages libtraceevent)
SERIES_BASE=${SERIES_BASE:-linux}

series_base() {	# series directory or name -> linux, man-pages, ...
	local n=${1##*/} b
	n=${n#[0-9][0-9]-}
	for b in "${OTHER_BASES[@]}"; do
		[[ $n == "$b"-* ]] && { echo "$b"; return; }
	done
	echo linux
}

# The series directories of patches/ (or of $1) that apply to
# $SERIES_BASE (the kernel unless set), in order, one per line
series_dirs() {
	local d
	find "${1:-$TOP/patches}" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]-*' | sort |
		while IFS= read -r d; do
			[[ $(series_base "$d") != "$SERIES_BASE" ]] || echo "$d"
		done
}

# The patches of one series directory, its cover letter left out, in order
series_dir_patches() {
	find "$1" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort
}

# Every patch of every series, cover letters left out, in order
series_patches() {
	local d
	while IFS= read -r d; do
		series_dir_patches "$d"
	done < <(series_dirs "$@")
}

# The series branches of the tree (s/NN-topic), in order
series_refs() {
	git -C "$TREE" for-each-ref --format='%(refname:short)' 'refs/heads/s/' | sort
}

# What the base is, from its commit: "linux-source-7.3 7.3.4-1~bpo13+1"
base_version() {
	git -C "$TREE" log -1 --format=%s base | sed 's/^Base: //'
}

# Configure kernel build OUT from tree SRC: tinyconfig, the fragments
# merged on top, olddefconfig; then check that every setting of the
# fragments stuck. Returns 1 (after saying which) when one did not.
kconfig_from_fragments() {	# src out fragment...
	local src=$1 out=$2 line opt val bad=0
	shift 2
	make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -s tinyconfig >/dev/null || return 1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" >/dev/null || return 1
	make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -s olddefconfig >/dev/null || return 1
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]] || continue
		opt=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if [[ $val == n ]]; then
			if grep -q "^$opt=" "$out/.config"; then log "config: $opt should be off"; bad=1; fi
		elif ! grep -qx "$opt=$val" "$out/.config"; then
			log "config: $opt=$val did not stick"
			bad=1
		fi
	done < <(cat "$@")
	return "$bad"
}

# Make targets for kernel C files of the series (paths from the tree top):
# an object per file, but a vDSO source, which the vDSO's own objects
# #include, is built with the whole x86 vDSO directory.
kernel_targets() {	# file.c... -> targets, one per line
	local f
	for f in "$@"; do
		case $f in
		lib/vdso/*.c | arch/x86/entry/vdso/*) echo arch/x86/entry/vdso/ ;;
		*) echo "${f%.c}.o" ;;
		esac
	done | sort -u
}

# A test suite of the kernel's or perf's own, run in both guests and
# compared: each guest writes OUT/results.tsv ("case<TAB>result") and
# OUT/done when it got to the end. Boots the kernels named (both when
# none) with "SCRIPT --guest RESULTS/KERNEL", then requires a finished run
# of both, one of them possibly kept from an earlier call.
suite_in_guests() {	# what results-dir script [patched|base ...]
	local what=$1 r=$2 script=$3 k
	shift 3
	local kernels=("$@")
	(( $# )) || kernels=(patched base)
	for k in "${kernels[@]}"; do
		[[ $k == patched || $k == base ]] || die "usage: $script [patched|base ...]"
		step "$what in the $k kernel"
		VM_VERBOSE=1 "$TOP/scripts/vm.sh" "$k" -- "$script" --guest "$r/$k" >"$r.$k.log" 2>&1 ||
			log "the $k guest ended with an error: see $r.$k.log"
	done
	for k in patched base; do
		[[ -f $r/$k/done ]] || die "no complete $what run on the $k kernel: run $script $k"
	done
}

# The comparison of suite_in_guests' runs: each case that gives @pass on
# the base kernel and not on the patched one is logged; prints the counts
# and fails when there is such a case.
suite_regressions() {	# results-dir pass-result
	local r=$1 pass=$2 k bad
	bad=$(awk -F'\t' -v ok="$pass" 'NR == FNR { p[$1] = $2; next }
		$2 == ok && !($1 in p) { print $1 ": base " ok ", patched missing"; next }
		$2 == ok && p[$1] != ok { print $1 ": base " ok ", patched " p[$1] }' \
		"$r/patched/results.tsv" "$r/base/results.tsv")
	[[ -z $bad ]] || while IFS= read -r k; do log "regression: $k"; done <<<"$bad"
	for k in patched base; do
		log "$k: $(cut -f2 "$r/$k/results.tsv" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')"
	done
	echo "$(awk -F'\t' -v ok="$pass" '$2 == ok' "$r/base/results.tsv" | wc -l) cases pass on the base kernel;" \
		"$(grep -c . <<<"$bad") of them do not on the patched one"
	[[ -z $bad ]]
}
