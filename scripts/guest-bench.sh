#!/usr/bin/env bash
# Runs inside the patched guest for 'make bench': set tracefs up for the
# trace_marker and user_events rows, run uevent-bench, and record the two
# perf.data files the decode-side comparison reads (N uevents, N samples).
# Usage: guest-bench.sh [--smoke] OUTDIR [uevent-bench args...]
# With --smoke: a few calls per row and no perf record; exits non-zero
# only when the benchmark is broken (a call fails, a record goes missing).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

smoke=0
if [[ ${1:-} == --smoke ]]; then
	smoke=1
	shift
fi
out=${1:?usage: guest-bench.sh [--smoke] OUTDIR [uevent-bench args]}
shift
bench=${BENCH_BIN:-$BUILD/bench/uevent-bench}
perf=$PERF_OUT/perf
tracefs=/sys/kernel/tracing
[[ -x $bench ]] || die "no $bench: run scripts/bench.sh (or make bench) first"
mkdir -p "$out"

# tracefs: mounted, tracing on with its buffer expanded, markers allowed.
if [[ ! -e $tracefs/trace_marker ]]; then
	mount -t tracefs nodev "$tracefs" 2>/dev/null ||
		log "tracefs cannot be mounted: the tracefs rows are skipped"
fi
if [[ -e $tracefs/trace_marker ]]; then
	echo 1 >"$tracefs/tracing_on"
	echo markers >"$tracefs/trace_options"
	echo 1408 >"$tracefs/buffer_size_kb"
fi

if (( smoke )); then
	log "smoke run: every row, a few calls each"
	"$bench" --smoke "$@" >"$out/smoke.csv"
	log "smoke run: $(($(wc -l <"$out/smoke.csv") - 1)) measurements, none broken"
	exit 0
fi

step "uevent-bench: every row, payload and thread count (about 2-4 min under TCG)"
"$bench" "$@" >"$out/raw.csv"

# Decode side: perf.data must be written to the guest's /tmp (9p cannot
# finish it), then copied out for perf script on the host.
n=${BENCH_DECODE_N:-50000}
tmp=$(mktemp -d)
step "perf record: $n uevents, then $n page-fault samples"
"$perf" record -q -e dummy/uevent/ -o "$tmp/uevents.data" -- "$bench" --emit "$n"
"$perf" record -q -e page-faults -c 1 -o "$tmp/samples.data" -- "$bench" --touch "$n"
cp "$tmp/uevents.data" "$tmp/samples.data" "$out/"
rm -rf "$tmp"
log "results in $out"
