#!/usr/bin/env bash
# 'make bench': build uevent-bench against the patched uapi headers, run it
# in one boot of the patched guest, time perf script on N uevents against
# N samples on the host, and write the table, build/bench/bench.csv and
# build/bench/bench.png.
# Usage: bench.sh [--smoke] [uevent-bench args...]
#   --smoke   a few calls per row, no figures asserted: fails only when the
#             benchmark is broken (what make check may run).
# Environment: BENCH_LABEL names the run (raw results go to
# build/bench/LABEL/, default "run"); BENCH_COMPARE=LABEL adds the ratios of
# an earlier run to the table; BENCH_DECODE_N (default 50000).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

smoke=()
if [[ ${1:-} == --smoke ]]; then
	smoke=(--smoke)
	shift
fi
label=${BENCH_LABEL:-run}
dir=$BUILD/bench
out=$dir/$label
perf=$PERF_OUT/perf
mkdir -p "$dir"

[[ -f $KBUILD/arch/x86/boot/bzImage ]] || die "no kernel in $KBUILD: run 'make kernel'"
[[ -x $perf ]] || die "no perf at $perf: run scripts/build-perf.sh"

# the uapi headers and uevent-bench, built where make check builds them
"$TOP/scripts/build-tests.sh"

step "booting the patched guest for the benchmark (1-2 min to boot, 2-4 min to run under TCG)"
"$TOP/scripts/vm.sh" patched -- "$TOP/scripts/guest-bench.sh" "${smoke[@]}" "$out" "$@"
if (( ${#smoke[@]} )); then
	log "smoke run passed: $out/smoke.csv"
	exit 0
fi

# matplotlib draws the chart (lib.sh puts Debian's python3 first)
"$TOP/scripts/deps.sh" bench

# Decode side on the host: the same number of records either way.
step "perf script: records/second, uevents against samples (about 1 min)"
decode=$out/decode.csv
echo "file,records,seconds" >"$decode"
for kind in uevents samples; do
	args=(script -i "$out/$kind.data")
	[[ $kind == uevents ]] && args+=(--show-uevent-events)
	best=
	for _ in 1 2 3; do
		start=$(date +%s.%N)
		n=$("$perf" "${args[@]}" 2>/dev/null | grep -c -e PERF_RECORD_UEVENT -e page-faults || true)
		end=$(date +%s.%N)
		t=$(echo "$end - $start" | bc)
		if [[ -z $best ]] || (( $(echo "$t < $best" | bc) )); then
			best=$t
		fi
	done
	echo "$kind,$n,$best" >>"$decode"
done

compare=()
[[ -n ${BENCH_COMPARE:-} ]] && compare=(--compare "$dir/$BENCH_COMPARE/raw.csv")
python3 "$TOP/scripts/bench-report.py" "$out/raw.csv" --decode "$decode" \
	--csv "$dir/bench.csv" --png "$dir/bench.png" "${compare[@]}"
