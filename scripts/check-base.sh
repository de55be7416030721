#!/usr/bin/env bash
# make check-base: boot the unpatched base kernel and show that the
# series' tests and examples skip cleanly there (none fails, none passes).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts
R=$BUILD/results
"$S/deps.sh" fetch kernel vm selftests
"$S/fetch-base.sh" all
"$S/tree.sh"
"$S/build-kernel.sh" base
SELFTESTS=perf_events "$S/build-tests.sh"
step "booting the base kernel and running the series' tests in it (1-2 min under TCG)"
"$S/vm.sh" base -- "$S/guest-tests.sh" "$R/base-only" 2>&1 | tee "$R/base-only.log" | sed 's/^/  | /' >&2 || true
python3 "$S/evaluate.py" --base-only "$R/base-only"
