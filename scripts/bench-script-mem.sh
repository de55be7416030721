#!/usr/bin/env bash
# Memory of 'perf script' against the number of uevents in the file.
# Records N uevents (range begins and ends in turn, perf's "uevent"
# workload) for several N in one boot of the patched guest, then runs
# 'perf script --show-uevent-events' on each file on the host and prints
# its peak anonymous memory (RssAnon: heap, what perf allocates) next to
# its peak file-backed memory (RssFile: the mapped perf.data and
# binaries) and VmHWM, then its peak heap under valgrind's massif with
# the share held by ordered_events (perf's time-sorting queue, which holds
# one flush round: bounded by the recording's ring size, not by the
# count) and by everything else. A bounded decoder keeps the heap outside
# ordered_events flat while the file grows. The same for 'perf report
# --sort range', which follows the ranges open in each thread.
# Usage: [REUSE=1] bench-script-mem.sh [N...]  (default 10000 100000 1000000 3000000)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# valgrind, for massif
"$TOP/scripts/deps.sh" mem

counts=("$@")
(( ${#counts[@]} )) || counts=(10000 100000 1000000 3000000)
out=$BUILD/bench/script-mem
perf=$PERF_OUT/perf
[[ -x $perf ]] || die "no perf at $perf: run scripts/build-perf.sh"
mkdir -p "$out"
have_all() { local n; for n in "${counts[@]}"; do [[ -f $out/u-$n.data ]] || return 1; done; }

# REUSE=1: keep files recorded by an earlier run
if [[ ${REUSE:-0} == 1 ]] && have_all; then
	log "reusing the recorded files in $out"
else
	step "recording ${counts[*]} uevents in the patched guest (1-3 min under TCG)"
	# perf record cannot finish a file on the 9p mount: record to the guest's
	# /tmp, then copy.
	# shellcheck disable=SC2016 # expanded by the guest's shell
	"$TOP/scripts/vm.sh" patched -- bash -c '
		set -e
		perf=$1 out=$2
		shift 2
		for n in "$@"; do
			"$perf" record -q --uevent -e dummy:u -m 16M -o /tmp/u.data -- "$perf" test -w uevent "$n"
			cp /tmp/u.data "$out/u-$n.data"
		done' bash "$perf" "$out" "${counts[@]}" >"$out/record.log" 2>&1 ||
		{ tail -n 20 "$out/record.log" >&2; die "recording failed"; }
fi

# Peak of each /proc/PID/status field while the command runs.
peak() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
keys = ("RssAnon", "RssFile", "VmHWM")
peak = dict.fromkeys(keys, 0)
while p.poll() is None:
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in peak:
                    peak[k] = max(peak[k], int(v.split()[0]))
    except (OSError, ValueError):
        pass
    time.sleep(0.001)
err = p.stderr.read().decode(errors="replace").strip().splitlines()
print(" ".join(str(peak[k] // 1024) for k in keys), p.returncode, err[-1] if err else "")
PY
}

# Peak heap in KB from massif: the whole heap, the part queued in
# ordered_events, and the peak of everything else (over the detailed
# snapshots, where massif records who allocated what).
heap() {
	local ms=$out/massif.out
	valgrind --tool=massif --detailed-freq=2 --massif-out-file="$ms" "$@" >/dev/null 2>&1 || return 1
	python3 - "$ms" <<'PY'
import sys
snaps = []	# [heap bytes, detailed?, bytes under ordered_events__queue]
for line in open(sys.argv[1]):
    if line.startswith("mem_heap_B="):
        snaps.append([int(line.split("=")[1]), False, 0])
    elif line.startswith("heap_tree="):
        snaps[-1][1] = line.strip().split("=")[1] in ("detailed", "peak")
    elif line.startswith(" n") and "ordered_events__queue" in line:
        snaps[-1][2] = int(line.split()[1])	# a direct child of the root
detailed = [s for s in snaps if s[1]]
print(max(s[0] for s in snaps) // 1024, max(s[2] for s in detailed) // 1024,
      max(s[0] - s[2] for s in detailed) // 1024)
PY
}

# One table per reader: perf script pairs ranges for --show-uevent-events,
# perf report --sort range follows the ranges open in each thread.
table() {
	printf '%s\n' "perf $*"
	printf '%-9s %8s %9s %10s %10s %9s %11s %13s %9s\n' uevents file_MB records RssAnon_MB RssFile_MB \
		VmHWM_MB heap_KB ordered_KB other_KB_peak
	for n in "${counts[@]}"; do
		f=$out/u-$n.data
		[[ -f $f ]] || die "no $f"
		recs=$("$perf" report -i "$f" --stats 2>/dev/null | awk '/UEVENT events:/ {print $3; exit}')
		read -r anon file hwm rc msg < <(peak "$perf" "$@" -i "$f")
		(( rc == 0 )) || die "perf $1 failed on $f: $msg"
		read -r hp oe other < <(heap "$perf" "$@" -i "$f") || die "massif failed on $f"
		printf '%-9s %8s %9s %10s %10s %9s %11s %13s %9s\n' "$n" "$(( $(stat -c %s "$f") / 1048576 ))" \
			"${recs:-?}" "$anon" "$file" "$hwm" "$hp" "$oe" "$other"
	done
}

{
table script --show-uevent-events
table report --stdio -q --sort range
} | tee "$out/table.txt"
