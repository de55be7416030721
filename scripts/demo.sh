#!/usr/bin/env bash
# make demo: boot the patched kernel; run the example program that reads
# its own uevents back, then record an instrumented application with perf
# and show its markers, ranges and counters between the cpu-clock samples.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts
"$S/deps.sh" fetch kernel vm selftests perf
"$S/fetch-base.sh" all
"$S/tree.sh"
"$S/build-kernel.sh" patched
"$S/build-perf.sh"
SELFTESTS="" "$S/build-tests.sh"
step "booting the patched kernel (about 30 s under TCG)"
"$S/vm.sh" patched -- "$S/guest-demo.sh"
