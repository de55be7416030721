#!/usr/bin/env bash
# Runs inside the guest (guest-tests.sh): a real tracer sees prctl uevents.
# Debian's trace-cmd records the perf:perf_uevent trace event while
# uevent-emit (tests/uevent-emit.c, built by build-tests.sh) emits, and
# trace-cmd report must show each uevent's type and payload bytes, the
# payload over a ring-buffer page cut (not dropped, its text shown up to
# 1024 bytes), and only the type a filter asks for. TAP on stdout; exit 0
# pass, 1 fail, 4 skip (no trace-cmd, or a kernel without uevents: the
# base kernel).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

emit=$BUILD/tests/uevent-emit
names=("trace-cmd record -e perf:perf_uevent shows type and payload bytes"
	"a payload over a page less 64 bytes: size 4096, cut to that, its text to 1024 bytes"
	"trace-cmd record -f 'type == 7' keeps only type 7")
echo "TAP version 13"
echo "1..${#names[@]}"

skip_all() {
	local i
	for i in "${!names[@]}"; do
		echo "ok $((i + 1)) ${names[$i]} # SKIP $1"
	done
	exit 4
}

command -v trace-cmd >/dev/null || skip_all "no trace-cmd (Debian package trace-cmd)"
[[ -x $emit ]] || skip_all "no $emit: run scripts/build-tests.sh"
"$emit" 1 probe 2>/dev/null
case $? in
0) ;;
4) skip_all "kernel without PR_TASK_PERF_UEVENT" ;;
*) echo "# uevent-emit failed on the probe" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/trace-cmd-uevent.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# the hex trace-cmd prints for uevent-emit's @N payload: byte i is i * 7 + 1
pattern() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%s%02x", i ? " " : "", (i * 7 + 1) % 256 }'
}

# check NAME REPORT EXTENDED-REGEX...: every regex matches a line of REPORT
check() {
	local name=$1 report=$2 re bad=""
	shift 2
	n=$((n + 1))
	for re in "$@"; do
		grep -qE -- "$re" "$report" || bad=${re:0:120}
	done
	if [[ -z $bad ]]; then
		echo "ok $n $name"
	else
		echo "# no line matches '$bad' in trace-cmd report:"
		cut -c1-200 "$report" | sed 's/^/#   /'
		echo "not ok $n $name"
		fails=$((fails + 1))
	fi
}

record() {	# output.dat trace-cmd-record-options... -- program args
	local out=$1
	shift
	if ! trace-cmd record -q -o "$out" "$@" >"$out.log" 2>&1; then
		echo "# trace-cmd record $*: failed"
		sed 's/^/#   /' "$out.log"
		return 1
	fi
	trace-cmd report -i "$out" >"$out.txt" 2>&1
}

cut=$(( $(getconf PAGESIZE) - 64 ))
(( cut > 4096 )) && cut=4096
record "$tmp/all.dat" -e perf:perf_uevent -- "$emit" 0x1234 hello 7 @40 9 @4096
ev='uevent-emit-[0-9]+ +\[[0-9]+\] +[0-9.]+: perf_uevent: +'
check "${names[0]}" "$tmp/all.dat.txt" \
	"${ev}type=4660 size=5 payload=68 65 6c 6c 6f\$" \
	"${ev}type=7 size=40 payload=$(pattern 40)\$"
# the size field is the caller's; the event keeps the cut payload (the raw
# report lists every byte) and its print format shows the first 1024 bytes
raw=$(trace-cmd report -R -i "$tmp/all.dat" 2>&1 | grep -E "${ev}type=9 " |
	grep -o 'payload=ARRAY\[[^]]*\]' | tr ',' '\n' | wc -l)
if [[ $raw != "$cut" ]]; then
	n=$((n + 1))
	echo "# trace-cmd report -R: the type 9 payload has $raw bytes, not $cut"
	echo "not ok $n ${names[1]}"
	fails=$((fails + 1))
else
	check "${names[1]}" "$tmp/all.dat.txt" "${ev}type=9 size=4096 payload=$(pattern 1024)\$"
fi

record "$tmp/filter.dat" -e perf:perf_uevent -f 'type == 7' -- "$emit" 5 a 7 b 9 c
if [[ $(grep -c 'perf_uevent:' "$tmp/filter.dat.txt") != 1 ]]; then
	echo "# not one perf_uevent line:"
	sed 's/^/#   /' "$tmp/filter.dat.txt"
	n=$((n + 1))
	echo "not ok $n ${names[2]}"
	fails=$((fails + 1))
else
	check "${names[2]}" "$tmp/filter.dat.txt" "${ev}type=7 size=1 payload=62\$"
fi
(( fails == 0 ))
