#!/usr/bin/env python3
"""Summarise uevent-bench output: a table of ns/call (min and median over
the rounds) with ratios to the null prctl and to a trace_marker write of
the same payload from the same run, the bars of the fast-path work, a CSV
and a PNG chart.

Usage: bench-report.py RAW.csv [--decode DECODE.csv] [--csv OUT.csv]
                       [--png OUT.png] [--compare EARLIER_RAW.csv]
"""
import argparse
import csv
import statistics
import sys
from collections import defaultdict

ROWS = ["prctl-null", "getppid", "uevent-none", "uevent-task", "uevent-cpu",
        "uevent-4", "marker", "marker-raw", "user-events"]
FLOORS = ("prctl-null", "getppid")


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("--decode")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--compare")
    a = ap.parse_args()

    summ = summarise(load(a.raw))
    before = summarise(load(a.compare)) if a.compare else None
    keys = sorted(summ, key=lambda k: (k[2], ROWS.index(k[0]), k[1]))
    one = min(k[2] for k in keys)

    print("ratios: 'min' columns divide minimums, 'med' columns medians, same run;"
          " x 1-thr: median per call with N threads over 1 thread")
    head = f"{'row':<12} {'size':>5} {'thr':>3} {'min ns':>9} {'med ns':>9} " \
           f"{'x prctl':>8} {'x marker':>8} {'x marker':>8} {'x 1-thr':>8}"
    sub = f"{'':<12} {'':>5} {'':>3} {'':>9} {'':>9} {'min':>8} {'min':>8} {'med':>8} {'med':>8}"
    if before:
        head += f"   {'before: x prctl':>15} {'x marker':>8} {'x marker':>8}"
        sub += f"   {'min':>15} {'min':>8} {'med':>8}"
    print(head)
    print(sub)
    table = []
    for k in keys:
        row, size, thr = k
        if row in FLOORS and size != min(s for r, s, t in keys):
            continue
        mn, med = summ[k]
        xp, xm = ratios(summ, k, 0)
        _, xmm = ratios(summ, k, 1)
        single = summ.get((row, size, one))
        xs = med / single[1] if single and thr != one else None
        line = f"{row:<12} {size:>5} {thr:>3} {mn:>9.0f} {med:>9.0f} " \
               f"{fmt(xp):>8} {fmt(xm):>8} {fmt(xmm):>8} {fmt(xs):>8}"
        bp = bm = bmm = None
        if before and k in before:
            bp, bm = ratios(before, k, 0)
            _, bmm = ratios(before, k, 1)
            line += f"   {fmt(bp):>15} {fmt(bm):>8} {fmt(bmm):>8}"
        print(line)
        table.append([row, size, thr, f"{mn:.1f}", f"{med:.1f}", fmt(xp, "{:.3f}"),
                      fmt(xm, "{:.3f}"), fmt(xmm, "{:.3f}"), fmt(xs, "{:.3f}"),
                      fmt(bp, "{:.3f}"), fmt(bm, "{:.3f}"), fmt(bmm, "{:.3f}")])

    # The bars of the fast-path work, on minimums and on medians of this run.
    print("\nbars (this run; min/min and median/median):")

    def bar(text, key, ref, limit):
        if key not in summ or ref not in summ:
            print(f"  {text}: not measured")
            return
        x0 = summ[key][0] / summ[ref][0]
        x1 = summ[key][1] / summ[ref][1]
        verdict = "holds" if max(x0, x1) <= limit else \
            "FAILS" if min(x0, x1) > limit else "holds on one statistic only"
        print(f"  {text}: min {x0:.2f}, median {x1:.2f} (limit {limit}): {verdict}")

    sizes = sorted({k[1] for k in keys})
    for s in sizes:
        bar(f"uevent-none {s} B / prctl-null", ("uevent-none", s, one),
            ("prctl-null", s, one), 1.15)
    bar("uevent-task 64 B / marker 64 B", ("uevent-task", 64, one), ("marker", 64, one), 0.75)
    bar("uevent-task 4096 B / marker 4096 B", ("uevent-task", 4096, one),
        ("marker", 4096, one), 1.0)
    for row in ("uevent-task", "uevent-cpu", "uevent-4", "marker"):
        for s in sizes:
            many = [k for k in keys if k[0] == row and k[1] == s and k[2] != one]
            for k in many:
                x = summ[k][1] / summ[(row, s, one)][1]
                print(f"  scaling {row} {s} B: {k[2]} threads / 1 thread = {x:.2f}")

    if a.decode:
        print("\ndecode side (perf script on the host, best of 3):")
        rate = {}
        with open(a.decode) as f:
            for r in csv.DictReader(f):
                n, t = int(r["records"]), float(r["seconds"])
                rate[r["file"]] = n / t if t else 0
                print(f"  {r['file']:<8} {n:>7} records {t:>7.2f} s  {rate[r['file']]:>10.0f} records/s")
        if rate.get("samples"):
            print(f"  uevents/samples rate: {rate.get('uevents', 0) / rate['samples']:.2f}")

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["row", "size", "threads", "min_ns", "median_ns", "x_prctl_min",
                        "x_marker_min", "x_marker_median", "x_one_thread_median",
                        "before_x_prctl_min", "before_x_marker_min",
                        "before_x_marker_median"])
            w.writerows(table)
    if a.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("bench-report: no matplotlib (apt-get install python3-matplotlib): no chart",
                  file=sys.stderr)
            return
        thrs = sorted({k[2] for k in keys})
        fig, axes = plt.subplots(1, len(thrs), figsize=(7 * len(thrs), 5), squeeze=False)
        rows = [r for r in ROWS if any(k[0] == r for k in keys)]
        for ax, thr in zip(axes[0], thrs):
            width = 0.8 / len(sizes)
            for i, s in enumerate(sizes):
                # ratio of minimums to trace_marker of the same size and
                # threads, same run: TCG times are not facts, ratios are
                ref = summ.get(("marker", s, thr), (0, 0))[0]
                ys = [summ.get((r, s, thr), (0, 0))[0] / ref if ref else 0 for r in rows]
                ax.bar([j + i * width for j in range(len(rows))], ys, width, label=f"{s} B")
            ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))])
            ax.set_xticklabels(rows, rotation=35, ha="right")
            ax.set_ylabel("cost per call / trace_marker write, same size (min)")
            ax.set_title(f"{thr} thread(s)")
            ax.legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)


if __name__ == "__main__":
    main()
