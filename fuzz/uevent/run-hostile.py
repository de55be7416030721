#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a sanitizer-built perf over hostile perf.data files.

Usage: run-hostile.py PERF GECKO_PY HOSTILE_DIR WORK_DIR
           one TSV line per file and reader: pass|fail, name, reason
       run-hostile.py --mutate SECONDS PERF SEED... WORK_DIR
           mutate the seeds' data sections for SECONDS, run perf script and
           report -D on each; one TSV line, crashing inputs kept in WORK_DIR

The readers, of files and (NAME.pipe, on stdin) of pipes: perf script
--show-uevent-events, perf report -D, perf report --stdio (by dso and
symbol: JIT code loads become maps), perf report --stats, perf script
with a python handler, perf data convert --to-json (whose output must
parse) and gecko.py --save-only (likewise). Each must finish without a
sanitizer report, signal or timeout. Files whose manifest line says the
sentinel shows must be read to their end (exit 0, "carry-on-ok" in the
output); the warnings about uevents on stderr must be as many as the
manifest says (one for any number of invalid uevents), and the number of
invalid uevents (out of how many) in the summary every reader prints at
the end, and in perf report --stats, must be the manifest's (nothing is
said when it is 0).
"""
import json
import os
from concurrent.futures import ThreadPoolExecutor
import random
import re
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SENTINEL = "carry-on-ok"
SAN_RE = re.compile(r"ERROR: AddressSanitizer|runtime error:|"
                    r"ERROR: LeakSanitizer|SUMMARY: UndefinedBehaviorSanitizer")
UEVENT_WARN_RE = re.compile(r"WARNING.*uevent", re.I)
INVALID_SUMMARY_RE = re.compile(r"^(\d+) out of (\d+) uevents were skipped", re.M)
INVALID_STATS_RE = re.compile(r"^\s*UEVENT \(invalid\) events:\s+(\d+)$", re.M)
TIMEOUT = 120

ENV = dict(os.environ,
           ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98",
           PERF_PAGER="cat", PAGER="cat")


def run(cmd):
    """Run cmd; "-i FILE.pipe" becomes "-i -" with the file on stdin."""
    stdin = subprocess.DEVNULL
    i = cmd.index("-i")
    if cmd[i + 1].endswith(".pipe"):
        stdin = open(cmd[i + 1], "rb")
        cmd = cmd[:i + 1] + ["-"] + cmd[i + 2:]
    try:
        p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=ENV, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", ""
    finally:
        if stdin != subprocess.DEVNULL:
            stdin.close()
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def crash_reason(rc, err):
    """Why a run is a crash, or None."""
    if rc is None:
        return f"timeout after {TIMEOUT} s"
    m = SAN_RE.search(err)
    if m:
        line = err[m.start():].splitlines()[0].split(" on address")[0]
        where = ""
        for frame in re.finditer(r"#[0-9]+ 0x[0-9a-f]+ in (\S+) (\S+)",
                                 err[m.start():]):
            if "sanitizer" not in frame.group(2):
                where = f" at {frame.group(1)} {frame.group(2)}"
                break
        return f"sanitizer: {line.strip()[:160]}{where}"
    if rc < 0 or 128 < rc < 128 + 65:
        return f"killed by signal {rc if rc < 0 else rc - 128}"
    return None


def readers(perf, gecko, path, work):
    """(reader, command, output file or None) for one input file."""
    # one output file per input: the checks run side by side
    base = os.path.basename(path)
    json_out = os.path.join(work, base + ".json")
    gecko_out = os.path.join(work, base + ".gecko.json")
    return [
        ("script", [perf, "script", "-i", path, "--show-uevent-events"], None),
        ("report-D", [perf, "report", "-D", "-i", path], None),
        ("report", [perf, "report", "--stdio", "--sort", "dso,sym",
                    "-i", path], None),
        ("stats", [perf, "report", "--stats", "-i", path], None),
        ("python", [perf, "script", "-i", path, "-s",
                    os.path.join(HERE, "handler.py")], None),
        ("json", [perf, "data", "convert", "--force", "--to-json", json_out,
                  "-i", path], json_out),
        ("gecko", [perf, "script", "-i", path, "-s", gecko, "--",
                   "--save-only", gecko_out], gecko_out),
    ]


def check_one(name, reader, cmd, outfile, sentinel, warnings, invalid,
              uevents):
    if outfile and os.path.exists(outfile):
        os.unlink(outfile)
    rc, out, err = run(cmd)
    why = crash_reason(rc, err)
    if why:
        return why
    text = out
    if outfile and rc == 0:
        try:
            with open(outfile, encoding="utf-8") as f:
                text = f.read()
            json.loads(text)
        except (OSError, ValueError) as e:
            return f"output is not valid JSON: {e}"
    if sentinel:
        if rc != 0:
            first = (err.strip().splitlines() or ["no message"])[0]
            return f"exit {rc} before the end: {first[:160]}"
        # perf report shows no uevents: its exit status has to do
        if reader not in ("report", "stats") and SENTINEL not in text:
            return "stopped early: the last uevent is missing"
    warns = [ln for ln in err.splitlines() if UEVENT_WARN_RE.search(ln)]
    if len(warns) != warnings:
        more = f": {warns[0][:160]}" if warns else ""
        return f"{len(warns)} warnings about uevents, expected {warnings}{more}"
    # how many invalid uevents were skipped: every reader says it at the
    # end, but perf report --stats, which says it in its table
    if reader == "stats":
        want = [str(invalid)] if invalid else []
        said = INVALID_STATS_RE.findall(out)
    else:
        want = [(str(invalid), str(uevents))] if invalid else []
        said = INVALID_SUMMARY_RE.findall(err)
    if said != want:
        return f"invalid uevents counted {said}, expected {want}"
    return None


def hostile(perf, gecko, hdir, work):
    os.makedirs(work, exist_ok=True)
    # gecko.py imports perf's python helpers from the source tree
    ENV.setdefault("PERF_EXEC_PATH",
                   os.path.dirname(os.path.dirname(os.path.dirname(
                       os.path.abspath(gecko)))))
    with open(os.path.join(hdir, "manifest.tsv")) as f:
        rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    checks = []
    for fname, sentinel, warnings, invalid, uevents in rows:
        path = os.path.join(hdir, fname)
        for reader, cmd, outfile in readers(perf, gecko, path, work):
            checks.append((f"hostile {fname} {reader}", reader, cmd, outfile,
                           sentinel == "1", int(warnings), int(invalid),
                           int(uevents)))
    # each check is one perf process: as many at once as this process may
    # use CPUs, at most 4 (ASan perfs are big), reported in manifest order
    workers = min(4, len(os.sched_getaffinity(0)))
    nfail = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for args, why in zip(checks, pool.map(lambda a: check_one(*a), checks)):
            if why:
                nfail += 1
                print(f"fail\t{args[0]}\t{why}", flush=True)
            else:
                print(f"pass\t{args[0]}", flush=True)
    return nfail


# Offsets of the fields of a uevent record worth aiming at: header.size,
# version, size, the type and the unaligned u64 fields after it
UEVENT_FIELDS = [(6, "H"), (8, "I"), (12, "I"), (16, "I"), (20, "Q"),
                 (28, "Q")]
INTERESTING = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 20, 23, 24, 0x7f, 0x80,
               0xff, 0xfff8, 0xffff, 0x7fffffff, 0x80000000, 0xfffffff8,
               0xffffffff, 0x80000005, 0xffff0000, 0xffff0001]


def data_section(buf):
    order = "<" if buf[:8] == b"PERFILE2" else ">"
    off, size = struct.unpack_from(order + "QQ", buf, 40)
    return order, off, size


def uevent_offsets(buf, order, off, size):
    pos, found = off, []
    while pos + 8 <= off + size:
        rtype, _, rsize = struct.unpack_from(order + "IHH", buf, pos)
        if rsize < 8:
            break
        if rtype == 23:
            found.append((pos, rsize))
        pos += rsize
    return found


def mutate(rng, buf):
    """A few mutations, or in one file of two one per 50 uevents: perf
    carries on past invalid uevents, so one run can try many."""
    buf = bytearray(buf)
    order, off, size = data_section(buf)
    ues = uevent_offsets(buf, order, off, size)
    n = rng.randint(1, 4)
    if rng.random() < 0.5:
        n += len(ues) // 50
    for _ in range(n):
        choice = rng.random()
        if ues and choice < 0.6:
            pos, rsize = rng.choice(ues)
            foff, fmt = rng.choice(UEVENT_FIELDS)
            if foff + struct.calcsize(fmt) > rsize:
                continue
            bits = 8 * struct.calcsize(fmt)
            if rng.random() < 0.5:
                val = rng.choice(INTERESTING) & ((1 << bits) - 1)
            else:
                old = struct.unpack_from(order + fmt, buf, pos + foff)[0]
                val = (old + rng.randint(-16, 16)) & ((1 << bits) - 1)
            struct.pack_into(order + fmt, buf, pos + foff, val)
        elif ues and choice < 0.8:
            pos, rsize = rng.choice(ues)
            i = pos + rng.randrange(rsize)
            buf[i] = rng.randrange(256)
        else:
            i = off + rng.randrange(max(size, 1))
            if i < len(buf):
                buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf), n


def mutate_run(seconds, perf, seeds, work):
    os.makedirs(work, exist_ok=True)
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "1")))
    bufs = []
    for s in seeds:
        with open(s, "rb") as f:
            bufs.append(f.read())
    path = os.path.join(work, "mutated.data")
    start = time.monotonic()
    execs = crashes = files = mutations = 0
    while time.monotonic() - start < seconds:
        data, n = mutate(rng, rng.choice(bufs))
        mutations += n
        with open(path, "wb") as f:
            f.write(data)
        files += 1
        json_out = os.path.join(work, "mutated.json")
        runs = [["script", "--show-uevent-events"], ["report", "-D"]]
        if files % 4 == 0:
            # the exporters too, now and then: they start slower
            runs += [["script", "-s", os.path.join(HERE, "handler.py")],
                     ["data", "convert", "--force", "--to-json", json_out]]
        for args in runs:
            rc, _, err = run([perf] + args + ["-i", path])
            execs += 1
            why = crash_reason(rc, err)
            if not why and args[0] == "data" and rc == 0:
                try:
                    with open(json_out, encoding="utf-8") as f:
                        json.load(f)
                except (OSError, ValueError) as e:
                    why = f"invalid JSON: {e}"
            if why:
                crashes += 1
                keep = os.path.join(work, f"crash-{crashes}.data")
                with open(keep, "wb") as f:
                    f.write(data)
                print(f"run-hostile.py: {keep}: perf {args[0]}: {why}",
                      file=sys.stderr)
    took = time.monotonic() - start
    name = "mutated perf.data files under ASan+UBSan perf"
    stats = (f"{files} files ({mutations} mutations), {execs} runs in {took:.0f} s, "
             f"{execs / took:.1f} runs/s, {crashes} crashes")
    print(f"run-hostile.py: {stats}", file=sys.stderr)
    if crashes:
        print(f"fail\t{name}\t{stats}, inputs in {work}")
    else:
        print(f"pass\t{name}\t{stats}")
    return crashes


def main(argv):
    if len(argv) >= 5 and argv[1] == "--mutate":
        return 1 if mutate_run(float(argv[2]), argv[3], argv[4:-1],
                               argv[-1]) else 0
    if len(argv) == 5:
        return 1 if hostile(*argv[1:]) else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
