# perf uevent lab: one target per user action. See README.md.
#
#   make demo     boot the patched kernel and show uevents read back
#   make check    every test; ends with "N passed, N failed, N skipped"
#   make check-base  the series' tests on the unpatched kernel: all must skip
#   make check-arm64 the tests on arm64 with 64K pages (cross-built, QEMU), patched and base
#   make check-ftrace the kernel's ftrace selftests (ftracetest) in both guests: no case may pass on
#                 the base kernel and fail on the patched one
#   make check-debug the debug-kernel suite (KASAN, lockdep, UBSAN, failslab) and a longer fuzz run
#                 (make check runs the fuzz slice); make check-debug-kernel: the kernel part alone
#   make tree     build/linux: base commit + patches/ applied with git am
#   make export   write build/linux's series back to patches/
#   make series   the mailable set in build/series (SENDER='Name <addr>')
#   make kernel   build the patched and the unpatched guest kernels
#   make bench-mem  perf script's memory against the number of uevents
#   make vm       boot the patched kernel with a shell (CMD=... to run one)
#   make bench    uevent cost next to prctl, trace_marker, user_events, fork: instructions per
#                 call in two -icount boots (BENCH_BOOTS=N), wall-clock second view (SMOKE=1: quick)
#   make deps     install the Debian packages and virtme-ng
#   make clean    remove build outputs (keeps the base source and ccache)

SHELL := /bin/bash
S := scripts

.PHONY: all demo check check-base check-arm64 check-ftrace check-perftest check-debug check-debug-kernel tree export series kernel vm bench bench-mem deps clean distclean

all: demo

deps:
	$(S)/deps.sh fetch kernel vm selftests
	$(S)/fetch-base.sh all

tree: deps
	$(S)/tree.sh

export:
	$(S)/export.sh

series: tree
	$(S)/series.sh

kernel: tree
	$(S)/build-kernel.sh patched
	$(S)/build-kernel.sh base

demo:
	$(S)/demo.sh

check:
	$(S)/check.sh

check-base:
	$(S)/check-base.sh

check-arm64: tree
	$(S)/check-arm64.sh

check-ftrace: tree
	$(S)/build-kernel.sh patched
	$(S)/build-kernel.sh base
	$(S)/check-ftracetest.sh $(KERNELS)

check-perftest: tree
	$(S)/build-kernel.sh patched
	$(S)/build-kernel.sh base
	$(S)/build-perf.sh
	$(S)/check-perf-test.sh $(KERNELS)

check-debug: tree
	FUZZ_TIME=$${FUZZ_TIME:-300} MUTATE_TIME=$${MUTATE_TIME:-120} $(S)/check-fuzz.sh
	$(S)/check-debug-kernel.sh

check-debug-kernel: tree
	$(S)/check-debug-kernel.sh

bench-mem: kernel
	$(S)/build-perf.sh
	$(S)/bench-script-mem.sh

vm: tree
	$(S)/build-kernel.sh patched
	$(S)/vm.sh patched -- $(if $(CMD),$(CMD),bash -i)

bench: tree
	$(S)/build-kernel.sh patched
	$(S)/build-perf.sh
	$(S)/bench.sh $(if $(SMOKE),--smoke)

clean:
	rm -rf build/kbuild build/base/kbuild* build/kbuild-arm64* build/arm64 build/perf build/selftests build/examples \
		build/headers build/results build/*.log

distclean:
	rm -rf build
