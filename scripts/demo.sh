#!/usr/bin/env bash
# make demo: boot the patched kernel and run the example program that
# emits uevents while watching itself, printing the records it reads back.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts
"$S/deps.sh" fetch kernel vm selftests
"$S/fetch-base.sh" all
"$S/tree.sh"
"$S/build-kernel.sh" patched
SELFTESTS="" "$S/build-tests.sh"
step "booting the patched kernel (about 30 s under TCG)"
"$S/vm.sh" patched -- "$BUILD/examples/uevent-demo"
