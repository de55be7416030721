#!/usr/bin/env bash
# Runs inside the guest (see vm.sh): every kselftest binary built under
# build/selftests/ (perf_events: the series' uevent_* and the kernel's
# own), trace-cmd recording uevents, then the uevent-demo example, each
# with its TAP output saved to RESULTS/<suite>/<name>.tap and its exit
# status to .rc.
# Usage: guest-tests.sh RESULTS
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

results=$1
rm -rf "$results"
mkdir -p "$results"
log "guest kernel $(uname -r), $(nproc) CPUs, uid $(id -u)"

run_one() {	# suite name timeout cmd...
	local suite=$1 name=$2 limit=$3 rc start=$SECONDS
	shift 3
	mkdir -p "$results/$suite"
	timeout -k 5 "$limit" "$@" >"$results/$suite/$name.tap" 2>&1
	rc=$?
	echo "$rc" >"$results/$suite/$name.rc"
	log "$suite/$name: exit $rc in $((SECONDS - start)) s"
	sed 's/^/    /' "$results/$suite/$name.tap" |
		grep -E '^    (not )?ok |^    # (FAIL|SKIP)|Bail|: (Ok|FAILED!|Skip)' >&2 || true
}

for dir in "$BUILD"/selftests/*/; do
	suite=$(basename "$dir")
	limit=$(sed -n 's/^timeout=//p' "$TREE/tools/testing/selftests/$suite/settings" 2>/dev/null)
	for t in $(find "$dir" -maxdepth 1 -type f -executable -printf '%f\n' | sort); do
		run_one "$suite" "$t" "${limit:-120}" "$dir/$t"
	done
done

# a real tracer: trace-cmd records the perf:perf_uevent trace event
run_one trace-cmd uevent 300 "$TOP/tests/trace-cmd-uevent.sh"

# perf test cases from tests/perf-tests.txt, when perf was built; shell
# tests are found relative to the working directory.
if [[ -x $PERF_OUT/perf ]]; then
	mkdir -p "$results/perf-test"
	n=0
	while IFS=$'\t' read -r kind name; do
		[[ $kind == own || $kind == guard ]] || continue
		n=$((n + 1))
		echo "$kind" >"$results/perf-test/$n.kind"
		(cd "$TREE/tools/perf" && run_one perf-test "$n" 600 "$PERF_OUT/perf" test -v "$name")
	done <"$TOP/tests/perf-tests.txt"
fi

# the benchmark's smoke run: every row a few times, each record checked;
# figures are not judged here (make bench reports them)
run_one bench smoke 900 "$TOP/scripts/guest-bench.sh" --smoke "$results/bench-smoke"

# uevent-demo checks what it reads back (exit 0 pass, 1 fail, 4 skip)
run_one examples uevent-demo 60 "$BUILD/examples/uevent-demo"

# libperf's test of <perf/uevent.h> (0 pass, 1 fail, 4 skip: the header
# fell back on a kernel without uevents), when build-tests.sh built it
[[ ! -x $BUILD/examples/libperf-uevent ]] ||
	run_one examples libperf-uevent 120 "$BUILD/examples/libperf-uevent"

touch "$results/done"
