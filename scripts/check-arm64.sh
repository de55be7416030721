#!/usr/bin/env bash
# make check-arm64: the series on arm64 with 64K pages, where PAGE_SIZE is
# 16 times x86's. Cross-built with Debian's aarch64 toolchain and ccache,
# booted under qemu-system-aarch64 with an initramfs of static test
# programs (no virtme-ng: the host's files are x86).
#
# Usage: check-arm64.sh           patched + base kernels, boot both, verdict
#        check-arm64.sh --tsv     the same, results as TSV lines on stdout
#                                 (pass|fail|skip <TAB> name <TAB> why) for
#                                 make check, no verdict
#        check-arm64.sh --gate    cross-build kernel/events/ of the patched
#                                 tree only; one TSV line on stdout
#        check-arm64.sh v5        the v5 series (build/linux-v5, a worktree
#                                 of tag v5) with the same initramfs: shows
#                                 how it failed there
#
#   build/kbuild-arm64{,-v5}, build/base/kbuild-arm64
#                                   kernels: arm64 tinyconfig + configs/arm64.config
#   build/arm64/                    headers, static tests, init, initrd.gz
#   build/results/arm64-*.log       guest console logs
#   build/results/arm64/{patched,base}/  per program .tap/.rc, as guest-tests.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=full tsv=0
case ${1:-} in
"") ;;
--tsv) tsv=1 ;;
--gate) mode=gate ;;
v5) mode=v5 ;;
*) die "usage: $0 [--tsv|--gate|v5]" ;;
esac

S=$TOP/scripts
A=$BUILD/arm64
R=$BUILD/results
RA=$R/arm64
FRAG=$TOP/configs/arm64.config
TREE_V5=$BUILD/linux-v5
CROSS=aarch64-linux-gnu-
# the series' selftests: the uevent_* programs of perf_events
SUITE=perf_events
LIMIT=$(sed -n 's/^timeout=//p' "$TREE/tools/testing/selftests/$SUITE/settings" 2>/dev/null)
LIMIT=${LIMIT:-120}
mkdir -p "$A" "$RA"

"$S/deps.sh" arm64 kernel selftests
[[ -f $TREE/Makefile ]] || die "no tree at $TREE: run 'make tree'"

# results of this run, host.tsv style; the TSV lines go to stdout (--tsv,
# --gate) or through evaluate.py (the verdict)
host=$RA/host.tsv
: >"$host"
result() {	# status name [why]
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$host"
}

kmake() {	# src out make-args...
	local src=$1 out=$2
	shift 2
	make -C "$src" O="$out" ARCH=arm64 CROSS_COMPILE="$CROSS" \
		CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc" -j2 "$@"
}

# kconfig_from_fragments of lib.sh, for the cross compiler: tinyconfig,
# the fragment, olddefconfig, and every setting of the fragment checked.
configure() {	# src out
	local src=$1 out=$2 line opt val bad=0
	mkdir -p "$out"
	if [[ -f $out/.config && -f $out/.config.frag ]] && cmp -s "$FRAG" "$out/.config.frag"; then
		return 0
	fi
	log "configuring $out: arm64 tinyconfig + configs/arm64.config"
	kmake "$src" "$out" -s tinyconfig >/dev/null || return 1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$FRAG" >/dev/null || return 1
	kmake "$src" "$out" -s olddefconfig >/dev/null || return 1
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]] || continue
		opt=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if ! grep -qx "$opt=$val" "$out/.config"; then
			log "config: $opt=$val did not stick"
			bad=1
		fi
	done <"$FRAG"
	(( bad == 0 )) || return 1
	cp "$FRAG" "$out/.config.frag"
}

build_kernel() {	# name src out
	local name=$1 src=$2 out=$3
	[[ -f $src/Makefile ]] || { result fail "$name kernel builds" "no tree at $src"; return 1; }
	configure "$src" "$out" || { result fail "$name kernel builds" "configs/arm64.config does not apply"; return 1; }
	step "cross-building the $name arm64 kernel (about 7 min cold on 2 cores, under a minute with a warm ccache)"
	if run_logged "$out.log" kmake "$src" "$out" Image; then
		result pass "$name kernel builds"
	else
		result fail "$name kernel builds" "$(grep -m 2 -E 'error|Error' "$out.log" | tr '\n\t' '  ')"
		return 1
	fi
}

# The cheap gate: only kernel/events/ (the series' core), after prepare.
gate() {
	local out=$BUILD/kbuild-arm64 name="kernel/events/ cross-builds for arm64 with 64K pages"
	if ! configure "$TREE" "$out"; then
		printf 'fail\t%s\t%s\n' "$name" "configs/arm64.config does not apply"
		return 1
	fi
	step "cross-building kernel/events/ for arm64 64K (about 2 min cold, seconds warm)"
	if run_logged "$out-gate.log" kmake "$TREE" "$out" kernel/events/; then
		if grep -q 'warning:' "$out-gate.log"; then
			printf 'fail\t%s\t%s\n' "$name" "$(grep -m 2 'warning:' "$out-gate.log" | tr '\n\t' '  ')"
			return 1
		fi
		printf 'pass\t%s\n' "$name"
	else
		printf 'fail\t%s\t%s\n' "$name" "$(grep -m 2 -E 'error|Error' "$out-gate.log" | tr '\n\t' '  ')"
		return 1
	fi
}

# Static user space against the patched tree's uapi headers, in a newc
# cpio: /init and /tests/<suite>/<program>.
build_initrd() {
	local hdr=$A/headers root=$A/root c
	step "installing arm64 uapi headers and building the static tests (a minute)"
	run_logged "$A/headers.log" make -C "$TREE" O="$BUILD/kbuild-arm64" ARCH=arm64 \
		INSTALL_HDR_PATH="$hdr" headers_install || return 1
	rm -rf "$root"
	mkdir -p "$A/selftests" "$root/tests/$SUITE" "$root/tests/examples" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
	"${CROSS}gcc" -static -O2 -Wall -Wextra -Werror -o "$root/init" "$S/arm64-init.c" || return 1
	"${CROSS}gcc" -static -O2 -Wall -Wextra -Werror -isystem "$hdr/include" \
		-o "$root/tests/examples/uevent-demo" "$TOP/examples/uevent-demo.c" || return 1
	# the suite's own Makefile, as build-tests.sh, with the cross
	# compiler, asked for the uevent_* programs only
	rm -rf "$A/selftests"
	mkdir -p "$A/selftests"
	progs=()
	for c in "$TREE/tools/testing/selftests/$SUITE"/uevent_*.c; do
		progs+=("$A/selftests/$(basename "$c" .c)")
	done
	(( ${#progs[@]} )) || { log "no uevent_*.c in selftests/$SUITE"; return 1; }
	run_logged "$A/selftests.log" make -C "$TREE/tools/testing/selftests/$SUITE" \
		CROSS_COMPILE="$CROSS" CC="${CROSS}gcc" OUTPUT="$A/selftests" LDFLAGS="-static -lpthread" \
		KHDR_INCLUDES="-isystem $hdr/include" -j2 "${progs[@]}" || return 1
	cp "${progs[@]}" "$root/tests/$SUITE/"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$A/initrd.gz"
	log "initramfs: $A/initrd.gz ($(du -k "$A/initrd.gz" | cut -f1) KiB)"
}

# Boot KERNEL with the initramfs; the console goes to LOG.
boot() {	# name out log
	local name=$1 out=$2 logf=$3 start=$SECONDS rc=0
	step "booting the $name arm64 kernel and running the tests (a minute or two under TCG)"
	timeout -k 10 $((LIMIT * $(find "$A/root/tests" -type f | wc -l) + 120)) qemu-system-aarch64 -M virt -cpu max -smp 2 -m 1G \
		-nographic -no-reboot -kernel "$out/arch/arm64/boot/Image" -initrd "$A/initrd.gz" \
		-append "console=ttyAMA0 panic=-1 TEST_TIMEOUT=$LIMIT" </dev/null 2>&1 |
		tr -d '\r' | tee "$logf" | sed 's/^/  | /' >&2 || rc=$?
	log "$name: qemu exit $rc after $((SECONDS - start)) s, log in $logf"
}

# Split a console log into RESULTS/<suite>/<program>.tap and .rc, and
# RESULTS/done when the guest got to the end, as guest-tests.sh leaves them.
split_log() {	# log results
	rm -rf "$2"
	mkdir -p "$2"
	awk -v dir="$2" '
		/^arm64-init: begin / { cur = $3; n = split(cur, p, "/"); system("mkdir -p \"" dir "/" p[1] "\"")
			out = dir "/" cur ".tap"; printf "" >out; next }
		/^arm64-init: end / && cur != "" { close(out); print $5 >(dir "/" cur ".rc"); close(dir "/" cur ".rc"); cur = ""; next }
		/^arm64-init: done/ { printf "" >(dir "/done") }
		cur != "" { print >out }
	' "$1"
}

# What the kernel must not say, whatever the tests concluded.
check_log() {	# name log
	local bad
	if grep -q '^arm64-init: page size 65536$' "$2"; then
		result pass "$1 kernel runs with 64K pages"
	else
		result fail "$1 kernel runs with 64K pages" "$(grep -m 1 'page size' "$2" || echo 'no page size line')"
	fi
	if bad=$(grep -m 3 -E 'WARNING:|BUG:|Oops' "$2"); then
		result fail "$1 kernel log has no WARNING, BUG or Oops" "$(tr '\n\t' '  ' <<<"$bad")"
	else
		result pass "$1 kernel log has no WARNING, BUG or Oops"
	fi
}

case $mode in
gate)
	gate
	exit
	;;
v5)
	[[ -f $TREE_V5/Makefile ]] ||
		die "no v5 tree at $TREE_V5: git -C $TREE worktree add $TREE_V5 v5"
	build_kernel v5 "$TREE_V5" "$BUILD/kbuild-arm64-v5" || die "the v5 kernel did not build"
	[[ -f $A/initrd.gz ]] || build_initrd || die "the tests did not build"
	boot v5 "$BUILD/kbuild-arm64-v5" "$R/arm64-v5.log"
	split_log "$R/arm64-v5.log" "$RA/v5"
	log "what v5 did on arm64 with 64K pages:"
	# each distinct line once, with how often it came (pids made alike)
	grep -E '^arm64-init: (page size|end)|^# Totals|^[a-z_-]+: perf_event_open|illegal size|WARNING:' \
		"$R/arm64-v5.log" | sed -E 's|/[0-9]+$|/PID|' |
		awk '!n[$0]++ { o[++k] = $0 } END { for (i = 1; i <= k; i++) printf "  %4dx  %s\n", n[o[i]], o[i] }' >&2
	exit 0
	;;
esac

start=$SECONDS
ok=1
build_kernel patched "$TREE" "$BUILD/kbuild-arm64" || ok=0
build_kernel base "$TREE_BASE" "$BUILD/base/kbuild-arm64" || ok=0
if build_initrd; then
	result pass "static tests and initramfs build"
else
	result fail "static tests and initramfs build" "see $A/*.log"
	ok=0
fi
for k in patched base; do
	out=$BUILD/kbuild-arm64
	[[ $k == base ]] && out=$BUILD/base/kbuild-arm64
	rm -rf "${RA:?}/$k"
	if (( ok )); then
		boot "$k" "$out" "$R/arm64-$k.log"
		split_log "$R/arm64-$k.log" "$RA/$k"
		check_log "$k" "$R/arm64-$k.log"
	fi
done
log "check-arm64 took $((SECONDS - start)) s"

if (( tsv )); then
	python3 "$S/evaluate.py" --tsv "arm64 64K: " "$RA/patched" "$RA/base" "$host"
else
	python3 "$S/evaluate.py" "$RA/patched" "$RA/base" "$host"
fi
