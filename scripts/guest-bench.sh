#!/usr/bin/env bash
# Runs inside the patched guest for 'make bench': set tracefs up for the
# trace_marker and user_events rows, run uevent-bench, and record the two
# perf.data files the decode-side comparison reads (N uevents, N samples).
# Usage: guest-bench.sh [--smoke|--icount] OUTDIR [uevent-bench args...]
# With --smoke: a few calls per row and no perf record; exits non-zero
# only when the benchmark is broken (a call fails, a record goes missing).
# With --icount (a guest booted with QEMU's -icount shift=0, where guest
# time counts instructions): uevent-bench alone, no perf record.
# OUTDIR/kernel.txt says which kernel ran (uname -r -v).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

smoke=0 icount=0
case ${1:-} in
--smoke) smoke=1; shift ;;
--icount) icount=1; shift ;;
esac
out=${1:?usage: guest-bench.sh [--smoke|--icount] OUTDIR [uevent-bench args]}
shift
bench=${BENCH_BIN:-$BUILD/bench/uevent-bench}
perf=$PERF_OUT/perf
tracefs=/sys/kernel/tracing
[[ -x $bench ]] || die "no $bench: run scripts/bench.sh (or make bench) first"
mkdir -p "$out"
{
	uname -r -v
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
} >"$out/kernel.txt"
log "kernel: $(head -n 1 "$out/kernel.txt")"

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

if (( icount )); then
	# Without address-space randomisation: where the mappings land changes
	# how many page tables a fork copies, by about 1% from boot to boot.
	step "uevent-bench, counting instructions: every row and payload, one thread"
	setarch "$(uname -m)" --addr-no-randomize "$bench" "$@" >"$out/raw.csv"
	log "results in $out"
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
