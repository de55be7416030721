#!/usr/bin/env bash
# Runs inside the debug guest (see check-debug-kernel.sh): the uevent
# selftests (perf_events/uevent_*) once plainly and once with failures
# injected into their slab allocations and user copies, keeping the
# kernel log around each step.
# The tests are static builds that mark themselves for failure injection
# once started (fuzz/kernel/inject-after-start.c), run from the guest's
# /tmp with their output there while failures are injected: a failure
# injected into a 9p read or write can leave the host's file system
# unusable in the guest.
# Writes to RESULTS: dmesg-boot.txt, <test>.tap/.rc, <test>-fail.tap/.rc,
# dmesg-tests.txt (what the tests added to the log), lockdep.txt, times.
# Usage: guest-debug.sh RESULTS TESTS_DIR
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

results=$1
rm -rf "$results"
mkdir -p "$results"
log "guest kernel $(uname -r), $(nproc) CPUs"
dmesg >"$results/dmesg-boot.txt"
dmesg -C

tests=/tmp/uevent-tests
mkdir -p "$tests" /tmp/uevent-inject
cp "$2"/* "$tests/"
dbg=/sys/kernel/debug
mountpoint -q "$dbg" || mount -t debugfs none "$dbg"

run_one() {	# dir name limit cmd...
	local dir=$1 name=$2 limit=$3 rc start=$SECONDS
	shift 3
	timeout -k 5 "$limit" "$@" >"$dir/$name.tap" 2>&1
	rc=$?
	echo "$rc" >"$dir/$name.rc"
	echo "$name $((SECONDS - start))" >>"$dir/times"
}

for t in $(find "$tests" -maxdepth 1 -type f -executable -printf '%f\n' | sort); do
	run_one "$results" "$t" 1200 "$tests/$t"
	log "$t: exit $(cat "$results/$t.rc")"
done

# Failure injection: 10% of the slab allocations and user copies of the
# test processes fail (only theirs: task-filter and make-it-fail), quietly
# (verbose 0, so that the log holds only real reports). The tests may fail
# then; what is judged is the kernel log.
inject() {	# value for probability
	local f
	for f in failslab fail_usercopy; do
		[[ -d $dbg/$f ]] || continue
		# the filter first and the probability last: this shell is
		# not to be failed meanwhile
		echo Y >"$dbg/$f/task-filter"
		echo 0 >"$dbg/$f/verbose"
		echo -1 >"$dbg/$f/times"
		echo "$1" >"$dbg/$f/probability"
	done
	if [[ -e $dbg/failslab/ignore-gfp-wait ]]; then
		echo N >"$dbg/failslab/ignore-gfp-wait"
	fi
}
if [[ -d $dbg/failslab && -d $dbg/fail_usercopy ]]; then
	inject 10
	for t in $(find "$tests" -maxdepth 1 -type f -executable -printf '%f\n' | sort); do
		UEVENT_INJECT=1 run_one /tmp/uevent-inject "$t-fail" 1200 "$tests/$t"
	done
	inject 0
	cat /tmp/uevent-inject/times >>"$results/times"
	rm /tmp/uevent-inject/times
	cp /tmp/uevent-inject/* "$results/"
	for f in "$results"/*-fail.rc; do
		log "$(basename "$f" .rc) (10% injected failures): exit $(cat "$f")"
	done
else
	log "no failslab/fail_usercopy in debugfs: failure injection left out"
fi

dmesg >"$results/dmesg-tests.txt"
cat /proc/lockdep_stats >"$results/lockdep.txt" 2>/dev/null || true
touch "$results/done"
