#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py [OUTDIR] - write the .ftz conformance set: one small synthetic file per
rule of format/FORMAT.md (valid edge cases and each kind of damage), and next to
each NAME.ftz its expected reader outcome, NAME.expect (format: README.md).

Deterministic: the same bytes every run (no time, no randomness, zstd frames
built by hand). The files are built byte by byte with tests/hostile/ftzgen.py
(written from FORMAT.md, no code of ours); every expected outcome below is
written down by hand from the rule the case exercises, never computed by a
reader. OUTDIR defaults to this directory (the committed copy).
"""
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from ftzgen import (END, FILE, FLAG_ZSTD, GOOD_ID, HEADER_PAGE, INFO, MAGIC, PAGES,  # noqa: E402
                    SNAPSHOT, crc32c, event_format, file_payload, good_format, good_record,
                    section, zstd_frame)

CASES = []  # (name, bytes, expect dict)

BASE_INFO = {"ftz_version": "1.1", "hostname": "conformance", "page_size": 4096,
             "subbuf_size": 4096, "long_size": 8, "endian": "little", "clock": "mono",
             "nr_cpus": 2, "preset": "record", "events": "good:ev"}


def file_header(major=1, minor=1):
    return MAGIC + struct.pack("<HHI", major, minor, 0)


def info(**over):
    kv = dict(BASE_INFO)
    kv.update(over)
    text = "".join(f"{k}={v}\n" for k, v in kv.items() if v is not None)
    return section(INFO, text.encode())


def meta(**info_over):
    """INFO, header_page and the good event's format: the smallest recording."""
    return info(**info_over) + section(FILE, file_payload("events/header_page", HEADER_PAGE)) + \
        section(FILE, file_payload("events/good/ev/format", good_format()))


def end():
    return section(END, b"stop_reason=test\n")


# ---- sub-buffers -------------------------------------------------------------------
def rec_event(n_words, delta=1000, big=False, x=0):
    """A data record of type_len n_words (1..28): the good event, padded."""
    data = good_record(x, b"")[:8] if not big else struct.pack(">HBBi", GOOD_ID, 0, 0, 4242)
    data = data + b"\0" * (4 * n_words - len(data))
    return header_word(n_words, delta, big) + data


def header_word(type_len, delta, big=False):
    # FORMAT.md 4.3.1: little-endian pages hold type_len in bits 0-4; big-endian
    # pages in bits 27-31 (the kernel's bitfield order), the delta in the rest.
    if big:
        return struct.pack(">I", (type_len << 27) | delta)
    return struct.pack("<I", type_len | (delta << 5))


def rec_long_event(data_len, delta=1000):
    """type_len 0: a length word holding data_len + 4, then the data, whose
    space is data_len rounded up to 4 bytes."""
    data = good_record(0, b"x" * 100)
    data = data + b"\0" * (-(-data_len // 4) * 4 - len(data))
    return header_word(0, delta) + struct.pack("<I", data_len + 4) + data


def rec_padding(length, delta=500):
    """A padding record of 4 + length bytes: the length word is the first 4 of
    the length bytes after the header (as the kernel writes a discarded event)."""
    return header_word(29, delta) + struct.pack("<I", length) + b"\0" * (length - 4)


def rec_extend(ext, delta=0, type_len=30):
    return header_word(type_len, delta) + struct.pack("<I", ext)


def page(records, ts=1_000_000, page_size=4096, long_size=8, big=False, commit=None,
         flags=0, lost=None, lost_at=None):
    """One sub-buffer: u64 timestamp, commit (long), the records, then (with
    lost) the stored lost count at the data's end, or at lost_at."""
    body = b"".join(records)
    size = len(body) if commit is None else commit
    order = ">" if big else "<"
    long_fmt = order + ("Q" if long_size == 8 else "I")
    out = struct.pack(order + "Q", ts) + struct.pack(long_fmt, size | flags) + body
    if lost is not None:
        at = 8 + long_size + (size if lost_at is None else lost_at)
        out = out + b"\0" * (at - len(out))
        out = out[:at] + struct.pack(long_fmt, lost)
    assert len(out) <= page_size, len(out)
    return out + b"\0" * (page_size - len(out))


def events_page(n, **kw):
    return page([rec_event(2) for _ in range(n)], **kw)


def pages(cpu, pgs, page_size=4096, nr_pages=None, flags=0):
    payload = struct.pack("<IIII", cpu, page_size, len(pgs) if nr_pages is None else nr_pages,
                          0) + b"".join(pgs)
    if flags & FLAG_ZSTD:
        return section(PAGES, zstd_frame(payload, 0), FLAG_ZSTD, raw_len=len(payload))
    return section(PAGES, payload, flags)


# ---- expectations ------------------------------------------------------------------
def ok(cpu_events=None, end_state="clean", bad=0, lost_pages=0, lost_total=0, lost_unknown=0,
       last_ts=None):
    """last_ts: {cpu: time of its last event in file order}, for the cases about
    the clock (the test compares cpuN_last_ts only where an .expect has it)."""
    cpu_events = cpu_events or {}
    e = {"exit": 0, "end": end_state, "events": sum(cpu_events.values())}
    e.update({f"cpu{c}_events": n for c, n in sorted(cpu_events.items()) if n})
    e.update({f"cpu{c}_last_ts": t for c, t in sorted((last_ts or {}).items())})
    e.update(bad_pages=bad, lost_pages=lost_pages, lost_total=lost_total,
             lost_unknown=lost_unknown)
    return e


def damaged(offset, cpu_events=None, **kw):
    e = ok(cpu_events, **kw)
    e.update(exit=3, end="damaged")
    e = {k: e[k] for k in ("exit", "end")} | {"damage_offset": offset} | \
        {k: v for k, v in e.items() if k not in ("exit", "end")}
    return e


def damaged_early(offset):
    """Damage before INFO and header_page were read: nothing usable."""
    return {"exit": 3, "end": "damaged", "damage_offset": offset}


def refused(message):
    return {"exit": 1, "message": message}


def case(name, data, expect):
    CASES.append((name, bytes(data), expect))


# ---- 2 / 6.1: the file header --------------------------------------------------------
def header_cases():
    rec = meta() + pages(0, [events_page(3)]) + end()
    case("hdr_empty", b"", refused("not an .ftz"))
    case("hdr_magic_prefix", MAGIC[:5], damaged_early(0))
    case("hdr_magic_then_4", MAGIC + b"\x01\x00\x01\x00", damaged_early(0))
    case("hdr_magic_then_7", MAGIC + b"\x01\x00\x01\x00\x00\x00\x00", damaged_early(0))
    case("hdr_not_ftz", b"GIF89a, not a recording at all", refused("not an .ftz"))
    case("hdr_major_2", file_header(major=2) + rec, refused("version"))
    case("hdr_minor_9", file_header(minor=9) + rec, ok({0: 3}))
    case("hdr_only", file_header(), refused("INFO"))


# ---- 3 / 6.2: sections, flags, zstd --------------------------------------------------
def section_cases():
    h = file_header()
    m = meta()
    good = pages(0, [events_page(3)])
    # an unknown type with the ZSTD flag whose payload is no zstd frame: skipped
    # after its checksum, never decompressed
    odd = section(77, b"definitely not zstd", FLAG_ZSTD, raw_len=5000)
    case("unknown_type_zstd", h + m + good + odd + pages(1, [events_page(2)]) + end(),
         ok({0: 3, 1: 2}))
    # an unknown flag bit: raw_len may mean something else; a PAGES section with
    # it is skipped whole (its events are not counted)
    payload = struct.pack("<IIII", 1, 4096, 1, 0) + events_page(5)
    odd = section(PAGES, payload, 0x2, raw_len=123)
    case("unknown_flag_skipped", h + m + good + odd + end(), ok({0: 3}))
    # flags 0 and raw_len != stored_len: damage
    bad = section(FILE, file_payload("junk/x", b"abc"), 0, raw_len=99)
    at = len(h + m + good)
    case("raw_len_mismatch", h + m + good + bad + pages(1, [events_page(2)]) + end(),
         damaged(at, {0: 3}))
    # zstd: exactly one frame, nothing after it
    payload = struct.pack("<IIII", 1, 4096, 1, 0) + events_page(2)
    frame = zstd_frame(payload, 0)
    empty_frame = struct.pack("<IB", 0xFD2FB528, 0x20) + b"\x00" + b"\x01\x00\x00"
    skippable = struct.pack("<II", 0x184D2A50, 4) + b"skip"
    for name, stored in [("zstd_two_frames", frame + empty_frame),
                         ("zstd_skippable_after", frame + skippable),
                         ("zstd_trailing_bytes", frame + b"\0\0\0"),
                         ("zstd_skippable_first", skippable + frame)]:
        sec = section(PAGES, stored, FLAG_ZSTD, raw_len=len(payload))
        case(name, h + m + good + sec + pages(0, [events_page(1)]) + end(),
             damaged(len(h + m + good), {0: 3}))
    case("zstd_one_frame", h + m + good + section(PAGES, frame, FLAG_ZSTD, raw_len=len(payload))
         + end(), ok({0: 3, 1: 2}))
    # a frame that declares raw_len but whose blocks make less: damage there, so
    # CPU 0's later section is not used either
    short = zstd_frame(payload[:100], 0)
    short = short[:5] + struct.pack("<Q", len(payload)) + short[13:]
    sec = section(PAGES, short, FLAG_ZSTD, raw_len=len(payload))
    at = len(h + m + good)
    case("zstd_short_frame", h + m + good + sec + pages(0, [events_page(4)]) + end(),
         damaged(at, {0: 3}))
    # the fixed header in a first block of its own (as ftrec writes it), then a
    # block of the reserved type 3 under a good checksum: a reader that reads only
    # the header in its first pass finds the damage when it reads the pages (6)
    hdr_block = struct.pack("<I", (0 << 1) | (16 << 3))[:3] + payload[:16]
    bad_block = struct.pack("<I", 1 | (3 << 1) | (len(payload) - 16) << 3)[:3]
    bad = struct.pack("<IB", 0xFD2FB528, 0xE0) + struct.pack("<Q", len(payload)) + hdr_block + bad_block
    sec = section(PAGES, bad, FLAG_ZSTD, raw_len=len(payload))
    two = h + m + good + pages(1, [events_page(2)])
    case("zstd_bad_later_block", two + sec + end(), damaged(len(two), {0: 3, 1: 2}))
    # a valid frame whose first block holds less than the fixed header (8 bytes): a
    # reader that takes the header from the first block reads the section whole
    blocks = struct.pack("<I", 8 << 3)[:3] + payload[:8] + \
        struct.pack("<I", 1 | (len(payload) - 8) << 3)[:3] + payload[8:]
    frame8 = struct.pack("<IB", 0xFD2FB528, 0xE0) + struct.pack("<Q", len(payload)) + blocks
    case("zstd_small_first_block", h + m + good + section(PAGES, frame8, FLAG_ZSTD, raw_len=len(payload))
         + end(), ok({0: 3, 1: 2}))
    # a bad header checksum in the middle, and a file cut inside a payload
    sec = bytearray(pages(1, [events_page(2)]))
    sec[30] ^= 0xFF
    case("header_crc", h + m + good + bytes(sec) + end(), damaged(at, {0: 3}))
    sec = bytearray(pages(1, [events_page(2)]))
    sec[100] ^= 0x01
    case("payload_crc", h + m + good + bytes(sec) + end(), damaged(at, {0: 3}))
    case("cut_in_payload", h + m + good + pages(1, [events_page(2)])[:500],
         damaged(at, {0: 3}))
    case("cut_in_header", h + m + good + pages(1, [events_page(2)])[:20], damaged(at, {0: 3}))
    case("cut_at_boundary", h + m + good, ok({0: 3}, end_state="no-end-section"))
    big = struct.pack("<IIQQI", FILE, 0, 1 << 31, 1 << 31, 0)
    case("len_over_1gib", h + m + good + big + struct.pack("<I", crc32c(big)),
         damaged(at, {0: 3}))


# ---- 4.2 FILE, 4.3 PAGES, 4.4 SNAPSHOT payloads ------------------------------------------
def payload_cases():
    h = file_header()
    m = meta()
    good = pages(0, [events_page(3)])
    at = len(h + m + good)
    after = pages(1, [events_page(2)]) + end()
    # FILE: name_len past the payload, NUL in the name, shorter than 4 bytes, phase 7
    case("file_name_past", h + m + good + section(FILE, struct.pack("<BBH", 0, 0, 50) + b"abc")
         + after, damaged(at, {0: 3}))
    case("file_name_nul", h + m + good + section(FILE, file_payload(b"a\0b", b"x")) + after,
         damaged(at, {0: 3}))
    case("file_name_len_0", h + m + good + section(FILE, struct.pack("<BBH", 0, 0, 0) + b"x")
         + after, damaged(at, {0: 3}))
    case("file_short", h + m + good + section(FILE, b"\0\0\x01") + after, damaged(at, {0: 3}))
    case("file_phase_7", h + m + good + section(FILE, file_payload("junk/x", b"y", phase=7))
         + after, ok({0: 3, 1: 2}))
    snap = struct.pack("<QQIHH", 1, 2, 0, 40, 0) + b"trace_stat/function0"
    case("snapshot_name_past", h + m + good + section(SNAPSHOT, snap) + after,
         damaged(at, {0: 3}))
    # PAGES: length not 16 + nr_pages * page_size, page_size 0 or < 16, CPU >= 65536
    case("pages_len_short", h + m + good + pages(1, [events_page(2)], nr_pages=2) + after,
         damaged(at, {0: 3}))
    case("pages_len_long", h + m + good + pages(1, [events_page(2), b"\0" * 10], nr_pages=1)
         + after, damaged(at, {0: 3}))
    case("pages_size_0", h + m + good + pages(1, [], page_size=0, nr_pages=5) + after,
         damaged(at, {0: 3}))
    case("pages_size_8", h + m + good + pages(1, [b"\0" * 8], page_size=8) + after,
         damaged(at, {0: 3}))
    case("pages_short", h + m + good + section(PAGES, b"\0" * 12) + after, damaged(at, {0: 3}))
    case("pages_cpu_65536", h + m + good + pages(65536, [events_page(2)]) + after,
         damaged(at, {0: 3}))
    case("pages_none", h + m + good + pages(1, []) + after, ok({0: 3, 1: 2}))
    # CPU numbers with gaps, and above INFO nr_cpus: accepted as they are
    case("cpu_gaps", h + m + good + pages(5, [events_page(2)]) + pages(65535, [events_page(1)])
         + end(), ok({0: 3, 5: 2, 65535: 1}))
    # INFO subbuf_size is not the PAGES page_size: each section's page_size wins
    case("page_size_8k", h + meta(subbuf_size=4096) +
         pages(0, [events_page(3, page_size=8192), events_page(200, page_size=8192)],
               page_size=8192) + pages(1, [events_page(2)]) + end(), ok({0: 203, 1: 2}))
    case("pages_zstd", h + m + pages(0, [events_page(3), events_page(4)], flags=FLAG_ZSTD)
         + end(), ok({0: 7}))


# ---- 5 / 6.3: the recording's metadata ----------------------------------------------
def metadata_cases():
    h = file_header()
    hp = section(FILE, file_payload("events/header_page", HEADER_PAGE))
    fmt = section(FILE, file_payload("events/good/ev/format", good_format()))
    good = pages(0, [events_page(3)])
    case("no_info", h + hp + fmt + good + end(), refused("INFO"))
    case("unknown_first", h + section(99, b"x") + meta() + good + end(), refused("INFO"))
    case("no_header_page", h + info() + fmt + good + end(), refused("header_page"))
    case("header_page_end_phase", h + info() + fmt + good +
         section(FILE, file_payload("events/header_page", HEADER_PAGE, phase=1)) + end(),
         ok({0: 3}))
    bad = bytearray(hp)
    bad[40] ^= 1
    case("damage_before_header_page", h + info() + bytes(bad) + fmt + good + end(),
         damaged_early(len(h + info())))
    case("damage_in_info", h + info()[:40], damaged_early(16))
    # a second INFO is ignored: long_size=4 would read these pages as garbage
    case("second_info", h + meta() + good + info(long_size=4, endian="big") +
         pages(1, [events_page(2)]) + end(), ok({0: 3, 1: 2}))
    case("endian_bad", h + meta(endian="middle") + good + end(), refused("endian"))
    case("long_size_bad", h + meta(long_size=16) + good + end(), refused("long_size"))
    case("keys_absent", h + meta(long_size=None, endian=None) + good + end(), ok({0: 3}))
    # END ends the recording: sections after it, valid or not, are not read
    case("after_end_pages", h + meta() + good + end() + pages(1, [events_page(2)]),
         ok({0: 3}))
    case("after_end_garbage", h + meta() + good + end() + b"\xff" * 45, ok({0: 3}))
    case("after_end_cut", h + meta() + good + end() + pages(1, [events_page(2)])[:40],
         ok({0: 3}))


# ---- 4.3 / 4.3.1: inside the sub-buffers --------------------------------------------
def page_cases():
    h = file_header()
    m = meta()

    def rec(*pgs, info_over=None, cpu=0):
        return h + (meta(**info_over) if info_over else m) + pages(cpu, list(pgs)) + end()

    three = [rec_event(2) for _ in range(3)]
    # commit: 30 bits of size; bits 30/31 are the loss flags
    case("commit_past_page", rec(events_page(2), page(three, commit=4096 - 16 + 4),
                                 events_page(1)), ok({0: 3}, bad=1))
    case("commit_whole_page", rec(page([rec_event(28)] * 35 + [rec_event(4)],
                                       commit=4080)), ok({0: 36}))
    case("commit_high_bits", rec(page(three, flags=1 << 32), events_page(1)), ok({0: 4}))
    # lost counts: a long in the page's byte order after the data
    case("lost_64bit", rec(page(three, flags=3 << 30, lost=5_000_000_007)),
         ok({0: 3}, lost_pages=1, lost_total=5_000_000_007, last_ts={0: 1_003_000}))
    case("lost_not_stored", rec(page(three, flags=1 << 31)), ok({0: 3}, lost_pages=1,
                                                                 lost_unknown=1))
    case("lost_past_page", rec(page([rec_event(28)] * 35 + [rec_event(3)], commit=4076,
                                    flags=3 << 30)), ok({0: 36}, lost_pages=1, lost_unknown=1))
    case("lost_over_int64", rec(page(three, flags=3 << 30, lost=1 << 63)),
         ok({0: 3}, lost_pages=1, lost_unknown=1))
    case("lost_32bit", rec(page(three, long_size=4, flags=3 << 30, lost=4_000_000_000),
                           info_over={"long_size": 4}),
         ok({0: 3}, lost_pages=1, lost_total=4_000_000_000))
    # 32-bit kernel (commit is 4 bytes, data at 12) and big-endian pages
    case("long_size_4", rec(page(three, long_size=4, ts=7_000_000), info_over={"long_size": 4}),
         ok({0: 3}, last_ts={0: 7_003_000}))
    be_fmt = event_format("ev", GOOD_ID, [], '"ok"')
    be = h + info(endian="big") + section(FILE, file_payload("events/header_page", HEADER_PAGE)) \
        + section(FILE, file_payload("events/good/ev/format", be_fmt)) + \
        pages(0, [page([rec_event(2, big=True) for _ in range(4)], big=True),
                  page([rec_event(3, big=True, delta=77)], ts=2_000_000, big=True,
                       flags=3 << 30, lost=7)]) + end()
    case("big_endian", be, ok({0: 5}, lost_pages=1, lost_total=7, last_ts={0: 2_000_077}))
    # record kinds: padding (length word, its delta counts), time extend, absolute
    # time stamp, a long event (type_len 0). Clock: 1,000,000 + 1000 (event) + 500
    # (padding) + 1000 (event) + 500 (padding) + 0 (null padding) + 1000 (event).
    case("padding", rec(page([rec_event(2), rec_padding(12), rec_event(2), rec_padding(4),
                              rec_padding(8, delta=0), rec_event(3)])),
         ok({0: 3}, last_ts={0: 1_004_000}))
    # 1,001,000; + 3 << 27 then + 1000: 403,655,184; absolute 1 << 27 = 134,217,728,
    # + 1000: the last event at 134,218,728 (an absolute stamp sets, not adds)
    case("time_extend", rec(page([rec_event(2), rec_extend(3), rec_event(2),
                                  rec_extend(1, type_len=31), rec_event(2)])),
         ok({0: 3}, last_ts={0: 134_218_728}))
    case("time_extend_delta", rec(page([rec_event(2), rec_extend(2, delta=5), rec_event(2)],
                                       ts=10)), ok({0: 2}, last_ts={0: 10 + 1000 + (2 << 27) + 5
                                                                     + 1000}))
    case("long_event", rec(page([rec_event(2), rec_long_event(200), rec_long_event(201)])),
         ok({0: 3}))
    # records that do not lie inside the data make the page bad, whole
    case("record_past_data", rec(page([rec_event(2), rec_event(2)], commit=20), events_page(2)),
         ok({0: 2}, bad=1))
    case("header_cut", rec(page([rec_event(2), b"\x02\x00"], commit=14), events_page(2)),
         ok({0: 2}, bad=1))
    case("extend_cut", rec(page([rec_event(2), header_word(30, 0)]), events_page(2)),
         ok({0: 2}, bad=1))
    # the last 4 bytes of a full page, the last page of its section: kbuffer would
    # read the extend's word past the page, past the batch (ASan in ftana's tests)
    case("extend_at_page_end", rec(events_page(1), page([rec_event(28)] * 35 + [rec_event(3),
                                                       header_word(30, 0)])), ok({0: 1}, bad=1))
    case("type0_len_4", rec(page([rec_event(2), header_word(0, 10) + struct.pack("<I", 4)
                                  + b"\0" * 8]), events_page(1)), ok({0: 1}, bad=1))
    case("type0_len_negative", rec(page([rec_event(2), header_word(0, 10) +
                                         struct.pack("<I", 2) + b"\0" * 8]), events_page(1)),
         ok({0: 1}, bad=1))
    case("padding_huge", rec(page([rec_event(2), rec_padding(0)[:4] +
                                   struct.pack("<I", 0xFFFFFFF0), rec_event(2)]),
                             events_page(1)), ok({0: 1}, bad=1))
    case("empty_pages", rec(page([]), page([rec_padding(8)]), events_page(1)), ok({0: 1}))
    case("loss_on_bad_page", rec(page(three, commit=5000, flags=3 << 30), events_page(2)),
         ok({0: 2}, bad=1))


def write(outdir):
    os.makedirs(outdir, exist_ok=True)
    names = set()
    for name, data, expect in CASES:
        assert name not in names, name
        names.add(name)
        with open(os.path.join(outdir, name + ".ftz"), "wb") as f:
            f.write(data)
        with open(os.path.join(outdir, name + ".expect"), "w") as f:
            f.write("".join(f"{k}={v}\n" for k, v in expect.items()))


def main():
    for gen in (header_cases, section_cases, payload_cases, metadata_cases, page_cases):
        gen()
    write(sys.argv[1] if len(sys.argv) > 1 else HERE)


if __name__ == "__main__":
    main()
