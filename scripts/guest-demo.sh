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

# What applications already write to tracefs reaches perf too: a shell
# writing ATrace markers (begin, counter, end) to trace_marker
T=/sys/kernel/tracing
[[ -e $T/trace_marker ]] || mount -t tracefs nodev "$T" 2>/dev/null || true
if [[ -w $T/trace_marker ]]; then
	echo
	echo "\$ perf record --uevent -- sh -c 'printf \"B|%s|load config\" \$\$ > $T/trace_marker; ...'"
	"$perf" record -q --uevent -e cpu-clock -o "$out/atrace.data" -- sh -c "
		printf 'B|%s|load config' \$\$ > $T/trace_marker
		i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done
		printf 'C|%s|queued|3' \$\$ > $T/trace_marker
		printf 'E|%s' \$\$ > $T/trace_marker"
	echo "\$ perf script --show-uevent-events | grep UEVENT"
	"$perf" script -i "$out/atrace.data" --show-uevent-events | grep UEVENT
	# and every prctl uevent is a trace event for ftrace, trace-cmd and BPF
	echo
	echo "\$ echo 1 > $T/events/perf/perf_uevent/enable; uevent-app 1; head $T/trace"
	echo 0 > "$T/tracing_on"
	echo > "$T/trace"
	echo 1 > "$T/events/perf/perf_uevent/enable"
	echo 1 > "$T/tracing_on"
	"$BUILD/examples/uevent-app" 1 >/dev/null
	echo 0 > "$T/events/perf/perf_uevent/enable"
	grep -m 6 perf_uevent "$T/trace" || true
fi
mkdir -p "$BUILD/demo"
cp "$out/perf.data" "$BUILD/demo/perf.data"
