#!/usr/bin/env bash
# Runs inside the patched guest for 'make demo': record the example
# application with perf, then show its uevents between the samples.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

perf=$PERF_OUT/perf
# perf.data goes to the guest's /tmp: perf record cannot finish a file
# on the 9p mount of build/; a copy is left in build/demo afterwards.
out=$(mktemp -d)

echo "\$ $BUILD/examples/uevent-demo     # the kernel side alone: the program reads its own ring"
"$BUILD/examples/uevent-demo"
echo
echo "\$ perf record --uevent -e cpu-clock -c 1000000 -- uevent-app 3"
"$perf" record -q --uevent -e cpu-clock -c 1000000 -o "$out/perf.data" -- "$BUILD/examples/uevent-app" 3
echo
echo "\$ perf script --comms uevent-app --show-uevent-events    # from the first uevent on"
"$perf" script -i "$out/perf.data" --comms uevent-app --show-uevent-events |
	sed -n '/PERF_RECORD_UEVENT/,$p'
echo
echo "\$ perf report --comms uevent-app --sort range_path --stdio -q    # CPU time per phase"
"$perf" report -i "$out/perf.data" --comms uevent-app --sort range_path --stdio -q 2>&1
echo
echo "\$ perf script --comms uevent-app -F time,ip,sym,range    # the first samples in frames"
"$perf" script -i "$out/perf.data" --comms uevent-app -F time,ip,sym,range | awk '/frame;/ && n++ < 4'
mkdir -p "$BUILD/demo"
cp "$out/perf.data" "$BUILD/demo/perf.data"
