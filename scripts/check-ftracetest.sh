#!/usr/bin/env bash
# The kernel's own ftrace selftests (tools/testing/selftests/ftrace,
# every case) in one boot of the patched and one of the unpatched kernel,
# then a comparison: a case that passes on the base kernel must not fail
# on the patched one. Not part of make check (about 15 min a kernel under TCG);
# run as 'make check-ftrace'. Results in build/results/ftrace/{patched,base}.
# Inside the guest (--guest OUT): run ftracetest, its logs in OUT.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [[ ${1:-} == --guest ]]; then
	out=$2
	rm -rf "$out"
	mkdir -p "$out"
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	# ftracetest writes beside itself: run a copy
	cp -a "$TREE/tools/testing/selftests/ftrace" "$out/ftrace"
	cd "$out/ftrace"
	./ftracetest -l "$out/logs" >"$out/summary.txt" 2>&1 || true
	# "[12] description<TAB>[PASS]" -> "description<TAB>PASS"
	sed -n 's/^\[[0-9]*\] \(.*\)\t\[\([A-Z]*\)\]$/\1\t\2/p' "$out/summary.txt" >"$out/results.tsv"
	! grep -q '^# of passed' "$out/summary.txt" || touch "$out/done"
	exit 0
fi

# Usage: check-ftracetest.sh [patched|base ...]: the kernels to run (both by
# default); the comparison uses the results kept from an earlier run for
# the other one (about 15 min a kernel under TCG).
# One vCPU: the kept results were taken so. With two vCPUs and QEMU's
# multi-threaded TCG, a vCPU ran an int3 that text_poke_bp() had already
# replaced while the cases switched tracepoints, and both kernels died
# with "Oops: int3"; vm.sh now runs TCG single-threaded against that.
export VM_CPUS=1
suite_in_guests ftracetest "$BUILD/results/ftrace" "$TOP/scripts/check-ftracetest.sh" "$@"
suite_regressions "$BUILD/results/ftrace" PASS
