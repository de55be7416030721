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
	exit 0
fi

R=$BUILD/results/ftrace
# Usage: check-ftracetest.sh [patched|base ...]: the kernels to run (both by
# default); the comparison uses the results kept from an earlier run for
# the other one (each run takes most of an hour under TCG)
kernels=("$@")
(( $# )) || kernels=(patched base)
for k in "${kernels[@]}"; do
	[[ $k == patched || $k == base ]] || die "usage: $0 [patched|base ...]"
	step "ftracetest in the $k kernel (about 15 min under TCG)"
	# One vCPU: with two, QEMU's TCG lets a vCPU run an int3 that
	# text_poke_bp() has already replaced, while the cases switch
	# hundreds of tracepoints on and off, and both kernels die with
	# "Oops: int3" (seen on the base and the patched kernel alike)
	VM_CPUS=1 "$TOP/scripts/vm.sh" "$k" -- "$TOP/scripts/check-ftracetest.sh" --guest "$R/$k" >"$R.$k.log" 2>&1 ||
		log "the $k guest ended with an error: see $R.$k.log"
done
for k in patched base; do
	grep -q '^# of passed' "$R/$k/summary.txt" 2>/dev/null ||
		die "no complete ftracetest run on the $k kernel: run $0 $k"
done

# "[12] description<TAB>[PASS]" -> "description<TAB>PASS"
cases() { sed -n 's/^\[[0-9]*\] \(.*\)\t\[\([A-Z]*\)\]$/\1\t\2/p' "$R/$1/summary.txt" | sort; }
bad=0
while IFS=$'\t' read -r name base_res; do
	patched_res=$(cases patched | awk -F'\t' -v n="$name" '$1 == n { print $2 }')
	if [[ $base_res == PASS && $patched_res != PASS ]]; then
		log "regression: $name: base PASS, patched ${patched_res:-missing}"
		bad=$((bad + 1))
	fi
done < <(cases base)
for k in patched base; do
	log "$k: $(grep -E '^# of (passed|failed|unresolved|untested|unsupported)' "$R/$k/summary.txt" | tr -s ' ' | tr '\n' ' ')"
done
echo "$(cases base | grep -c PASS) cases pass on the base kernel; $bad of them do not on the patched one"
(( bad == 0 ))
