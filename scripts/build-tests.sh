#!/usr/bin/env bash
# Build what runs inside the guest, against the patched tree's uapi headers:
#   build/headers         make headers_install of build/linux
#   build/examples/       the example programs (examples/*.c)
#   build/tests/          helpers of the lab's own guest tests (tests/*.c)
#   build/selftests/X/    kselftests X in SELFTESTS (perf_events: the
#                         series' uevent_* tests and the kernel's own)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SELFTESTS=${SELFTESTS-perf_events}
HDR=$BUILD/headers

step "installing uapi headers of the patched tree"
run_logged "$BUILD/headers.log" make -C "$TREE" O="$KBUILD" INSTALL_HDR_PATH="$HDR" headers_install

mkdir -p "$BUILD/examples"
for c in "$TOP"/examples/*.c; do
	exe=$BUILD/examples/$(basename "$c" .c)
	gcc -O2 -g -Wall -Wextra -Werror -isystem "$HDR/include" -I "$TREE/tools/lib/perf/include" \
		-o "$exe" "$c" -lpthread
done
log "examples built in build/examples"

# libperf's test of <perf/uevent.h>, alone (tests/libperf-uevent.c), against
# the libperf and libapi that build-perf.sh built
if [[ -f $PERF_OUT/libperf/libperf.a && -f $PERF_OUT/libapi/libapi.a ]]; then
	lt=$TREE/tools/lib/perf/tests
	gcc -O2 -Wall -Werror -isystem "$HDR/include" -I "$TREE/tools/lib/perf/include" \
		-I "$TREE/tools/include" -I "$lt" -o "$BUILD/examples/libperf-uevent" \
		"$TOP/tests/libperf-uevent.c" "$lt/test-uevent.c" "$lt/test-uevent-off.c" \
		"$PERF_OUT/libperf/libperf.a" "$PERF_OUT/libapi/libapi.a"
else
	rm -f "$BUILD/examples/libperf-uevent"
	log "no libperf.a in $PERF_OUT (build-perf.sh): libperf's uevent test not built"
fi

# what tests/trace-cmd-uevent.sh runs under trace-cmd in the guests
mkdir -p "$BUILD/tests"
gcc -O2 -Wall -Wextra -Werror -isystem "$HDR/include" -o "$BUILD/tests/uevent-emit" "$TOP/tests/uevent-emit.c"

# the benchmark, whose smoke run the guests do (scripts/guest-bench.sh)
mkdir -p "$BUILD/bench"
gcc -O2 -Wall -Wextra -Werror -isystem "$HDR/include" -I "$TREE/tools/lib/perf/include" \
	-o "$BUILD/bench/uevent-bench" "$TOP/bench/uevent-bench.c" "$TOP/bench/uevent-bench-off.c" -lpthread

# guest-tests.sh runs every suite under build/selftests: drop those not
# built now (perf_uevent, where the series' tests were before v7)
for d in "$BUILD"/selftests/*/; do
	[[ -d $d && " $SELFTESTS " != *" $(basename "$d") "* ]] || continue
	log "removing build/selftests/$(basename "$d"): not in SELFTESTS"
	rm -rf "$d"
done
for t in $SELFTESTS; do
	[[ -d $TREE/tools/testing/selftests/$t ]] || { log "no selftests '$t' in the tree"; continue; }
	step "building kselftests $t"
	mkdir -p "$BUILD/selftests/$t"
	run_logged "$BUILD/selftests-$t.log" make -C "$TREE/tools/testing/selftests/$t" \
		OUTPUT="$BUILD/selftests/$t" KHDR_INCLUDES="-isystem $HDR/include" -j"$(jobs_n)"
done
