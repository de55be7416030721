#!/usr/bin/env python3
"""Judge the guest runs and print one line per test plus the totals.

Usage: evaluate.py PATCHED_RESULTS BASE_RESULTS [HOST_RESULTS.tsv]
       evaluate.py --base-only BASE_RESULTS
       evaluate.py --tsv PREFIX PATCHED_RESULTS BASE_RESULTS [HOST_RESULTS.tsv]

- the series' own tests must pass on the patched kernel and skip (every
  case) on the unpatched base kernel: the uevent_* kselftests in
  perf_events, trace-cmd recording uevents (tests/trace-cmd-uevent.sh),
  examples/ and the perf test cases marked own;
- every other test (the rest of the kernel's perf_events selftests, the
  perf test cases marked guard) is a no-regression guard: a case that
  fails on the patched kernel fails the run only if it passes on the base
  kernel; failing on both is reported as skipped, with the base result
  as the reason;
- HOST_RESULTS.tsv holds host-side checks: "pass|fail|skip<TAB>name<TAB>why".

--tsv prints the results in that same TSV form, each name after PREFIX, and
no totals: how make check counts another guest's run (check-arm64.sh --tsv).
"""
import os
import re
import sys

OWN_SUITES = ("examples", "trace-cmd")
# the series' kselftests sit next to the kernel's own in perf_events
OWN_PREFIX = {"perf_events": "uevent_"}
# Why a guard test fails on both kernels in this lab, where it is known.
KNOWN_CAUSES = {
    "remove_on_exec": "it opens PERF_COUNT_HW_INSTRUCTIONS and the guest has no hardware PMU",
}
PERF_TEST_LINE = re.compile(r"^\s*\d+(?:\.\d+)?: (.*?)\s*: (Ok|FAILED!|Skip)(?:\s*\((.*)\))?\s*$")
TAP_LINE = re.compile(r"^(not ok|ok) +\d+ +(.*?)(?: +# +(SKIP|XFAIL|TODO)\b ?(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)")


def parse(path):
    """Return {case: (status, reason)} for one binary's output, plus problems."""
    cases, problems, plan = {}, [], None
    try:
        with open(path + ".tap", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None, ["no output"]
    rc = int(open(path + ".rc").read().strip() or 1)
    first_comment = ""
    for line in lines:
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = PERF_TEST_LINE.match(line)
        if m:
            name, result, why = m.groups()
            cases[name] = ({"Ok": "pass", "Skip": "skip"}.get(result, "fail"), why or "")
            continue
        m = TAP_LINE.match(line)
        if m:
            ok, name, directive, why = m.groups()
            if directive == "SKIP":
                cases[name] = ("skip", why or first_comment)
            elif ok == "ok":
                cases[name] = ("pass", "")
            else:
                cases[name] = ("fail", first_comment)
            first_comment = ""
        elif line.startswith("#  RUN"):
            first_comment = ""
        elif line.startswith("#") and not first_comment and "Totals" not in line:
            first_comment = line.lstrip("# ").strip()
    if plan is None and not cases:
        # not a TAP program (examples): judge by exit status
        status = {0: "pass", 4: "skip"}.get(rc, "fail")
        why = lines[-1] if lines else "no output"
        return {"": (status, "" if status == "pass" else why)}, problems
    if plan is not None and len(cases) != plan:
        problems.append(f"{len(cases)} results for a plan of {plan} (exit {rc})")
    if rc not in (0, 4) and not any(s == "fail" for s, _ in cases.values()):
        problems.append(f"exit status {rc} without a failing case")
    return cases, problems


def is_own(root, suite, binary):
    """Tests of the series (must pass patched) rather than guards."""
    if suite in OWN_SUITES or binary.startswith(OWN_PREFIX.get(suite, "\0")):
        return True
    kind = os.path.join(root or "", suite, binary + ".kind")
    return os.path.exists(kind) and open(kind).read().strip() == "own"


def runs(root):
    out = {}
    if not os.path.isdir(root):
        return out
    for suite in sorted(os.listdir(root)):
        d = os.path.join(root, suite)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".rc"):
                out[(suite, f[:-3])] = parse(os.path.join(d, f[:-3]))
    return out


def console_death(root):
    """What the guest's console (ROOT.log, make check keeps it) said as it
    died: the first oops, BUG or panic line and the RIP after it."""
    try:
        with open(root.rstrip("/") + ".log", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    for i, line in enumerate(lines):
        if re.search(r"Oops|BUG:|Kernel panic", line):
            rip = next((l.strip() for l in lines[i:i + 12] if "RIP:" in l), "")
            return "; console: " + line.strip() + (" / " + rip if rip else "")
    return ""


def main():
    tsv_prefix = None
    if sys.argv[1] == "--tsv":
        tsv_prefix = sys.argv[2]
        del sys.argv[1:3]
    base_only = sys.argv[1] == "--base-only"
    if base_only:
        patched_dir, base_dir = None, sys.argv[2]
    else:
        patched_dir, base_dir = sys.argv[1], sys.argv[2]
    results = []  # (status, name, why)

    def add(status, name, why=""):
        results.append((status, name, why))

    if len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
        for line in open(sys.argv[3]):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                add(parts[0], parts[1], parts[2] if len(parts) > 2 else "")

    for root, label in ((patched_dir, "patched"), (base_dir, "base")):
        if root is None:
            continue
        if not os.path.exists(os.path.join(root, "done")):
            add("fail", f"{label} guest run completed",
                f"no {root}/done: the guest died or timed out{console_death(root)}")

    patched, base = runs(patched_dir) if patched_dir else {}, runs(base_dir)
    for (suite, binary), (cases, problems) in patched.items():
        prefix = f"{suite}/{binary}"
        for p in problems:
            add("fail", f"{prefix}: complete run", p)
        if cases is None:
            continue
        base_cases = (base.get((suite, binary)) or ({}, []))[0] or {}
        for case, (status, why) in cases.items():
            if suite == "perf-test" and not case:
                # perf test exits 0 when no test matches: a typo must not pass
                add("fail", f"perf test: line {binary} of tests/perf-tests.txt", "matched no perf test")
                continue
            name = f"perf test: {case}" if suite == "perf-test" else f"{prefix}{':' if case else ''}{case}"
            if is_own(patched_dir, suite, binary) or status != "fail":
                add(status, name, why)
                continue
            bstatus, bwhy = base_cases.get(case, ("missing", ""))
            if bstatus == "fail":
                cause = KNOWN_CAUSES.get(binary, "")
                add("skip", name, f"fails on the unpatched base kernel too: {bwhy or why}"
                    + (f"; {cause}" if cause else ""))
            else:
                add("fail", name, f"regression: {bstatus} on the base kernel, fails patched: {why}")

    # Our own tests must skip, not fail or pass, on a kernel without the series.
    for (suite, binary), (cases, problems) in base.items():
        if not is_own(base_dir, suite, binary):
            continue
        if suite == "perf-test":
            # perf must keep working on a kernel without the feature
            for case, (status, why) in (cases or {}).items():
                if not case:
                    add("fail", f"base kernel: perf test line {binary} of tests/perf-tests.txt",
                        "matched no perf test")
                    continue
                add("fail" if status == "fail" else "pass",
                    f"base kernel: perf test '{case}' does not fail", why)
            continue
        name = f"base kernel: {suite}/{binary} skips cleanly"
        if cases is None or problems:
            add("fail", name, "; ".join(problems) or "no output")
            continue
        wrong = [f"{c or binary}={s}" for c, (s, _) in cases.items() if s != "skip"]
        add("fail" if wrong else "pass", name,
            ("not skipped: " + ", ".join(wrong)) if wrong else f"{len(cases)} skipped")
    if base_only and not any(is_own(base_dir, *k) for k in base):
        add("fail", "base kernel: own tests ran", "no uevent_* selftest, trace-cmd or example results")
    for key in patched:
        if is_own(patched_dir, *key) and key not in base:
            add("fail", f"base kernel: {key[0]}/{key[1]} skips cleanly", "not run on the base kernel")

    if tsv_prefix is not None:
        for status, name, why in results:
            print(f"{status}\t{tsv_prefix}{name}\t{why}")
        return 1 if any(r[0] == "fail" for r in results) or not results else 0

    counts = {"pass": 0, "fail": 0, "skip": 0}
    for status, name, why in results:
        counts[status] = counts.get(status, 0) + 1
        tag = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[status]
        print(f"{tag}  {name}" + (f"  ({why})" if why else ""))
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] or not results else 0


if __name__ == "__main__":
    sys.exit(main())
