# SPDX-License-Identifier: MIT
"""ftzgen.py - builds .ftz and trace.dat files byte by byte, from format/FORMAT.md and
trace-cmd's trace-cmd.dat(5) v6 and trace-cmd.dat.v7(5) layouts alone (python3 stdlib
only), so the hostile
captures of gen.py can say exactly what they declare. Nothing here calls our C code:
a capture's ground truth is what this file wrote.
"""
import struct

# ------------------------------------------------------------------ checksums, zstd
_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _CRC_TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def zstd_frame(prefix, fill_len, fill_byte=0, window_log=None):
    """A valid zstd frame (RFC 8878) decompressing to PREFIX + FILL_LEN bytes of
    FILL_BYTE: a raw block, then RLE blocks of 128 KiB that cost 4 bytes each.
    This is the decompression bomb: 1 GiB declared in 32 KiB. A single segment
    (the window is the whole content) unless WINDOW_LOG is given: zstd refuses a
    window over 2 GiB, not a larger content decoded through a small window."""
    total = len(prefix) + fill_len
    # Frame header descriptor: content size in 8 bytes (flag 3), single segment
    # (0x20) or a window descriptor byte (exponent WINDOW_LOG - 10, no mantissa).
    if window_log is None:
        out = bytearray(struct.pack("<IB", 0xFD2FB528, 0xE0))
    else:
        out = bytearray(struct.pack("<IBB", 0xFD2FB528, 0xC0, (window_log - 10) << 3))
    out += struct.pack("<Q", total)
    blocks = []
    if prefix:
        blocks.append((0, len(prefix), bytes(prefix)))          # raw block
    left = fill_len
    while left:
        n = min(left, 128 * 1024)
        blocks.append((1, n, bytes([fill_byte])))                # RLE block
        left -= n
    for i, (btype, size, content) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        hdr = last | (btype << 1) | (size << 3)
        out += struct.pack("<I", hdr)[:3] + content
    return bytes(out)


# ------------------------------------------------------------------ .ftz container
MAGIC = b"\x89FTZ\r\n\x1a\n"
INFO, FILE, PAGES, END, SNAPSHOT = 1, 2, 3, 4, 5
FLAG_ZSTD = 1


def section(stype, payload, flags=0, raw_len=None):
    raw_len = len(payload) if raw_len is None else raw_len
    hdr = struct.pack("<IIQQI", stype, flags, len(payload), raw_len, crc32c(payload))
    return hdr + struct.pack("<I", crc32c(hdr)) + payload


def header():
    return MAGIC + struct.pack("<HHI", 1, 1, 0)


def info_sec(kv, raw=b""):
    text = "".join(f"{k}={v}\n" for k, v in kv.items()).encode()
    return section(INFO, text + raw)


def file_payload(name, data, phase=0):
    n = name.encode("utf-8", "surrogateescape") if isinstance(name, str) else name
    return struct.pack("<BBH", phase, 0, len(n)) + n + data


def file_sec(name, data, phase=0):
    return section(FILE, file_payload(name, data, phase))


def pages_sec(cpu, pages, page_size=4096):
    return section(PAGES, struct.pack("<IIII", cpu, page_size, len(pages), 0) + b"".join(pages))


def end_sec(text=b"stop_reason=test\n"):
    return section(END, text)


def pages_bomb(cpu, nr_pages, page_size=4096):
    """A zstd PAGES section of NR_PAGES empty sub-buffers that declares and does
    decompress to all of them, from ~4 bytes per 128 KiB (zstd_frame)."""
    hdr = struct.pack("<IIII", cpu, page_size, nr_pages, 0)
    return section(PAGES, zstd_frame(hdr, nr_pages * page_size), FLAG_ZSTD,
                   raw_len=16 + nr_pages * page_size)


# ------------------------------------------------------------------ ring buffer pages
HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")


def ring_page(records, ts0, page_size=4096, e="<"):
    """One 64-bit sub-buffer (E: "<" little-endian, ">" big): records are
    (time_delta, data) with data padded to 4 bytes, at most 112 bytes (type_len =
    len / 4 in the header: its low 5 bits little-endian, its high 5 big-endian)."""
    body = bytearray()
    for delta, data in records:
        data = bytes(data) + b"\0" * (-len(data) % 4)
        assert 4 <= len(data) <= 112 and delta < (1 << 27)
        head = (len(data) // 4) | (delta << 5) if e == "<" else (len(data) // 4) << 27 | delta
        body += struct.pack(e + "I", head) + data
    assert len(body) <= page_size - 16
    page = struct.pack(e + "QQ", ts0, len(body)) + body
    return page + b"\0" * (page_size - len(page))


def common(type_id, pid, flags=0, preempt=0, e="<"):
    return struct.pack(e + "HBBi", type_id, flags, preempt, pid)


COMMON_FIELDS = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def event_format(name, type_id, fields, print_fmt, common_fields=COMMON_FIELDS):
    """fields: (declaration, offset, size, signed) after the common ones."""
    text = f"name: {name}\nID: {type_id}\nformat:\n" + common_fields
    for decl, off, size, signed in fields:
        text += f"\tfield:{decl};\toffset:{off};\tsize:{size};\tsigned:{signed};\n"
    return (text + f"\nprint fmt: {print_fmt}\n").encode("utf-8", "surrogateescape")


# The well-behaved event every capture carries beside its hostile part: "good:ev",
# an int x and a string, so the tests can count what survived.
GOOD_ID = 1000


def good_format(name="ev", type_id=GOOD_ID):
    return event_format(name, type_id, [("int x", 8, 4, 1), ("__data_loc char[] s", 12, 4, 0)],
                        '"x=%d s=%s", REC->x, __get_str(s)')


def good_record(x, s=b"hello", type_id=GOOD_ID, pid=4242, e="<"):
    s = bytes(s) + b"\0"
    return common(type_id, pid, e=e) + struct.pack(e + "iI", x, (len(s) << 16) | 16) + s


# The function_graph tracer's events, as kernel 6.1 writes their formats.
GRAPH_ENTRY_ID, GRAPH_EXIT_ID = 11, 10


def graph_formats():
    """(events/ftrace/funcgraph_entry/format, .../funcgraph_exit/format)"""
    return (event_format("funcgraph_entry", GRAPH_ENTRY_ID,
                         [("unsigned long func", 8, 8, 0), ("int depth", 16, 4, 1)],
                         '"--> %ps (%d)", (void *)REC->func, REC->depth'),
            event_format("funcgraph_exit", GRAPH_EXIT_ID,
                         [("unsigned long func", 8, 8, 0), ("int depth", 16, 4, 1),
                          ("unsigned int overrun", 20, 4, 0), ("unsigned long long calltime", 24, 8, 0),
                          ("unsigned long long rettime", 32, 8, 0)],
                         '"<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, '
                         'REC->depth, REC->calltime, REC->rettime, REC->depth'))


def graph_entry(pid, func, depth):
    return common(GRAPH_ENTRY_ID, pid) + struct.pack("<Qi", func, depth)


def graph_exit(pid, func, depth, calltime, rettime, overrun=0):
    return common(GRAPH_EXIT_ID, pid) + struct.pack("<QiIQQ", func, depth, overrun, calltime, rettime)


class Capture:
    """An .ftz under construction: INFO, FILE sections, then PAGES, then END."""

    def __init__(self, nr_cpus=1, info_extra=None):
        self.info = {"ftz_version": "1.1", "hostname": "hostile", "page_size": 4096,
                     "subbuf_size": 4096, "long_size": 8, "endian": "little", "clock": "mono",
                     "nr_cpus": nr_cpus, "preset": "record", "events": "good:ev"}
        self.info.update(info_extra or {})
        self.info_raw = b""
        self.files = [("events/header_page", HEADER_PAGE)]
        self.extra = []        # raw sections after the FILE ones
        self.records = {}      # cpu -> [(delta, data)]
        self.end = True
        self.ts0 = 1000000     # the first page's timestamp; each next page's 1 ms later

    def event(self, system, fmt):
        self.files.append((f"events/{system}/{fmt_name(fmt)}/format", fmt))

    def record(self, data, cpu=0, delta=1000):
        self.records.setdefault(cpu, []).append((delta, data))

    def build(self):
        out = bytearray(header() + info_sec(self.info, self.info_raw))
        for name, data in self.files:
            out += file_sec(name, data)
        out += b"".join(self.extra)
        for cpu in sorted(self.records):
            recs, page, used = self.records[cpu], [], 0
            pages = []
            for r in recs:
                size = 4 + len(r[1]) + (-len(r[1]) % 4)
                if used + size > 4096 - 16:
                    pages.append(ring_page(page, self.ts0 + 1000000 * len(pages)))
                    page, used = [], 0
                page.append(r)
                used += size
            if page:
                pages.append(ring_page(page, self.ts0 + 1000000 * len(pages)))
            out += pages_sec(cpu, pages)
        if self.end:
            out += end_sec()
        return bytes(out)


def fmt_name(fmt):
    return fmt.split(b"\n", 1)[0].split(b":", 1)[1].strip().decode("utf-8", "surrogateescape")


# ------------------------------------------------------------------ rings and series (FORMAT.md 10)
# What ties the files of one recording together: the same capture_id and boot_id.
SET_KEYS = {"capture_id": "5e75e75e75e75e75e75e75e75e75e75e", "boot_id": "b007b007"}


def ring_files(name, head, segments):
    """A disk ring (FORMAT.md 10.1) as {file name: bytes}: the head NAME.ftz (the
    Capture HEAD with the ring's INFO keys; its records, if any, are left out: a head
    holds no PAGES) and one segment NAME.ring-NNNNNN.ftz per item of SEGMENTS, numbered
    from 1: the head's INFO with its ring_segment, then the item's bytes (PAGES)."""
    head.info.update(SET_KEYS, ring_size=1 << 30, ring_segment_size=1 << 27,
                     ring_prefix=name + ".ring-")
    head.records = {}
    files = {name + ".ftz": head.build()}
    for no, body in enumerate(segments, 1):
        files[f"{name}.ring-{no:06d}.ftz"] = (header() + info_sec(dict(head.info, ring_segment=no)) +
                                              bytes(body))
    return files


def series_files(name, make, n):
    """A --rotate series (FORMAT.md 10.2) as {file name: bytes}: N complete files
    NAME-0001.ftz ... , file I (from 1) the Capture MAKE(I) with the series' INFO keys
    its first page at I ms."""
    files = {}
    for i in range(1, n + 1):
        cap = make(i)
        cap.info.update(SET_KEYS, series_prefix=name + "-", series_index=i)
        cap.ts0 = 1000000 * i
        files[f"{name}-{i:04d}.ftz"] = cap.build()
    return files


# ------------------------------------------------------------------ trace-cmd trace.dat v6
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
                b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")


def header_files(e):
    """header_page and header_event as both versions store them (E: byte order)."""
    return (b"header_page\0" + struct.pack(e + "Q", len(HEADER_PAGE)) + HEADER_PAGE +
            b"header_event\0" + struct.pack(e + "Q", len(HEADER_EVENT)) + HEADER_EVENT)


def event_formats(systems, e):
    out = struct.pack(e + "I", len(systems))
    for name, fmts in systems:
        out += name + b"\0" + struct.pack(e + "I", len(fmts))
        for f in fmts:
            out += struct.pack(e + "Q", len(f)) + f
    return out


def tracedat_v6(systems, records, cmdlines=b"", kallsyms=b"", printk=b""):
    """A one-CPU trace.dat, version 6 (trace-cmd.dat(5)): systems is
    [(name bytes, [format bytes])]; records as for ring_page. System names are
    NUL-terminated strings with no length or character limit in this format."""
    page_size = 4096
    out = bytearray(b"\x17\x08\x44tracing6\0")
    out += struct.pack("<BBI", 0, 8, page_size)          # little endian, long 8
    out += header_files("<")
    out += struct.pack("<I", 0)                           # ftrace formats
    out += event_formats(systems, "<")
    out += struct.pack("<I", len(kallsyms)) + kallsyms
    out += struct.pack("<I", len(printk)) + printk
    out += struct.pack("<Q", len(cmdlines)) + cmdlines
    out += struct.pack("<I", 1)                           # cpus
    out += b"options  \0" + struct.pack("<H", 0)          # no options
    out += b"flyrecord\0"
    data_off = len(out) + 16
    data_off += -data_off % page_size
    out += struct.pack("<QQ", data_off, page_size)
    out += b"\0" * (data_off - len(out))
    out += ring_page(records, 1000000, page_size)
    return bytes(out)


# ------------------------------------------------------------------ trace-cmd trace.dat v7
V7_DONE, V7_BUFFER, V7_CPUCOUNT, V7_STRINGS = 0, 3, 8, 15
V7_HEADER_INFO, V7_CMDLINES = 16, 21    # header info, ftrace, formats, kallsyms, printk, cmdlines
V7_COMPRESSED = 1


class TraceDatV7:
    """A zstd-compressed trace.dat version 7 (trace-cmd.dat.v7(5)), laid out as trace-cmd
    3.3 writes one: the header, the metadata sections (16-21, each compressed), the
    options naming them, the flyrecord buffer section (per CPU a page-aligned table of
    compressed chunks), the options naming the buffer, the strings. Every number is in
    the file's byte order. A hostile case changes an attribute before build():
      bombs        {section id (16-21, 15): raw size} - that section's zstd frame (and
                   declared size) grows to it with RLE blocks, 4 bytes per 128 KiB
      cpu_chunks   {cpu: [(data, raw size)]} - chunks instead of the CPU's pages,
                   each frame grown with RLE blocks to its raw size
      chunk_count  {cpu: n} - the count written before that CPU's chunks
      before       raw bytes between the header and the first section
      loop         the last options section's DONE names the first again
    systems: [(name bytes, [format bytes])]; records: {cpu: [(delta, data)]} for
    ring_page, in the file's byte order (common(..., e=...), good_record(..., e=...))."""

    def __init__(self, systems, records, big=False, cmdlines=b"", page_size=4096):
        self.e = ">" if big else "<"
        self.big, self.page_size = big, page_size
        e = self.e
        self.meta = {16: header_files(e), 17: struct.pack(e + "I", 0),
                     18: event_formats(systems, e), 19: struct.pack(e + "I", 0),
                     20: struct.pack(e + "I", 0),
                     21: struct.pack(e + "Q", len(cmdlines)) + cmdlines}
        self.records = records
        self.bombs, self.cpu_chunks, self.chunk_count = {}, {}, {}
        self.before = b""
        self.loop = False

    def _num(self, fmt, *v):
        return struct.pack(self.e + fmt, *v)

    def _section(self, sid, data, flags=0):
        return self._num("HHIQ", sid, flags, 0, len(data)) + data

    def _compressed(self, sid, payload, raw=None):
        """A compressed section: its frame's prefix PAYLOAD, grown to RAW bytes."""
        raw = len(payload) if raw is None else raw
        assert 0 < len(payload) <= 128 * 1024   # one raw block (zstd_frame)
        frame = zstd_frame(payload, raw - len(payload), window_log=17)
        return self._section(sid, self._num("II", len(frame), raw) + frame, V7_COMPRESSED)

    def _options(self, opts, next_off):
        body = b"".join(self._num("HI", oid, len(d)) + d for oid, d in opts)
        return self._section(V7_DONE, body + self._num("HIQ", V7_DONE, 8, next_off))

    def _chunk_table(self, cpu):
        if cpu in self.cpu_chunks:
            chunks = self.cpu_chunks[cpu]
        else:
            recs = self.records[cpu]
            chunks = [(ring_page(recs, 1000000 + 1000000 * cpu, self.page_size, self.e), None)]
        out = self._num("I", self.chunk_count.get(cpu, len(chunks)))
        for data, raw in chunks:
            raw = len(data) if raw is None else raw
            frame = zstd_frame(data, raw - len(data), window_log=17)
            out += self._num("II", len(frame), raw) + frame
        return out

    def build(self):
        e, page = self.e, self.page_size
        head = b"\x17\x08\x44tracing7\0" + bytes([1 if self.big else 0, 8])
        head += self._num("I", page) + b"zstd\0" + b"1.5.4\0"
        out = bytearray(head + b"\0" * 8 + self.before)     # options offset: below
        named = []
        for sid in range(V7_HEADER_INFO, V7_CMDLINES + 1):
            named.append((sid, self._num("Q", len(out))))
            out += self._compressed(sid, self.meta[sid], self.bombs.get(sid))
        cpus = sorted(set(self.records) | set(self.cpu_chunks))
        opts1_at = len(out)
        out[len(head):len(head) + 8] = self._num("Q", opts1_at)
        opts1 = named + [(V7_CPUCOUNT, self._num("I", len(cpus)))]
        buf_at = opts1_at + len(self._options(opts1, 0))
        # the flyrecord section: each CPU's chunk table page-aligned, as trace-cmd's
        data, entries = bytearray(), []
        for cpu in cpus:
            pos = buf_at + 16 + len(data)
            data += b"\0" * (-pos % page)
            table = self._chunk_table(cpu)
            entries.append(self._num("IQQ", cpu, buf_at + 16 + len(data), len(table)))
            data += table
        buf = self._section(V7_BUFFER, bytes(data), V7_COMPRESSED)
        opts2_at = buf_at + len(buf)
        out += self._options(opts1, opts2_at) + buf
        buffer_opt = (self._num("Q", buf_at) + b"\0" + b"local\0" +
                      self._num("II", page, len(cpus)) + b"".join(entries))
        out += self._options([(V7_BUFFER, buffer_opt)], opts1_at if self.loop else 0)
        out += self._compressed(V7_STRINGS, b"headers\0options\0flyrecord\0",
                                self.bombs.get(V7_STRINGS))
        return bytes(out)
