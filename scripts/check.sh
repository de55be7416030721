#!/usr/bin/env bash
# make check: every test of the project, from a fresh machine.
#   1. set-up: packages, the base source, the tree with the series;
#   2. host checks on the series (checkpatch --strict per patch);
#   3. the patched and the unpatched kernels, perf, the tests and examples;
#   4. one boot of each kernel running the same tests;
#   5. the verdict, ending with "N passed, N failed, N skipped".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

start=$SECONDS
S=$TOP/scripts
R=$BUILD/results
mkdir -p "$R"

"$S/deps.sh" fetch kernel vm selftests perf lint
"$S/fetch-base.sh" all
"$S/tree.sh"

# Host checks, one line each in host.tsv: status, name, reason.
host=$R/host.tsv
: >"$host"
step "checkpatch --strict on each patch"
# Kernel patches must be clean. Patches that touch only tools/perf and
# tools/lib/perf follow perf's own conventions where checkpatch disagrees:
# PRIx64 and PRINT_ATTRf_* names (CAMELCASE), the description on line 2
# of perf's shell tests (SPDX_LICENSE_TAG), GCC attributes in a header
# for applications that have no __printf (PREFER_DEFINED_ATTRIBUTE_MACRO),
# unsplit user-visible strings and quoted output (LONG_LINE_STRING,
# COMMIT_LOG_LONG_LINE), and new files under F: patterns MAINTAINERS
# already has (FILE_PATH_CHANGES). Those remarks are listed, not hidden.
PERF_IDIOMS=CAMELCASE,SPDX_LICENSE_TAG,PREFER_DEFINED_ATTRIBUTE_MACRO,LONG_LINE_STRING,COMMIT_LOG_LONG_LINE,FILE_PATH_CHANGES
for p in "$TOP"/patches/*.patch; do
	[[ $(basename "$p") == 0000-* ]] && continue
	name="checkpatch --strict: $(basename "$p")"
	cp_args=(--strict --terse --no-summary --show-types)
	note=""
	if ! grep '^diff --git' "$p" | grep -qv ' a/tools/\(perf\|lib/perf\)/'; then
		note=$("$TREE/scripts/checkpatch.pl" "${cp_args[@]}" "$p" 2>&1 |
			sed -n 's/.*: \(CHECK\|WARNING\):\([A-Z_]*\):.*/\2/p' | sort | uniq -c |
			awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}') || true
		cp_args+=(--ignore "$PERF_IDIOMS")
	fi
	if out=$("$TREE/scripts/checkpatch.pl" "${cp_args[@]}" "$p" 2>&1) && [[ -z $out ]]; then
		printf 'pass\t%s\t%s\n' "$name" "${note:+perf idioms left: $note}" >>"$host"
	else
		printf 'fail\t%s\t%s\n' "$name" "$(echo "$out" | head -n 3 | tr '\n\t' '  ')" >>"$host"
	fi
done

step "shellcheck on the lab's scripts"
if out=$(cd "$TOP" && shellcheck -x scripts/*.sh .ci/run 2>&1); then
	printf 'pass\t%s\n' "shellcheck: scripts/*.sh .ci/run" >>"$host"
else
	printf 'fail\t%s\t%s\n' "shellcheck: scripts/*.sh .ci/run" "$(echo "$out" | grep -m 2 SC | tr '\n\t' '  ')" >>"$host"
fi

"$S/build-kernel.sh" patched
"$S/build-kernel.sh" base
"$S/build-perf.sh"
"$S/build-tests.sh"

step "W=1 on the kernel files the series touches"
if out=$("$S/check-w1.sh" 2>&1); then
	printf 'pass\t%s\n' "W=1: no new warnings in the files the series touches" >>"$host"
else
	printf 'fail\t%s\t%s\n' "W=1: no new warnings in the files the series touches" \
		"$(echo "$out" | grep warning: | head -n 2 | tr '\n\t' '  ')" >>"$host"
fi

for k in patched base; do
	step "booting the $k kernel and running the tests in it (2-4 min under TCG)"
	# the guest's own exit status is not the verdict: evaluate.py compares
	# the two runs, and notices a guest that did not finish
	"$S/vm.sh" "$k" -- "$S/guest-tests.sh" "$R/$k" 2>&1 | tee "$R/$k.log" | sed 's/^/  | /' >&2 || true
done

log "make check took $((SECONDS - start)) s"
python3 "$S/evaluate.py" "$R/patched" "$R/base" "$host"
