#!/usr/bin/env python3
"""Summarise uevent-bench output.

Primary view: instructions per call, from boots under QEMU's -icount
shift=0 (guest time advances one nanosecond per guest instruction, so the
benchmark's ns per call are instructions per call): the minimum over the
rounds of each boot, one column per boot, the largest relative difference
between boots per row, ratios to the null prctl and to trace_marker, and the
bars of the fast-path work.  Second view: wall-clock ns per call of an
ordinary TCG boot (min and median over the rounds, ratios within the run).
Also a CSV and a chart of the instruction counts.

Usage: bench-report.py [--icount RAW.csv]... [--wall RAW.csv]
                       [--decode DECODE.csv] [--csv OUT.csv] [--png OUT.png]
                       [--svg OUT.svg] [--compare EARLIER_WALL_RAW.csv]
Exit status: 0; 3 when two icount boots differ by more than 1% on a row;
1 when the icount boots did not count instructions (the loop check).
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

ROWS = ["prctl-null", "getppid", "uevent-none", "uevent-other", "uevent-task",
        "uevent-cpu", "uevent-4", "hdr-string", "hdr-range", "hdr-counter", "hdr-other", "hdr-task",
        "hdr-off-string", "hdr-off-range", "hdr-off-counter", "marker", "marker-raw",
        "user-events", "fork", "fork-inherit", "fork-uevent", "loop"]
# <perf/uevent.h>'s rows with nobody observing the thread, and compiled out
HDR_NONE = ("hdr-string", "hdr-range", "hdr-counter", "hdr-other")
HDR_OFF = ("hdr-off-string", "hdr-off-range", "hdr-off-counter", "hdr-off-string")
# rows whose cost has no payload: measured once, shown once
FLOORS = ("prctl-null", "getppid", "fork", "fork-inherit", "fork-uevent", "loop") + HDR_NONE + HDR_OFF
# rows shown without ratios to the null prctl and to trace_marker
NO_RATIO = ("fork", "fork-inherit", "fork-uevent", "loop")
LOOP_INSNS = 2000       # uevent-bench's loop row: 1000 x (dec; jnz)
AGREE = 0.01            # two icount boots must agree within 1%

CAVEAT = ("caveat: QEMU counts each iteration of a rep-prefixed string instruction as one instruction\n"
          "  (a rep movsb of N bytes counts N, a rep movsq N/8), which a CPU with ERMS/FSRM does not pay:\n"
          "  at 8-64 bytes this moves a row by a few percent, at 4096 bytes by up to half, so compare\n"
          "  large-payload rows like with like only (a uevent against a uevent, not against trace_marker).")


def load(path):
    """{(row, size, threads): [ns, ...]}; the floors are size-independent."""
    runs = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            runs[(r["row"], int(r["size"]), int(r["threads"]))].append(
                float(r["ns_per_call"]))
    return runs


def summarise(runs):
    """{(row, size, threads): (min, median)} with floors at every size."""
    sizes = sorted({k[1] for k in runs if k[0] not in FLOORS})
    out = {}
    for (row, size, thr), v in runs.items():
        stat = (min(v), statistics.median(v))
        if row in FLOORS:
            for s in sizes or [size]:
                out[(row, s, thr)] = stat
        else:
            out[(row, size, thr)] = stat
    return out


def ratios(summ, key, i=1):
    """Over the null prctl's and trace_marker's, same run: i=0 mins, 1 medians."""
    row, size, thr = key
    x = summ[key][i]
    p = summ.get(("prctl-null", size, thr))
    m = summ.get(("marker", size, thr))
    return (x / p[i] if p else None, x / m[i] if m else None)


def fmt(x, spec="{:.2f}"):
    return "-" if x is None else spec.format(x)


def kernel_of(raw):
    """The first line of kernel.txt next to a raw.csv (guest-bench.sh writes it)."""
    path = os.path.join(os.path.dirname(raw), "kernel.txt")
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return "unknown"


def rounds_of(runs):
    return max((len(v) for v in runs.values()), default=0)


def icount_view(paths, args):
    """Print the instruction table; return (exit status, rows for the CSV, boot 1's mins)."""
    boots = [summarise(load(p)) for p in paths]
    nr_rounds = min(rounds_of(load(p)) for p in paths)
    keys = sorted({k for b in boots for k in b if k[2] == 1},
                  key=lambda k: (ROWS.index(k[0]) if k[0] in ROWS else 99, k[1]))
    first = min((k[1] for k in keys), default=0)
    keys = [k for k in keys if k[0] not in FLOORS or k[1] == first]
    mins = [{k: v[0] for k, v in b.items()} for b in boots]
    status = 0

    print("== instructions per call (the primary figures) ==")
    print("QEMU -icount shift=0,sleep=off: guest time advances 1 ns per guest instruction executed, so the")
    print("benchmark's ns per call are guest instructions per call (kernel and user space, every vCPU).")
    print(f"One thread; a row's figure is the minimum of its {nr_rounds} rounds"
          + (f" of {args.icount_calls} calls" if args.icount_calls else "")
          + " (fork rows: 1/100 of the calls),")
    if args.icount_split:
        print(f"a round's the median of chunks of about {args.icount_split} instructions: a timer tick lands")
        print("every few million instructions, in every round but rarely in a chunk, and inflates what it hits.")
    else:
        print("since an interrupt landing in a round inflates it.")
    for i, p in enumerate(paths):
        print(f"boot {i + 1}: kernel {kernel_of(p)}")
    loop = [m.get(("loop", first, 1)) for m in mins]
    if all(x is not None for x in loop):
        ok = all(LOOP_INSNS <= x <= LOOP_INSNS * 1.02 for x in loop)
        print(f"check: a loop of {LOOP_INSNS // 2} x (dec; jnz) = "
              + ", ".join(f"{x:.1f}" for x in loop)
              + f" per call ({LOOP_INSNS} expected, plus the call): "
              + ("guest time counts instructions" if ok else "NOT INSTRUCTIONS: was -icount shift=0 in effect?"))
        if not ok:
            status = 1
    else:
        print("check: no loop row (not x86-64?): cannot confirm that guest time counts instructions")
    print(CAVEAT)
    print()

    cols = "".join(f"{'boot ' + str(i + 1):>10}" for i in range(len(paths)))
    print(f"{'row':<15} {'size':>5}{cols} {'max diff':>9} {'x prctl':>8} {'x marker':>9}")
    table = []
    worst = (-1.0, None)
    for k in keys:
        row, size, _ = k
        vals = [m.get(k) for m in mins]
        got = [v for v in vals if v is not None]
        diff = (max(got) - min(got)) / min(got) if len(got) > 1 and min(got) > 0 else None
        if diff is not None and diff > worst[0]:
            worst = (diff, k)
        b = mins[0]
        x = b.get(k)
        p = b.get(("prctl-null", first, 1))
        mk = b.get(("marker", size, 1))
        xp = x / p if x is not None and p and row not in NO_RATIO else None
        xm = x / mk if x is not None and mk and row not in FLOORS else None
        shown = "-" if row in FLOORS else str(size)
        print(f"{row:<15} {shown:>5}"
              + "".join(f"{fmt(v, '{:.0f}'):>10}" for v in vals)
              + f" {fmt(diff * 100 if diff is not None else None, '{:.2f}%'):>9}"
              + f" {fmt(xp):>8} {fmt(xm):>9}")
        table.append((k, vals, diff))
    if len(paths) > 1:
        if worst[1] is None:
            print("\nmax difference between boots: nothing measured twice")
        else:
            verdict = f"within {AGREE:.0%}" if worst[0] <= AGREE else f"MORE THAN {AGREE:.0%}"
            where = worst[1][0] if worst[1][0] in FLOORS else f"{worst[1][0]} {worst[1][1]} B"
            print(f"\nmax difference between boots: {worst[0]:.2%} ({where}): {verdict}")
            if worst[0] > AGREE and status == 0:
                status = 3
        missing = [k for k, vals, _ in table if any(v is None for v in vals)]
        if missing:
            print("measured in some boots only: " + ", ".join(f"{r} {s}" for r, s, _ in missing))

    b = mins[0]
    print("\nderived (boot 1):")

    def delta(text, a, c, unit):
        if a in b and c in b:
            print(f"  {text}: {b[a] - b[c]:+.0f} instructions {unit} ({b[a] / b[c]:.3f}x)")
    delta("fork-uevent - fork-inherit (inheriting a uevent listener)", ("fork-uevent", first, 1),
          ("fork-inherit", first, 1), "per fork + exit + wait")
    delta("fork-inherit - fork (inheriting a listener at all)", ("fork-inherit", first, 1),
          ("fork", first, 1), "per fork + exit + wait")
    sizes = sorted({k[1] for k in keys if k[0] not in FLOORS})
    for s in sizes:
        delta(f"uevent-other - uevent-none, {s} B (a listener elsewhere)", ("uevent-other", s, 1),
              ("uevent-none", s, 1), "per call")
    for s in sizes:
        delta(f"uevent-none {s} B - prctl-null", ("uevent-none", s, 1), ("prctl-null", first, 1),
              "per call")
    for row, off in zip(HDR_NONE, HDR_OFF):
        delta(f"{row} - {off} (the header's test of the enable word)", (row, first, 1), (off, first, 1),
              "per call")
    for s in sizes:
        delta(f"hdr-task - uevent-task, {s} B (the header over the raw prctl)", ("hdr-task", s, 1),
              ("uevent-task", s, 1), "per call")

    print("\nbars, in instructions (boot 1):")

    def bar(text, key, ref, limit, refval=None):
        if key not in b or (refval is None and ref not in b):
            print(f"  {text}: not measured")
            return
        x = b[key] / (b[ref] if refval is None else refval)
        print(f"  {text}: {x:.3f} (limit {limit}): {'holds' if x <= limit else 'FAILS'}")

    def most(key, limit, whose):
        # an absolute bar: at most an earlier version's instructions
        if key in b:
            print(f"  {key[0]} {key[1]} B: {b[key]:.0f} instructions (limit {limit}, {whose}'s): "
                  f"{'holds' if b[key] <= limit else 'FAILS'}")
    for s in sizes:
        bar(f"uevent-none {s} B / prctl-null", ("uevent-none", s, 1), ("prctl-null", first, 1), 1.05)
    # v7's figures: the per-CPU buffer of v8 must not cost more than its kmalloc
    most(("uevent-task", 512, 1), 2290, "v7")
    most(("uevent-task", 4096, 1), 7280, "v7")
    bar("uevent-task 64 B / marker 64 B", ("uevent-task", 64, 1), ("marker", 64, 1), 1.0)
    bar("uevent-task 4096 B / marker 4096 B (rep-string caveat)", ("uevent-task", 4096, 1),
        ("marker", 4096, 1), 1.0)
    # Nobody listening, per marker: what a call adds to the benchmark's own
    # cost per call (its loop, the timing, the switch: the loop row less its
    # 2000 instructions), against the null prctl's instructions less the
    # same. The hdr-off rows compile the header out; hdr-range is a push and
    # a pop, two markers.
    markers = {"hdr-string": 1, "hdr-range": 2, "hdr-counter": 1, "hdr-other": 1,
               "hdr-off-string": 1, "hdr-off-range": 2, "hdr-off-counter": 1}
    loop_key, null_key = ("loop", first, 1), ("prctl-null", first, 1)
    if loop_key in b and null_key in b:
        harness = b[loop_key] - LOOP_INSNS
        null = b[null_key] - harness
        print(f"  (the benchmark's own cost per call: {harness:.1f} instructions; "
              f"a null prctl: {null:.1f} more)")
        for row in dict.fromkeys(HDR_NONE + HDR_OFF):
            if (row, first, 1) not in b:
                print(f"  {row}: not measured")
                continue
            per = (b[(row, first, 1)] - harness) / markers[row]
            x = per / null
            print(f"  {row}, per marker / null prctl (nobody listening): {per:.1f} instructions, "
                  f"{x:.3f} (limit 0.05): {'holds' if x <= 0.05 else 'FAILS'}")
    else:
        print("  header rows, nobody listening: not measured (no loop or prctl-null row)")
    bar("hdr-task 64 B / uevent-task 64 B (the header's overhead with a listener)",
        ("hdr-task", 64, 1), ("uevent-task", 64, 1), 1.10)
    most(("hdr-task", 64, 1), 1404, "v6")
    if args.base:
        base = {k: v[0] for k, v in summarise(load(args.base)).items()}
        for row in ("marker", "marker-raw"):
            for s in sorted({k[1] for k in base if k[0] == row}):
                if (row, s, 1) in b and (row, s, 1) in base:
                    bar(f"{row} {s} B / the base kernel's (no uevent listener)", (row, s, 1), None, 1.005,
                        base[(row, s, 1)])
    return status, table, b


def wall_view(path, args):
    """The wall-clock table (second view); returns the rows for the CSV."""
    summ = summarise(load(path))
    before = summarise(load(args.compare)) if args.compare else None
    keys = sorted(summ, key=lambda k: (k[2], ROWS.index(k[0]) if k[0] in ROWS else 99, k[1]))
    one = min(k[2] for k in keys)
    first = min(k[1] for k in keys)

    print("\n== wall-clock ns per call under TCG (the second view) ==")
    print("An ordinary boot (no icount): QEMU's TCG is not a CPU, its times move between boots and reward")
    print("code that only helps the emulator; only ratios within this run mean anything.")
    print(f"boot: kernel {kernel_of(path)}; {rounds_of(load(path))} rounds per row")
    print("ratios: 'min' columns divide minimums, 'med' columns medians, same run;"
          " x 1-thr: median per call with N threads over 1 thread")
    head = f"{'row':<15} {'size':>5} {'thr':>3} {'min ns':>9} {'med ns':>9} " \
           f"{'x prctl':>8} {'x marker':>8} {'x marker':>8} {'x 1-thr':>8}"
    sub = f"{'':<15} {'':>5} {'':>3} {'':>9} {'':>9} {'min':>8} {'min':>8} {'med':>8} {'med':>8}"
    if before:
        head += f"   {'before: x prctl':>15} {'x marker':>8} {'x marker':>8}"
        sub += f"   {'min':>15} {'min':>8} {'med':>8}"
    print(head)
    print(sub)
    table = {}
    for k in keys:
        row, size, thr = k
        if row in FLOORS and size != first:
            continue
        mn, med = summ[k]
        xp, xm = ratios(summ, k, 0)
        _, xmm = ratios(summ, k, 1)
        if row in NO_RATIO:
            xp = xm = xmm = None
        elif row in FLOORS:
            xm = xmm = None
        single = summ.get((row, size, one))
        xs = med / single[1] if single and thr != one else None
        shown = "-" if row in FLOORS else str(size)
        line = f"{row:<15} {shown:>5} {thr:>3} {mn:>9.0f} {med:>9.0f} " \
               f"{fmt(xp):>8} {fmt(xm):>8} {fmt(xmm):>8} {fmt(xs):>8}"
        bp = bm = bmm = None
        if before and k in before:
            bp, bm = ratios(before, k, 0)
            _, bmm = ratios(before, k, 1)
            line += f"   {fmt(bp):>15} {fmt(bm):>8} {fmt(bmm):>8}"
        print(line)
        table[k] = [f"{mn:.1f}", f"{med:.1f}", fmt(xp, "{:.3f}"), fmt(xm, "{:.3f}"),
                    fmt(xmm, "{:.3f}"), fmt(xs, "{:.3f}"), fmt(bp, "{:.3f}"),
                    fmt(bm, "{:.3f}"), fmt(bmm, "{:.3f}")]

    print("\nwall-clock bars (second view; min/min and median/median):")

    def bar(text, key, ref, limit):
        if key not in summ or ref not in summ:
            print(f"  {text}: not measured")
            return
        x0 = summ[key][0] / summ[ref][0]
        x1 = summ[key][1] / summ[ref][1]
        verdict = "holds" if max(x0, x1) <= limit else \
            "FAILS" if min(x0, x1) > limit else "holds on one statistic only"
        print(f"  {text}: min {x0:.2f}, median {x1:.2f} (limit {limit}): {verdict}")

    sizes = sorted({k[1] for k in keys if k[0] not in FLOORS})
    for s in sizes:
        bar(f"uevent-none {s} B / prctl-null", ("uevent-none", s, one),
            ("prctl-null", first, one), 1.15)
    bar("uevent-task 64 B / marker 64 B", ("uevent-task", 64, one), ("marker", 64, one), 0.75)
    bar("uevent-task 4096 B / marker 4096 B", ("uevent-task", 4096, one),
        ("marker", 4096, one), 1.0)
    for row in ("uevent-task", "uevent-cpu", "uevent-4", "marker", "fork-uevent"):
        for s in sizes if row not in FLOORS else [first]:
            for k in [k for k in keys if k[0] == row and k[1] == s and k[2] != one]:
                x = summ[k][1] / summ[(row, s, one)][1]
                what = row if row in FLOORS else f"{row} {s} B"
                print(f"  scaling {what}: {k[2]} threads / 1 thread = {x:.2f}")
    return table


def chart(table, paths, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report: no matplotlib (apt-get install python3-matplotlib): no chart",
              file=sys.stderr)
        return
    b = {k: vals[0] for k, vals, _ in table if vals[0] is not None}
    rows = [r for r in ROWS if r not in NO_RATIO and any(k[0] == r for k in b)]
    sizes = sorted({k[1] for k in b if k[0] not in FLOORS})
    first = min(k[1] for k in b)
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / max(len(sizes), 1)
    for i, s in enumerate(sizes):
        ys = [b.get((r, first if r in FLOORS else s, 1), 0) for r in rows]
        ax.bar([j + i * width for j in range(len(rows))], ys, width, label=f"{s} B")
    ax.set_yscale("log")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))])
    ax.set_xticklabels(rows, rotation=30, ha="right")
    ax.set_ylabel("guest instructions per call (QEMU -icount shift=0, min)")
    ax.set_title(f"instructions per call, one thread, boot 1 of {len(paths)}: {kernel_of(paths[0])[:60]}\n"
                 "rep-string instructions count once per iteration: compare 4096 B rows like with like",
                 fontsize=9)
    ax.grid(axis="y", which="both", linewidth=0.3)
    ax.legend(title="payload")
    fig.tight_layout()
    for o in out:
        fig.savefig(o, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--icount", action="append", default=[],
                    help="raw.csv of a boot under -icount shift=0 (repeat per boot)")
    ap.add_argument("--icount-calls", help="calls per round in the icount boots (for the header)")
    ap.add_argument("--icount-split", help="uevent-bench --split of the icount boots (for the header)")
    ap.add_argument("--wall", help="raw.csv of an ordinary boot")
    ap.add_argument("--decode")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--svg")
    ap.add_argument("--compare")
    ap.add_argument("--base", help="raw.csv of an icount boot of the base kernel (marker rows)")
    a = ap.parse_args()
    if not a.icount and not a.wall:
        ap.error("nothing to report: give --icount and/or --wall")

    status, itable, wtable = 0, [], {}
    if a.icount:
        status, itable, _ = icount_view(a.icount, a)
    if a.wall:
        wtable = wall_view(a.wall, a)

    if a.decode:
        print("\ndecode side (perf script on the host, best of 3; wall-clock):")
        rate = {}
        with open(a.decode) as f:
            for r in csv.DictReader(f):
                n, t = int(r["records"]), float(r["seconds"])
                rate[r["file"]] = n / t if t else 0
                print(f"  {r['file']:<8} {n:>7} records {t:>7.2f} s  {rate[r['file']]:>10.0f} records/s")
        if rate.get("samples"):
            print(f"  uevents/samples rate: {rate.get('uevents', 0) / rate['samples']:.2f}")

    if a.csv:
        nb = len(a.icount)
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["row", "size", "threads"]
                       + [f"insn_boot{i + 1}" for i in range(nb)] + ["insn_max_diff"]
                       + ["wall_min_ns", "wall_median_ns", "wall_x_prctl_min", "wall_x_marker_min",
                          "wall_x_marker_median", "wall_x_one_thread_median",
                          "before_x_prctl_min", "before_x_marker_min", "before_x_marker_median"])
            seen = set()
            for k, vals, diff in itable:
                seen.add(k)
                w.writerow([k[0], k[1], k[2]] + [fmt(v, "{:.1f}") for v in vals]
                           + [fmt(diff, "{:.5f}")] + wtable.get(k, ["-"] * 9))
            for k, cols in wtable.items():
                if k not in seen:
                    w.writerow([k[0], k[1], k[2]] + ["-"] * (nb + 1) + cols)
    out = [o for o in (a.png, a.svg) if o]
    if out and itable:
        chart(itable, a.icount, out)
    return status


if __name__ == "__main__":
    sys.exit(main())
