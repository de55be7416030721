#!/usr/bin/env bash
# make check-debug: perf's uevent decoding against hostile input, under
# ASan and UBSan. Prints one TSV line per check on stdout:
#   pass|fail <TAB> name <TAB> reason
# and exits 1 when a check fails.
#   1. perf built from $TREE with -fsanitize=address,undefined, into
#      $PERF_ASAN_OUT (about 6 min cold on 2 cores, ccache after);
#   2. hostile perf.data files (fuzz/uevent/gen-hostile.py), each read by
#      perf script, report -D, a python handler, data convert --to-json
#      and gecko.py: no sanitizer report, the right warning, carry on;
#   3. libFuzzer on tools/perf/util/uevent.c for FUZZ_TIME seconds (60),
#      from the seeds in fuzz/uevent/corpus;
#   4. mutated perf.data files through the sanitizer perf for MUTATE_TIME
#      seconds (60), while 3 runs.
# FUZZ_TIME=0 or MUTATE_TIME=0 leaves a step out.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# absolute: make -C changes directory
PERF_ASAN_OUT=$(realpath -m "${PERF_ASAN_OUT:-$BUILD/perf-asan}")
FUZZ_OUT=$(realpath -m "${FUZZ_OUT:-$BUILD/fuzz}")
FUZZ_TIME=${FUZZ_TIME:-60}
MUTATE_TIME=${MUTATE_TIME:-60}
F=$TOP/fuzz/uevent
SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -g'

"$TOP/scripts/deps.sh" debug perf
[[ -d $TREE/tools/perf ]] || die "no tree at $TREE: run 'make tree'"
mkdir -p "$PERF_ASAN_OUT" "$FUZZ_OUT"

nfail=0
result() {	# status name [reason]
	[[ $1 == pass ]] || nfail=$((nfail + 1))
	if (( $# > 2 )); then
		printf '%s\t%s\t%s\n' "$1" "$2" "$3"
	else
		printf '%s\t%s\n' "$1" "$2"
	fi
}

step "building perf with ASan and UBSan into $PERF_ASAN_OUT (about 6 min cold)"
# DEBUG=1: no optimisation, so that reports point at the right line.
# NO_JEVENTS=1 and BUILD_BPF_SKEL=0: no PMU event tables and no BPF
# programs, which reading perf.data files does not use; the libraries
# found by build-perf.sh's feature detection, when it ran on this tree
# after the last package change, rather than detecting them again
fdump=()
dump=$PERF_OUT/FEATURE-DUMP
if [[ -f $dump && $dump -nt /var/lib/dpkg/status && $dump -nt $TREE/.git/index &&
	$dump -nt $TREE/tools/perf/Makefile.config ]]; then
	fdump=("FEATURES_DUMP=$dump")
fi
if ! run_logged "$BUILD/perf-asan.log" make -C "$TREE/tools/perf" O="$PERF_ASAN_OUT" \
	NO_RUST=1 NO_JEVENTS=1 BUILD_BPF_SKEL=0 DEBUG=1 CC="ccache gcc" HOSTCC="ccache gcc" \
	EXTRA_CFLAGS="$SAN" "${fdump[@]}" \
	-j"$(jobs_n)"; then
	result fail "build: perf with ASan and UBSan" "see $BUILD/perf-asan.log"
	exit 1
fi
perf=$PERF_ASAN_OUT/perf

step "building the libFuzzer harness of tools/perf/util/uevent.c"
harness=$FUZZ_OUT/fuzz-uevent
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$TREE/tools/include" -I"$TREE/tools/include/uapi" \
	-I"$TREE/tools/lib/perf/include" -I"$TREE/tools/lib" -I"$TREE/tools/perf/util" \
	-I"$TREE/tools/perf" -o "$harness" "$F/fuzz-uevent.c" "$TREE/tools/perf/util/uevent.c" \
	"$TREE/tools/perf/util/hashmap.c" "$TREE/tools/perf/util/string.c" \
	"$TREE/tools/perf/util/strbuf.c" "$TREE/tools/lib/string.c" \
	"$TREE/tools/lib/ctype.c" "$TREE/tools/lib/vsprintf.c" "$TREE/tools/lib/zalloc.c" \
	2>"$FUZZ_OUT/harness.log"; then
	result fail "build: libFuzzer harness" "$(head -n 3 "$FUZZ_OUT/harness.log" | tr '\n\t' '  ')"
	harness=
fi

step "reading hostile perf.data files with the sanitizer perf (about 1-2 min)"
python3 "$F/gen-hostile.py" "$FUZZ_OUT/hostile"
rc=0
python3 "$F/run-hostile.py" "$perf" "$TREE/tools/perf/scripts/python/gecko.py" \
	"$FUZZ_OUT/hostile" "$FUZZ_OUT/hostile-out" >"$FUZZ_OUT/hostile.tsv" || rc=$?
cat "$FUZZ_OUT/hostile.tsv"
nfail=$((nfail + $(grep -c '^fail' "$FUZZ_OUT/hostile.tsv" || true)))
(( rc <= 1 )) || result fail "hostile files: run-hostile.py" "exit $rc"
log "hostile files: $(grep -c '^pass' "$FUZZ_OUT/hostile.tsv" || true) passed," \
	"$(grep -c '^fail' "$FUZZ_OUT/hostile.tsv" || true) failed"

# libFuzzer (one process) and the mutated files (one perf at a time) run
# side by side, one CPU each; libFuzzer's line is printed after
libfuzzer() {
	step "libFuzzer on the uevent decoders for $FUZZ_TIME s"
	work=$FUZZ_OUT/corpus
	mkdir -p "$work" "$FUZZ_OUT/artifacts"
	rm -f "$FUZZ_OUT"/artifacts/*
	rc=0
	"$harness" -max_total_time="$FUZZ_TIME" -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_OUT/artifacts/" "$work" "$F/corpus" \
		>"$FUZZ_OUT/libfuzzer.log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$FUZZ_OUT/libfuzzer.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$FUZZ_OUT/libfuzzer.log")
	stats="${execs:-?} execs, ${rate:-?} exec/s in $FUZZ_TIME s"
	name="libFuzzer: tools/perf/util/uevent.c under ASan+UBSan"
	if (( rc == 0 )); then
		result pass "$name" "$stats, 0 crashes"
	else
		what=$(grep -m 1 -E '^fuzz-uevent: |ERROR: AddressSanitizer|runtime error:|ERROR: libFuzzer' \
			"$FUZZ_OUT/libfuzzer.log" | sed 's/ on address.*//' || echo "exit $rc")
		result fail "$name" "$(echo "$what" | tr '\t' ' '), input in $FUZZ_OUT/artifacts/"
	fi
	log "libFuzzer: $stats (log: $FUZZ_OUT/libfuzzer.log)"
}
lf=
if [[ -n $harness ]] && (( FUZZ_TIME > 0 )); then
	libfuzzer >"$FUZZ_OUT/libfuzzer.tsv" &
	lf=$!
fi

if (( MUTATE_TIME > 0 )); then
	step "mutated perf.data files through the sanitizer perf for $MUTATE_TIME s"
	seeds=("$FUZZ_OUT"/hostile/{valid-all,valid-all-be,range-unmatched,string-no-nul-be}.data)
	for s in "$BUILD/demo/perf.data" "$BUILD/bench/script-mem/u-10000.data"; do
		if [[ -f $s ]]; then seeds+=("$s"); fi
	done
	rc=0
	python3 "$F/run-hostile.py" --mutate "$MUTATE_TIME" "$perf" "${seeds[@]}" \
		"$FUZZ_OUT/mutated" || rc=$?
	(( rc == 0 )) || nfail=$((nfail + 1))
fi

if [[ -n $lf ]]; then
	wait "$lf" || true
	cat "$FUZZ_OUT/libfuzzer.tsv"
	nfail=$((nfail + $(grep -c '^fail' "$FUZZ_OUT/libfuzzer.tsv" || true)))
	grep -q . "$FUZZ_OUT/libfuzzer.tsv" ||
		result fail "libFuzzer: tools/perf/util/uevent.c under ASan+UBSan" "no result: see $FUZZ_OUT/libfuzzer.log"
fi

(( nfail == 0 ))
