#!/usr/bin/env bash
# make check-debug-kernel: the uevent selftests (perf_events/uevent_*) on
# a debug build of the patched kernel (configs/debug.config: KASAN,
# lockdep, atomic-sleep checks, UBSAN, slab and user-copy failure
# injection), with the kernel log judged. Prints one TSV line per check
# on stdout:
#   pass|fail <TAB> name <TAB> reason
# and exits 1 when a check fails. Slow under TCG: the build 15-25 min
# cold on 2 cores, the boot and the tests several minutes.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# absolute: make -C changes directory
KBUILD_DEBUG=$(realpath -m "${KBUILD_DEBUG:-$BUILD/kbuild-debug}")
R=$(realpath -m "${DEBUG_RESULTS:-$BUILD/results/debug}")

TESTS=$(realpath -m "${DEBUG_TESTS:-$BUILD/debug-tests}")

"$TOP/scripts/deps.sh" kernel vm selftests
[[ -f $TREE/Makefile ]] || die "no tree at $TREE: run 'make tree'"
[[ -f $BUILD/headers/include/linux/perf_event.h ]] || "$TOP/scripts/build-tests.sh"
mkdir -p "$KBUILD_DEBUG" "$R" "$TESTS"

# The series' selftests, static and able to mark themselves for failure
# injection (fail_usercopy drives the prctl's fault path)
st=$TREE/tools/testing/selftests
rm -f "$TESTS"/*
for src in "$st"/perf_events/uevent_*.c; do
	[[ -f $src ]] || die "no uevent selftests in $st/perf_events"
	t=$(basename "$src" .c)
	gcc -static -Wall -O2 -isystem "$BUILD/headers/include" -I"$st" -I"$st/perf_events" \
		-o "$TESTS/$t" "$src" "$TOP/fuzz/kernel/inject-after-start.c" -lpthread ||
		die "cannot build $t"
done

frags=("$TOP/configs/guest.config" "$TOP/configs/debug.config")
kmake() { make -C "$TREE" O="$KBUILD_DEBUG" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(jobs_n)" "$@"; }
if [[ ! -f $KBUILD_DEBUG/.config.frag ]] || ! cat "${frags[@]}" | cmp -s - "$KBUILD_DEBUG/.config.frag"; then
	log "configuring the debug kernel: tinyconfig + guest.config + debug.config"
	kconfig_from_fragments "$TREE" "$KBUILD_DEBUG" "${frags[@]}" ||
		die "the debug config fragments do not apply cleanly"
	cat "${frags[@]}" >"$KBUILD_DEBUG/.config.frag"
fi
step "building the debug kernel (about 15-25 min cold on 2 cores)"
start=$SECONDS
run_logged "$KBUILD_DEBUG.log" kmake bzImage
build_s=$((SECONDS - start))

step "booting the debug kernel and running the uevent selftests (slow under TCG: 5-15 min)"
start=$SECONDS
KBUILD=$KBUILD_DEBUG VM_MEM=${VM_MEM:-3G} "$TOP/scripts/vm.sh" patched -- \
	"$TOP/scripts/guest-debug.sh" "$R" "$TESTS" 2>&1 | sed 's/^/  | /' >&2 || true
vm_s=$((SECONDS - start))
log "build $build_s s, boot and tests $vm_s s"

nfail=0
result() {	# status name [reason]
	[[ $1 == pass ]] || nfail=$((nfail + 1))
	printf '%s\t%s' "$1" "$2"
	(( $# > 2 )) && printf '\t%s' "$3"
	printf '\n'
}

if [[ ! -f $R/done ]]; then
	result fail "debug kernel: the guest finished" "no $R/done: see the log above"
	exit 1
fi

# The checkers were on, else a clean log proves nothing
for want in "KernelAddressSanitizer initialized" "Lock dependency validator"; do
	if grep -q "$want" "$R/dmesg-boot.txt"; then
		result pass "debug kernel: boot log has '$want'"
	else
		result fail "debug kernel: boot log has '$want'" "checker not active"
	fi
done

splat='BUG:|WARNING:|UBSAN:|KASAN:|Oops|general protection|possible (circular|recursive) locking|inconsistent lock state|sleeping function called from invalid context|INFO: task .* blocked|soft lockup|rcu_sched self-detected|Kernel panic'
if hits=$(grep -E "$splat" "$R/dmesg-boot.txt"); then
	result fail "debug kernel: boot log clean" "$(echo "$hits" | head -n 2 | tr '\n\t' '  ')"
else
	result pass "debug kernel: boot log clean"
fi
if hits=$(grep -E "$splat" "$R/dmesg-tests.txt"); then
	result fail "debug kernel: no report while the tests ran" \
		"$(echo "$hits" | head -n 2 | tr '\n\t' '  ') (full log: $R/dmesg-tests.txt)"
else
	result pass "debug kernel: no report while the tests ran" \
		"$(wc -l <"$R/dmesg-tests.txt") log lines"
fi
if grep -qE '^ *debug_locks: *1' "$R/lockdep.txt"; then
	result pass "debug kernel: lockdep still on after the tests"
else
	result fail "debug kernel: lockdep still on after the tests" \
		"$(grep debug_locks "$R/lockdep.txt" || echo 'no /proc/lockdep_stats')"
fi

# The selftests themselves, run plainly: pass, or skip (4)
for rcf in "$R"/*.rc; do
	name=$(basename "$rcf" .rc)
	[[ $name == *-fail ]] && continue
	rc=$(cat "$rcf")
	secs=$(awk -v n="$name" '$1 == n { print $2 }' "$R/times")
	if [[ $rc == 0 || $rc == 4 ]]; then
		result pass "debug kernel: selftest perf_events/$name" "exit $rc in $secs s"
	else
		result fail "debug kernel: selftest perf_events/$name" \
			"exit $rc in $secs s: $(grep -m 2 -E '^not ok|# FAIL' "$R/$name.tap" | tr '\n\t' '  ')"
	fi
done
# Failure injection on: every run with failures injected went through all
# its tests (a harness dying at the start would prove nothing), and some
# tests saw the failures (else the injection was not active)
n_inj=0 n_hit=0
for rcf in "$R"/*-fail.rc; do
	[[ -f $rcf ]] || continue
	name=$(basename "$rcf" .rc)
	tap=$R/$name.tap
	n_inj=$((n_inj + 1))
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | head -n 1)
	ran=$(grep -cE '^(not )?ok [0-9]+ ' "$tap" || true)
	bad=$(grep -cE '^not ok [0-9]+ ' "$tap" || true)
	(( bad > 0 )) && n_hit=$((n_hit + 1))
	if [[ -n $plan ]] && (( plan > 0 && ran == plan )); then
		result pass "debug kernel: $name went through its tests with failures injected" \
			"$ran of $plan reported, $bad failed, exit $(cat "$rcf")"
	else
		result fail "debug kernel: $name went through its tests with failures injected" \
			"${ran} of ${plan:-?} reported, exit $(cat "$rcf")"
	fi
done
name="debug kernel: selftests with 10% of slab allocations and user copies failing"
if (( n_inj > 0 && n_hit > 0 )); then
	result pass "$name" "$n_hit of $n_inj runs saw tests fail (the kernel log is judged above)"
else
	result fail "$name" "$n_hit of $n_inj runs saw tests fail: injection not active?"
fi

(( nfail == 0 ))
