#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write hostile perf.data files around crafted PERF_RECORD_UEVENT records.

Usage: gen-hostile.py OUTDIR
       gen-hostile.py --seeds DIR [REAL.data...]   (the fuzzer's seeds)

Each case is written four times: NAME.data in little-endian (this host's
order) and NAME-be.data in big-endian, which perf reads through its swap
path, and both again as NAME.pipe and NAME-be.pipe, in the format perf
writes to a pipe, to be read from stdin.
Every file has one attr (cpu-clock, sample_id_all, TID|TIME|CPU), a COMM
record, a sample, the case's records and, unless the case breaks the
stream itself, a valid STRING uevent "carry-on-ok" last: a reader that
carries on after the hostile records must print it.

OUTDIR/manifest.tsv lists, per file: name, whether the sentinel must show
(1/0), how many warnings about uevents perf must print: one for any
number of invalid uevents, but one per record for records too small to be
a uevent, which perf's reader rejects before it sees them as uevents; and
how many uevents perf must count as invalid (unknown version or size) in
its summary at the end and in perf report --stats, and out of how many.
"""
import os
import struct
import sys

PERF_RECORD_MMAP = 1
PERF_RECORD_COMM = 3
PERF_RECORD_SAMPLE = 9
PERF_RECORD_UEVENT = 23
MISC_USER = 2

STRING, RANGE_BEGIN, RANGE_END, COUNTER, JIT_CODE_LOAD = 1, 2, 3, 4, 5
PRIVATE = 0x80000000
TRACE_MARKER = 0xffff0000			# the first of the kernel's types

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_CPU = 0x1, 0x2, 0x4, 0x80
SAMPLE_TYPE = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU
ATTR_SIZE = 136				# PERF_ATTR_SIZE_VER8
PID = 4242
SENTINEL = b"carry-on-ok"


def revbits(b):
    return int(f"{b:08b}"[::-1], 2)


class Writer:
    """Builds one perf.data file in the given byte order ('<' or '>')."""

    def __init__(self, order):
        self.o = order
        self.records = []
        self.time = 1_000_000_000
        self.nr_uevents = 0		# as perf counts them: 16 bytes or more

    def p(self, fmt, *vals):
        return struct.pack(self.o + fmt, *vals)

    def tick(self):
        self.time += 1000
        return self.time

    def sample_id(self, pid=PID, tid=PID, time=None, cpu=0):
        return (self.p("II", pid & 0xffffffff, tid & 0xffffffff) +
                self.p("Q", self.tick() if time is None else time) +
                self.p("II", cpu, 0))

    def raw(self, rtype, body, size=None, misc=0):
        """A record: header.size is the bytes written unless size says."""
        hsize = 8 + len(body) if size is None else size
        if rtype == PERF_RECORD_UEVENT and (hsize & 0xffff) >= 16:
            self.nr_uevents += 1
        self.records.append(self.p("IHH", rtype, misc, hsize & 0xffff) + body)

    def comm(self, name=b"hostile"):
        name += b"\0" * (8 - len(name) % 8)
        self.raw(PERF_RECORD_COMM, self.p("II", PID, PID) + name +
                 self.sample_id())

    def sample(self, ip=0x401000, pid=PID):
        self.raw(PERF_RECORD_SAMPLE, self.p("Q", ip) +
                 self.p("II", pid, pid) + self.p("Q", self.tick()) +
                 self.p("II", 0, 0), misc=MISC_USER)

    def mmap(self, start, length, name=b"/tmp/jit-heap"):
        name += b"\0" * (8 - len(name) % 8)
        self.raw(PERF_RECORD_MMAP, self.p("IIQQQ", PID, PID, start, length, 0) +
                 name + self.sample_id(), misc=MISC_USER)

    def jit(self, addr, size, name=b"jitted\0", **kw):
        self.uevent(JIT_CODE_LOAD, name, fields=[addr, size], **kw)

    def uevent(self, utype, data=b"", fields=(), size=None, version=1,
               sid=True, pad=True, hsize=None, **sid_kw):
        """A uevent: data[] is the u32 type, then the payload: the u64
        fields, in the file's order and unaligned, and data. size is the
        record's size field, by default that of data[]."""
        payload = self.p("I", utype & 0xffffffff)
        payload += b"".join(self.p("Q", f & (2**64 - 1)) for f in fields)
        payload += data
        if size is None:
            size = len(payload)
        if pad:
            payload += b"\0" * (-len(payload) % 8)
        body = self.p("II", version, size & 0xffffffff)
        body += payload
        if sid:
            body += self.sample_id(**sid_kw)
        self.raw(PERF_RECORD_UEVENT, body, size=hsize, misc=MISC_USER)

    def string(self, text, **kw):
        self.uevent(STRING, text + b"\0", **kw)

    def marker(self, text, **kw):
        """trace_marker text, as the kernel writes it: no NUL"""
        self.uevent(TRACE_MARKER, text, **kw)

    def attr(self):
        attr = bytearray(ATTR_SIZE)
        struct.pack_into(self.o + "IIQQQ", attr, 0, 1, ATTR_SIZE, 0,
                         1_000_000, SAMPLE_TYPE)
        # disabled, sample_id_all, uevent: bitfields start at offset 40
        flags = (1 << 0) | (1 << 18) | (1 << 40)
        fb = bytearray(struct.pack("<Q", flags))
        if self.o == ">":
            # big-endian bitfields: first field in the top bit of byte 0
            fb = bytearray(revbits(b) for b in fb)
        attr[40:48] = fb
        return bytes(attr)

    def write_pipe(self, path):
        """The same records as perf writes them to a pipe: the attr in a
        PERF_RECORD_HEADER_ATTR, no features."""
        attr = self.p("IHH", 64, 0, 8 + ATTR_SIZE + 8) + self.attr()
        header = (b"PERFILE2" if self.o == "<" else b"2ELIFREP")
        with open(path, "wb") as f:
            f.write(header + self.p("Q", 16) + attr + self.p("Q", 1) +
                    b"".join(self.records))

    def write(self, path, data_cut=0, data_extra=0):
        attr = self.attr()
        data = b"".join(self.records)
        hdr_size, fattr_size = 104, ATTR_SIZE + 16
        attrs_off = hdr_size
        ids_off = attrs_off + fattr_size
        data_off = ids_off + 8
        data_size = len(data) - data_cut + data_extra
        fattr = attr + self.p("QQ", ids_off, 8)
        header = (b"PERFILE2" if self.o == "<" else b"2ELIFREP")
        header += self.p("QQQQQQQQ", hdr_size, fattr_size, attrs_off,
                         fattr_size, data_off, data_size, 0, 0)
        # two features, HEADER_HOSTNAME (bit 3: how perf tells the size
        # of a swapped bitmap's words) and HEADER_NRCPUS (bit 7): their
        # section table follows the data section, then their contents
        header += self.p("QQQQ", (1 << 3) | (1 << 7), 0, 0, 0)
        hostname = self.p("I", 64) + b"hostile".ljust(64, b"\0")
        feat_off = data_off + data_size + 32
        feats = (self.p("QQ", feat_off, len(hostname)) +
                 self.p("QQ", feat_off + len(hostname), 8) +
                 hostname + self.p("II", 2, 2))
        with open(path, "wb") as f:
            f.write(header + fattr + self.p("Q", 1) + data[:data_size] +
                    feats)


# Each case: (name, builder, sentinel shown, warnings, invalid uevents)
CASES = []


def case(name, sentinel=True, warnings=0, invalid=0):
    def reg(fn):
        CASES.append((name, fn, sentinel, warnings, invalid))
        return fn
    return reg


@case("valid-all")
def _valid(w):
    w.string(b"hello")
    w.uevent(RANGE_BEGIN, b"phase\0", fields=[1])
    w.uevent(COUNTER, b"frames\0", fields=[-5])
    w.uevent(RANGE_END, b"phase\0", fields=[1])
    w.uevent(JIT_CODE_LOAD, b"jitted_fn\0", fields=[0x7f0000001000, 64])
    w.uevent(PRIVATE + 7, bytes(range(100)))
    w.uevent(0, b"reserved")
    w.uevent(6, b"future type")
    w.uevent(STRING, b"")
    w.marker(b"B|4242|frame")
    w.marker(b"C|4242|fps|-60")
    w.marker(b"E|4242")
    w.uevent(TRACE_MARKER + 1, b"a kernel type perf does not know")
    w.uevent(0x7fffffff, b"the last well-known type")


@case("size-gt-record", warnings=1, invalid=1)
def _size_gt(w):
    w.uevent(STRING, b"short\0\0\0", size=100)


@case("size-huge", warnings=1, invalid=3)
def _size_huge(w):
    w.uevent(STRING, b"x" * 16, size=0xffffffff)
    # PERF_ALIGN(size, 8) wraps to 0 in 32 bits
    w.uevent(RANGE_BEGIN, b"", fields=[1], size=0xfffffff9)
    w.uevent(JIT_CODE_LOAD, b"", fields=[1, 2], size=0x80000000)


@case("size-lt-record", warnings=1, invalid=3)
def _size_lt(w):
    w.uevent(STRING, b"longer text than size says\0", size=2)
    w.uevent(JIT_CODE_LOAD, b"name\0", fields=[1, 2], size=0)
    # no room for the type: size 3, and 0 with nothing after it
    w.uevent(STRING, b"", size=3)


@case("version-unknown", warnings=1, invalid=4)
def _version(w):
    w.string(b"v0", version=0)
    w.string(b"v2", version=2)
    w.string(b"vmax", version=0xffffffff)
    # a future version with a larger fixed part: size means something else
    w.uevent(STRING, b"y" * 40, size=8, version=2)


@case("truncated-fields")
def _truncated(w):
    w.uevent(RANGE_BEGIN, b"\1\2\3\4")		# id needs 8 bytes
    w.uevent(RANGE_END, b"\1\2\3\4\5\6\7")
    w.uevent(COUNTER, b"")
    w.uevent(JIT_CODE_LOAD, b"\0" * 12)		# addr + size need 16


@case("string-no-nul")
def _no_nul(w):
    w.uevent(STRING, b"A" * 16)			# no padding, no NUL
    w.uevent(RANGE_BEGIN, b"B" * 8, fields=[9])
    w.uevent(RANGE_END, b"C" * 8, fields=[9])
    w.uevent(COUNTER, b"D" * 24, fields=[3])
    w.uevent(JIT_CODE_LOAD, b"E" * 8, fields=[0x1000, 0x10])


@case("string-hostile-bytes")
def _bytes(w):
    w.string(b"\x1b[2J\x1b]0;pwned\x07 cleared")
    w.string(b"fake\nuevent-app 1 0.0: PERF_RECORD_UEVENT STRING: forged")
    w.string(bytes(range(1, 256)))
    w.string(b"\xc0\xaf overlong \xed\xa0\x80 surrogate \xf4\x90\x80\x80 "
             b"too big \xe2\x82 cut")
    w.string(b"quote\" backslash\\ tab\t del\x7f")
    w.uevent(RANGE_BEGIN, b"\xff\xfe\n\r\0", fields=[5])
    w.uevent(RANGE_END, b"\xff\xfe\n\r\0", fields=[5])
    w.string(b"%s%s%n%x")


@case("range-unmatched")
def _ranges(w):
    w.uevent(RANGE_END, b"never begun\0", fields=[77])
    w.uevent(RANGE_BEGIN, b"twice\0", fields=[1])
    w.uevent(RANGE_BEGIN, b"twice again\0", fields=[1])
    w.uevent(RANGE_END, b"\0", fields=[1])
    w.uevent(RANGE_END, b"\0", fields=[1])
    w.uevent(RANGE_BEGIN, b"left open\0", fields=[2])
    w.uevent(RANGE_BEGIN, b"N" * 200 + b"\0", fields=[3])
    w.uevent(RANGE_BEGIN, b"other pid\0", fields=[4], pid=1, tid=1)
    w.uevent(RANGE_END, b"\0", fields=[4])
    w.uevent(RANGE_BEGIN, b"max id\0", fields=[2**64 - 1])
    w.uevent(RANGE_BEGIN, b"neg pid\0", fields=[8], pid=-1, tid=-1)
    # an end stamped before its begin
    w.uevent(RANGE_BEGIN, b"late\0", fields=[6], time=5_000_000_000)
    w.uevent(RANGE_END, b"late\0", fields=[6], time=1_000_000_500)


@case("range-many-open")
def _many_open(w):
    for i in range(3000):
        w.uevent(RANGE_BEGIN, b"open\0", fields=[i])


@case("max-size")
def _max(w):
    # the largest record header.size can say: 65528 bytes
    w.uevent(STRING, b"M" * (65528 - 8 - 16 - 24))
    w.uevent(PRIVATE, b"\xaa" * (65528 - 8 - 16 - 24))


@case("no-sample-id", warnings=1, invalid=1)
def _no_sid(w):
    # the sample_id is read from the text: the size check rejects it
    w.string(b"no sid here, 24 bytes of text\0", sid=False)


@case("no-sample-id-hdr-only", sentinel=False)
def _no_sid_hdr(w):
    # 24 bytes: too short for a sample_id, perf stops with an error
    w.uevent(STRING, b"", size=0, sid=False)


@case("hdr-too-small", warnings=1)
def _small(w):
    # smaller than the fixed part of a uevent: skipped by perf's min size
    w.raw(PERF_RECORD_UEVENT, b"", misc=MISC_USER)


@case("many-invalid", warnings=1, invalid=1000)
def _many(w):
    for i in range(1000):
        w.string(b"bad %d" % i, version=2 + i)


@case("jit-hostile")
def _jit(w):
    """JIT code loads perf turns into maps and symbols, and samples in them"""
    w.jit(0x10000, 0)				# size 0: ignored
    w.jit(0xfffffffffffff000, 0x1000)		# wraps to 0: ignored
    w.jit(0xfffffffffffff000, 0xfff, b"last page\0")
    w.jit(0, 1, b"at zero\0")
    w.jit(0x1000, 2**63, b"half the space\0")
    w.jit(0xffffffff81000000, 0x100, b"kernel address\0")
    w.jit(0x10000, 0x10000, b"A\0")
    w.sample(0x10010)
    w.jit(0x18000, 0x10000, b"B overlaps A\0")
    w.sample(0x18010)
    w.jit(0x12000, 0x1000, b"C inside A\0")
    w.sample(0x12010)
    w.jit(0x10000, 0x10000, b"A again\0")
    w.sample(0x10010)
    w.mmap(0x14000, 0x8000)			# an mmap over JIT code
    w.sample(0x15000)
    w.jit(0x14000, 0x100, b"\x1b[31mred\x07\n\x7f\0")
    w.jit(0x14100, 0x100, b"N" * 300 + b"\0")
    w.jit(0x14200, 0x100, b"")			# no name
    w.jit(0x14300, 0x100, b"no nul, 16 bytes")
    w.sample(0x14010)
    w.sample(0x14110)
    w.sample(0x14210)
    w.sample(0x14310)
    w.jit(0x20000, 0x1000, b"other pid\0", pid=77, tid=77)
    w.jit(0x21000, 0x1000, b"pid -1\0", pid=-1, tid=-1)
    w.sample(0x20010, pid=77)
    w.jit(0, 2**64 - 1, b"everything\0")
    w.sample(0x30000)
    for i in range(200):			# the same code replaced
        w.jit(0x40000, 0x40 + i, b"again\0")
    w.sample(0x40010)


@case("atrace-hostile")
def _atrace(w):
    """trace_marker text read as ATrace markers, and ranges made of it"""
    w.marker(b"E|4242")				# an end with no begin
    w.marker(b"B|4242|")				# no name
    w.marker(b"B|4242|" + b"N" * 300)		# cut at 64 bytes for ranges
    w.marker(b"B|4242|\xff\xfe\x1b[2J\n")
    w.marker(b"B|not a pid|x")
    w.marker(b"B|-1|x")
    w.marker(b"C|4242|n|99999999999999999999")	# past s64
    w.marker(b"C|4242|n|-9223372036854775808")
    w.marker(b"S|4242|load|7")
    w.marker(b"S|4242|load|7")			# begun again
    w.marker(b"F|4242|load|8")			# another cookie
    w.marker(b"F|4242|load|7|more")
    w.marker(b"S|4242|" + b"L" * 100 + b"|1")
    w.marker(b"F|4242|" + b"L" * 100 + b"|1")
    w.marker(b"I|4242|")
    w.marker(b"B|4242|other thread", tid=4243)
    w.marker(b"E", tid=4243)
    w.marker(b"B|4242|pid -1", pid=-1, tid=-1)
    w.marker(b"|||||")
    w.marker(b"B")
    w.marker(b"")
    w.string(b"B|4242|a string, not a marker")
    for i in range(500):				# deep
        w.marker(b"B|4242|deep")


@case("hdr-unaligned", sentinel=False)
def _unaligned(w):
    w.uevent(STRING, b"abcd", pad=False)	# header.size 44: not 8-aligned


@case("hdr-size-zero", sentinel=False)
def _zero(w):
    w.raw(PERF_RECORD_UEVENT, w.p("IIII", 1, 4, 1, 0), size=0)


@case("hdr-size-past-data", sentinel=False)
def _past(w):
    # header.size runs past the end of the data section
    w.uevent(STRING, b"runs off\0", hsize=4096)


def write_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for name, fn, sentinel, warnings, invalid in CASES:
        for order, suffix in (("<", ""), (">", "-be")):
            w = Writer(order)
            w.comm()
            w.sample()
            fn(w)
            if sentinel:
                w.string(SENTINEL)
            w.sample()
            expect = (f"{int(sentinel)}\t{warnings}\t{invalid}"
                      f"\t{w.nr_uevents}\n")
            fname = name + suffix + ".data"
            w.write(os.path.join(outdir, fname))
            rows.append(f"{fname}\t{expect}")
            # pipe mode reads each record into a heap buffer of its size
            fname = name + suffix + ".pipe"
            w.write_pipe(os.path.join(outdir, fname))
            rows.append(f"{fname}\t{expect}")
    # the data section cut in the middle of the last uevent
    w = Writer("<")
    w.comm()
    w.string(b"cut short" * 8)
    w.write(os.path.join(outdir, "data-cut.data"), data_cut=20)
    rows.append(f"data-cut.data\t0\t0\t0\t{w.nr_uevents}\n")
    # the data section said to extend past the end of the file
    w = Writer("<")
    w.comm()
    w.string(SENTINEL)
    w.write(os.path.join(outdir, "data-past-eof.data"), data_extra=1 << 20)
    rows.append(f"data-past-eof.data\t0\t0\t0\t{w.nr_uevents}\n")
    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        f.writelines(rows)
    return len(rows)


def uevents_of(records, limit=4096):
    """The native-order uevent records among records, concatenated, up to
    limit bytes of whole records."""
    out = b""
    for r in records:
        rtype, _, size = struct.unpack_from("<IHH", r)
        if (rtype == PERF_RECORD_UEVENT and size == len(r) and
                len(out) + size <= limit):
            out += r
    return out


def data_records(path):
    """The records of a native-order perf.data file's data section."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:8] != b"PERFILE2":
        sys.exit(f"gen-hostile.py: {path}: not a native perf.data file")
    off, size = struct.unpack_from("<QQ", buf, 40)
    data, pos, records = buf[off:off + size], 0, []
    while pos + 8 <= len(data):
        rsize = struct.unpack_from("<H", data, pos + 6)[0]
        if rsize < 8:
            break
        records.append(data[pos:pos + rsize])
        pos += rsize
    return records


def write_seeds(outdir, real_files):
    """The fuzzer's seeds: each case's uevents, and those of real files."""
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for name, fn, _, _, _ in CASES:
        w = Writer("<")
        fn(w)
        seed = uevents_of(w.records)
        if seed:
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(seed)
            n += 1
    for path in real_files:
        seed = uevents_of(data_records(path))
        base = os.path.basename(os.path.dirname(os.path.abspath(path)))
        with open(os.path.join(outdir, "real-" + base), "wb") as f:
            f.write(seed)
        n += 1
    return n


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--seeds":
        n = write_seeds(sys.argv[2], sys.argv[3:])
        print(f"gen-hostile.py: wrote {n} seeds to {sys.argv[2]}",
              file=sys.stderr)
    elif len(sys.argv) == 2:
        n = write_all(sys.argv[1])
        print(f"gen-hostile.py: wrote {n} files to {sys.argv[1]}",
              file=sys.stderr)
    else:
        sys.exit(__doc__)
