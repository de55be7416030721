#!/usr/bin/env bash
# Boot a lab kernel with virtme-ng (the host's root file system, read-only,
# with build/ writable) and run one command in it; the command's exit
# status comes back.  Usage: vm.sh [patched|base] -- CMD [ARG...]
# KVM is used when /dev/kvm really works (checked once, cached); otherwise
# QEMU emulates (TCG), which is what this lab's machines do.
# VM_QEMU_OPTS: extra QEMU options, e.g. "-icount shift=0,sleep=off" (what
# 'make bench' counts instructions with; -icount forces TCG).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

which=${1:-patched}
shift
[[ ${1:-} == -- ]] && shift
case $which in
patched) kernel=$KBUILD/arch/x86/boot/bzImage ;;
base) kernel=$KBUILD_BASE/arch/x86/boot/bzImage ;;
*) die "usage: $0 [patched|base] -- CMD" ;;
esac
[[ -f $kernel ]] || die "no kernel at $kernel: run 'make kernel'"
(( $# )) || die "no command to run"
command -v vng >/dev/null || die "vng (virtme-ng) missing: run 'make deps'"

# A nested /dev/kvm may exist and still hang guests: trust it only after
# a short boot has gone through.
kvm_works() {
	local stamp=$BUILD/kvm.ok
	[[ -n ${LAB_KVM:-} ]] && { [[ $LAB_KVM == 1 ]]; return; }
	if [[ ! -f $stamp ]]; then
		local ok=0
		if [[ -w /dev/kvm ]]; then
			log "checking whether KVM works (a short boot, at most 30 s)"
			timeout -k 5 30 vng --run "$kernel" --cpus 1 --append root=/dev/root -- true \
				</dev/null >/dev/null 2>&1 && ok=1
		fi
		echo "$ok" >"$stamp"
	fi
	[[ $(cat "$stamp") == 1 ]]
}

# Without an initramfs, virtme-ng 1.41 leaves root= out and a 7.2 kernel
# then fails to mount the 9p root ("Bad value for 'source'").
args=(--run "$kernel" --cpus "${VM_CPUS:-2}" --memory "${VM_MEM:-2G}" --rwdir "$BUILD"
	--append root=/dev/root)
# VM_VERBOSE=1: the kernel's console too (an oops is then in the output)
[[ ${VM_VERBOSE:-0} == 1 ]] && args+=(--verbose)
qemu_opts=${VM_QEMU_OPTS:-}
if [[ $qemu_opts == *-icount* ]] || ! kvm_works; then
	args+=(--disable-kvm)
	# One host thread for all vCPUs: QEMU 7.2's multi-threaded TCG lets a
	# vCPU run a stale translation of kernel text that text_poke_bp() has
	# just patched back, and the guest dies on a left-over int3 (seen on
	# both kernels: "Oops: int3" in __schedule as perf_sched_events
	# flips, and in ftracetest). -icount runs single-threaded anyway.
	qemu_opts="-accel tcg,thread=single${qemu_opts:+ $qemu_opts}"
fi
if [[ -n $qemu_opts ]]; then
	args+=(--qemu-opts="$qemu_opts")
fi
log "booting $which kernel ($( [[ ${args[*]} == *--disable-kvm* ]] && echo TCG || echo KVM ), ${VM_CPUS:-2} vCPUs${qemu_opts:+, QEMU $qemu_opts})"
cd "$TOP"
# One guest at a time: two virtme-ng guests of one user disturb each other
# (and a second one halves the first one's CPUs), so a second boot waits
# for the first to end.
exec flock "$BUILD/vm.lock" vng "${args[@]}" -- "$@" </dev/null
