#!/usr/bin/env bash
# 'make bench': build uevent-bench against the patched uapi headers and run
# it in the patched guest: first in BENCH_BOOTS boots under QEMU's
# -icount shift=0 (guest time advances 1 ns per guest instruction, so "ns"
# per call are instructions per call: the primary figures, the same in
# every boot), then in one ordinary boot for the wall-clock second view and
# the perf.data files; time perf script on N uevents against N samples on
# the host; write the report (build/bench/bench.txt), build/bench/bench.csv
# and the chart (build/bench/bench.png, bench.svg).
# Usage: bench.sh [--smoke] [uevent-bench args...]
#   --smoke   a few calls per row in one ordinary boot, no figures asserted:
#             fails only when the benchmark is broken (what make check may run).
# Environment: BENCH_LABEL names the run (raw results go to
# build/bench/LABEL/{icount-1,icount-2,...,wall}/, default "run");
# BENCH_BOOTS (default 2) icount boots, each BENCH_ICOUNT_ROUNDS rounds
# (default 5) of BENCH_ICOUNT_CALLS calls (default 5000) per row, timed in
# chunks of about BENCH_ICOUNT_SPLIT instructions (default 50000; a round's
# figure is the median chunk, the row's the minimum round);
# BENCH_WALL=0 skips the wall-clock boot and the decode side;
# BENCH_COMPARE=LABEL adds the wall-clock ratios of an earlier run to the
# table; BENCH_DECODE_N (default 50000).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

smoke=()
if [[ ${1:-} == --smoke ]]; then
	smoke=(--smoke)
	shift
fi
label=${BENCH_LABEL:-run}
boots=${BENCH_BOOTS:-2}
rounds=${BENCH_ICOUNT_ROUNDS:-5}
calls=${BENCH_ICOUNT_CALLS:-5000}
split=${BENCH_ICOUNT_SPLIT:-50000}
dir=$BUILD/bench
out=$dir/$label
perf=$PERF_OUT/perf
icount_opts="-icount shift=0,sleep=off"
start=$SECONDS
mkdir -p "$dir"
[[ $boots =~ ^[0-9]+$ ]] || die "BENCH_BOOTS must be a number"

[[ -f $KBUILD/arch/x86/boot/bzImage ]] || die "no kernel in $KBUILD: run 'make kernel'"
[[ -x $perf ]] || die "no perf at $perf: run scripts/build-perf.sh"

# the uapi headers and uevent-bench, built where make check builds them
"$TOP/scripts/build-tests.sh"

if (( ${#smoke[@]} )); then
	step "booting the patched guest for the benchmark's smoke run (about 1 min)"
	"$TOP/scripts/vm.sh" patched -- "$TOP/scripts/guest-bench.sh" --smoke "$out" "$@"
	log "smoke run passed: $out/smoke.csv"
	exit 0
fi

# matplotlib draws the chart (lib.sh puts Debian's python3 first)
"$TOP/scripts/deps.sh" bench

report=()
for ((i = 1; i <= boots; i++)); do
	step "icount boot $i of $boots: instructions per call, $rounds rounds of $calls calls (2-4 min)"
	rm -rf "$out/icount-$i"
	VM_QEMU_OPTS=$icount_opts "$TOP/scripts/vm.sh" patched -- \
		"$TOP/scripts/guest-bench.sh" --icount "$out/icount-$i" \
		--threads 1 --rounds "$rounds" --calls "$calls" --split "$split" "$@"
	report+=(--icount "$out/icount-$i/raw.csv")
done
(( boots )) && report+=(--icount-calls "$calls" --icount-split "$split")

# trace_marker without the series: the base kernel, when it is built
if (( boots )) && [[ -f $KBUILD_BASE/arch/x86/boot/bzImage ]]; then
	step "icount boot of the base kernel: trace_marker without the series (about 1 min)"
	rm -rf "$out/icount-base"
	VM_QEMU_OPTS=$icount_opts "$TOP/scripts/vm.sh" base -- \
		"$TOP/scripts/guest-bench.sh" --icount "$out/icount-base" \
		--threads 1 --rounds "$rounds" --calls "$calls" --split "$split" "$@" \
		--rows prctl-null,marker,marker-raw,loop
	report+=(--base "$out/icount-base/raw.csv")
fi

if [[ ${BENCH_WALL:-1} != 0 ]]; then
	step "wall-clock boot (no icount): the second view, 1 and 2 threads (1-2 min to boot, 2-4 min to run)"
	rm -rf "$out/wall"
	"$TOP/scripts/vm.sh" patched -- "$TOP/scripts/guest-bench.sh" "$out/wall" "$@"
	report+=(--wall "$out/wall/raw.csv")

	# Decode side on the host: the same number of records either way.
	step "perf script: records/second, uevents against samples (about 1 min)"
	decode=$out/decode.csv
	echo "file,records,seconds" >"$decode"
	for kind in uevents samples; do
		args=(script -i "$out/wall/$kind.data")
		[[ $kind == uevents ]] && args+=(--show-uevent-events)
		best=
		for _ in 1 2 3; do
			t0=$(date +%s.%N)
			n=$("$perf" "${args[@]}" 2>/dev/null | grep -c -e PERF_RECORD_UEVENT -e page-faults || true)
			t1=$(date +%s.%N)
			t=$(echo "$t1 - $t0" | bc)
			if [[ -z $best ]] || (( $(echo "$t < $best" | bc) )); then
				best=$t
			fi
		done
		echo "$kind,$n,$best" >>"$decode"
	done
	report+=(--decode "$decode")
	[[ -n ${BENCH_COMPARE:-} ]] && report+=(--compare "$dir/$BENCH_COMPARE/wall/raw.csv")
fi
(( ${#report[@]} )) || die "nothing measured: BENCH_BOOTS=0 and BENCH_WALL=0"

rc=0
python3 "$TOP/scripts/bench-report.py" "${report[@]}" --csv "$dir/bench.csv" \
	--png "$dir/bench.png" --svg "$dir/bench.svg" >"$dir/bench.txt" || rc=$?
cat "$dir/bench.txt"
log "make bench: $((SECONDS - start)) s; report in $dir/bench.txt, table in $dir/bench.csv, chart in $dir/bench.svg"
case $rc in
0) ;;
3) die "the icount boots differ by more than 1% on some row (see 'max diff' above)" ;;
*) die "bench-report.py failed ($rc)" ;;
esac
