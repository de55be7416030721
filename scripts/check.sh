#!/usr/bin/env bash
# make check: every test of the project, from a fresh machine.
#   1. set-up: packages, the base source, the tree with the series;
#   2. host checks on the series: shellcheck, then after the builds the
#      maintainers' gates (check-series.sh) and W=1;
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

"$S/deps.sh" fetch kernel vm selftests perf lint gates man-pages
"$S/fetch-base.sh" all
"$S/tree.sh"

# Host checks, one line each in host.tsv: status, name, reason.
host=$R/host.tsv
: >"$host"
step "shellcheck on the lab's scripts"
if out=$(cd "$TOP" && shellcheck -x scripts/*.sh .ci/run 2>&1); then
	printf 'pass\t%s\n' "shellcheck: scripts/*.sh .ci/run" >>"$host"
else
	printf 'fail\t%s\t%s\n' "shellcheck: scripts/*.sh .ci/run" "$(echo "$out" | grep -m 2 SC | tr '\n\t' '  ')" >>"$host"
fi

# the man-pages series (patches/NN-man-pages-*) on its own base, never
# the kernel's: git am, then man and groff on each page it touches
step "the man-pages series on Debian's manpages: git am, man and groff warnings (seconds)"
n=$(wc -l <"$host")
"$S/man-pages.sh" check "$host" || true
(( $(wc -l <"$host") > n )) ||
	printf 'fail\t%s\t%s\n' "man-pages.sh check" "it stopped before any check: see the lines above" >>"$host"

"$S/build-kernel.sh" patched
"$S/build-kernel.sh" base
"$S/build-perf.sh"
"$S/build-tests.sh"

# checkpatch and a build per patch, sparse, PERF_EVENTS=n, headers, docs,
# the selftests' own build, make series
"$S/check-series.sh" "$host"

# perf's uevent decoding under ASan+UBSan: hostile perf.data files, then a
# bounded libFuzzer and mutation run (make check-debug runs it longer, and
# the debug kernel too)
step "perf's uevent decoding against hostile files and fuzzers, ASan+UBSan (8-12 min cold)"
fuzz=$(FUZZ_TIME=${FUZZ_TIME:-30} MUTATE_TIME=${MUTATE_TIME:-30} "$S/check-fuzz.sh") || true
if grep -q . <<<"$fuzz"; then
	echo "$fuzz" >>"$host"
else
	printf 'fail\t%s\t%s\n' "check-fuzz.sh" "it stopped before any check: see the lines above" >>"$host"
fi

# arm64 with 64K pages: by default only kernel/events/ cross-built (the
# gate); CHECK_ARM64=1 builds both arm64 kernels and boots them too
arm64=$("$S/check-arm64.sh" "$([[ ${CHECK_ARM64:-0} == 1 ]] && echo --tsv || echo --gate)") || true
if grep -q . <<<"$arm64"; then
	echo "$arm64" >>"$host"
else
	printf 'fail\t%s\t%s\n' "check-arm64.sh" "it stopped before any check: see the lines above" >>"$host"
fi

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
	# the kernel's console goes to the log only, but for what says it died
	VM_VERBOSE=1 "$S/vm.sh" "$k" -- "$S/guest-tests.sh" "$R/$k" 2>&1 | tee "$R/$k.log" |
		grep -E '^(vm\.sh|guest-tests\.sh|    )|Oops|BUG:|Kernel panic|RIP:' |
		sed 's/^/  | /' >&2 || true
done

log "make check took $((SECONDS - start)) s"
python3 "$S/evaluate.py" "$R/patched" "$R/base" "$host"
