#!/usr/bin/env bash
# Build what runs inside the guest, against the patched tree's uapi headers:
#   build/headers         make headers_install of build/linux
#   build/examples/       the example programs (examples/*.c)
#   build/selftests/X/    kselftests X in SELFTESTS (perf_uevent, perf_events)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SELFTESTS=${SELFTESTS-perf_uevent perf_events}
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

# the benchmark, whose smoke run the guests do (scripts/guest-bench.sh)
mkdir -p "$BUILD/bench"
gcc -O2 -Wall -Wextra -Werror -isystem "$HDR/include" -I "$TREE/tools/lib/perf/include" \
	-o "$BUILD/bench/uevent-bench" "$TOP/bench/uevent-bench.c" "$TOP/bench/uevent-bench-off.c" -lpthread

for t in $SELFTESTS; do
	[[ -d $TREE/tools/testing/selftests/$t ]] || { log "no selftests '$t' in the tree"; continue; }
	step "building kselftests $t"
	mkdir -p "$BUILD/selftests/$t"
	run_logged "$BUILD/selftests-$t.log" make -C "$TREE/tools/testing/selftests/$t" \
		OUTPUT="$BUILD/selftests/$t" KHDR_INCLUDES="-isystem $HDR/include" -j"$(jobs_n)"
done
