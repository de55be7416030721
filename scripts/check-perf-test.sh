#!/usr/bin/env bash
# perf's own 'perf test' (every top-level case, the series' perf) in one
# boot of the patched and one of the unpatched kernel, then a comparison:
# a case that passes on the base kernel must not fail on the patched one.
# A case that fails is run once more in the same guest and counts as
# failed only if it fails again (several of perf's shell tests are timing
# sensitive under TCG). Not part of make check (most of an hour per kernel
# under TCG); run as 'make check-perftest'. Results in
# build/results/perf-test-all/{patched,base}/: N.txt (the output of
# 'perf test -v N'), N.rc, and results.tsv (number, description, result).
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
		printf '%s\t%s\t%s\n' "$n" "$desc" "$v" >>"$out/results.tsv"
		log "$n: $desc: $v in $((SECONDS - start)) s"
	done < <(sed -n 's/^ *\([0-9][0-9]*\): \(.*\)$/\1\t\2/p' "$out/list.txt")
	touch "$out/done"
	exit 0
fi

[[ -x $PERF_OUT/perf ]] || die "no perf at $PERF_OUT/perf: run scripts/build-perf.sh"
R=$BUILD/results/perf-test-all
mkdir -p "$R"
# Usage: check-perf-test.sh [patched|base ...]: the kernels to run (both by
# default); the comparison uses the results kept from an earlier run for
# the other one
kernels=("$@")
(( $# )) || kernels=(patched base)
for k in "${kernels[@]}"; do
	[[ $k == patched || $k == base ]] || die "usage: $0 [patched|base ...]"
	step "perf test, every case, in the $k kernel (most of an hour under TCG)"
	"$TOP/scripts/vm.sh" "$k" -- "$TOP/scripts/check-perf-test.sh" --guest "$R/$k" >"$R.$k.log" 2>&1 ||
		log "the $k guest ended with an error: see $R.$k.log"
	[[ -f $R/$k/done ]] || die "the $k guest did not finish: see $R.$k.log"
done
for k in patched base; do
	[[ -f $R/$k/done ]] || die "no complete perf test run on the $k kernel: run $0 $k"
done

# cases are matched by description: both guests run the same perf, so the
# numbers agree too, but a description says what regressed
bad=0
while IFS=$'\t' read -r _ desc base_res; do
	patched_res=$(awk -F'\t' -v d="$desc" '$2 == d { print $3 }' "$R/patched/results.tsv")
	if [[ $base_res == Ok && $patched_res != Ok ]]; then
		log "regression: $desc: base Ok, patched ${patched_res:-missing}"
		bad=$((bad + 1))
	fi
done <"$R/base/results.tsv"
for k in patched base; do
	log "$k: $(cut -f3 "$R/$k/results.tsv" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')"
done
echo "$(awk -F'\t' '$3 == "Ok"' "$R/base/results.tsv" | wc -l) cases pass on the base kernel; $bad of them do not on the patched one"
((bad == 0))
