#!/usr/bin/env bash
# perf's own 'perf test' (every top-level case, the series' perf) in one
# boot of the patched and one of the unpatched kernel, then a comparison:
# a case that passes on the base kernel must not fail on the patched one.
# A case that fails is run once more in the same guest and counts as
# failed only if it fails again (several of perf's shell tests are timing
# sensitive under TCG). Not part of make check (most of an hour per kernel
# under TCG); run as 'make check-perftest'. Results in
# build/results/perf-test-all/{patched,base}/: N.txt (the output of
# 'perf test -v N'), N.rc, and results.tsv ("N: description", result).
# Inside the guest (--guest OUT): run the cases, the outputs in OUT.
# PERFTEST_LIMIT: seconds one case may take (default 600).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

limit=${PERFTEST_LIMIT:-600}

# "Ok", "FAILED!", "Skip" of the case's own line(s); a case with subtests
# passes when none fails and one passes
verdict() {	# output rc
	local f=$1 rc=$2
	if ((rc == 124 || rc == 137)); then
		echo Timeout
	elif grep -qE ': FAILED!' "$f"; then
		echo FAILED
	elif grep -qE ': Ok' "$f"; then
		echo Ok
	elif grep -qE ': Skip' "$f"; then
		echo Skip
	else
		echo "Unknown(rc=$rc)"
	fi
}

if [[ ${1:-} == --guest ]]; then
	out=$2
	rm -rf "$out"
	mkdir -p "$out"
	log "guest kernel $(uname -r), $(nproc) CPUs"
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	# debugfs only where the guest config has it
	[[ ! -d /sys/kernel/debug ]] || mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug || true
	# shell tests are found relative to the working directory
	cd "$TREE/tools/perf"
	"$PERF_OUT/perf" test list >"$out/list.txt" 2>&1 || die "perf test list failed"
	: >"$out/results.tsv"
	while IFS=$'\t' read -r n desc; do
		start=$SECONDS
		for try in 1 2; do
			rc=0
			timeout -k 10 "$limit" "$PERF_OUT/perf" test -v "$n" \
				>"$out/$n.txt" 2>&1 </dev/null || rc=$?
			v=$(verdict "$out/$n.txt" "$rc")
			[[ $v == Ok || $v == Skip ]] && break
			cp "$out/$n.txt" "$out/$n.try$try.txt"
		done
		echo "$rc" >"$out/$n.rc"
		printf '%s: %s\t%s\n' "$n" "$desc" "$v" >>"$out/results.tsv"
		log "$n: $desc: $v in $((SECONDS - start)) s"
	done < <(sed -n 's/^ *\([0-9][0-9]*\): \(.*\)$/\1\t\2/p' "$out/list.txt")
	touch "$out/done"
	exit 0
fi

[[ -x $PERF_OUT/perf ]] || die "no perf at $PERF_OUT/perf: run scripts/build-perf.sh"
# Usage: check-perf-test.sh [patched|base ...]: the kernels to run (both by
# default); the comparison uses the results kept from an earlier run for
# the other one (both guests run the same perf, so the case numbers agree)
suite_in_guests "perf test" "$BUILD/results/perf-test-all" "$TOP/scripts/check-perf-test.sh" "$@"
suite_regressions "$BUILD/results/perf-test-all" Ok
