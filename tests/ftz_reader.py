#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ftz_reader.py FILE... - an independent .ftz reader, written from format/FORMAT.md
alone (no code of ours is read or called), to check that the spec is precise
enough: tests/test_conformance.sh compares what it finds with ftana and ftzdump.

It walks the sections, verifies them as FORMAT.md section 6 says, and walks every
sub-buffer's records (section 4.3) to count events per CPU, pages flagged as
lost, the stored lost counts and bad pages. It does not parse event fields.

For each FILE it prints the outcome as key=value lines, the format of the
conformance set's .expect files (tests/conformance/README.md):
    exit=0|1|3          what a reader reports: 0 read, 1 refused, 3 damaged
    end=clean|no-end-section|damaged
    damage_offset=X     (end=damaged only)
    events=N            data records in good pages
    cpuN_events=N       per CPU, only CPUs with events
    cpuN_last_ts=T      the time of the CPU's last event in file order (4.3.1)
    bad_pages=N         sub-buffers dropped as malformed
    lost_pages=N        good sub-buffers flagged "events were lost before"
    lost_total=N        sum of the counts stored on them
    lost_unknown=N      flagged pages without a usable count
With several files each block starts with "file=PATH". --why adds a reason= line.
Needs the `zstandard` module (Debian: python3-zstandard) for compressed payloads;
exits 77 when it is missing.
"""
import struct
import sys

try:
    import zstandard
except ImportError:  # pragma: no cover - the test skips then
    zstandard = None

MAGIC = b"\x89FTZ\r\n\x1a\n"
INFO, FILE, PAGES, END, SNAPSHOT = 1, 2, 3, 4, 5
KNOWN_TYPES = (INFO, FILE, PAGES, END, SNAPSHOT)
FLAG_ZSTD = 1
MAX_LEN = 1 << 30           # 3: stored_len / raw_len limit
MAX_PAYLOAD = 64 << 20      # 6.1: decode limit
MAX_CPU = 65536             # 6.1: CPU number limit
ZSTD_FRAME_MAGIC = b"\x28\xb5\x2f\xfd"


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


_CRC = _crc_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ _CRC[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


class Refused(Exception):
    """Not readable as a recording at all: exit 1."""


class Damage(Exception):
    """A section that fails a check: reading stops at its offset (exit 3)."""

    def __init__(self, offset, reason):
        super().__init__(reason)
        self.offset = offset


def zstd_payload(stored, raw_len):
    """Section 3: exactly one zstd frame, content size declared == raw_len,
    nothing before or after it. None when it is not that."""
    if stored[:4] != ZSTD_FRAME_MAGIC:
        return None
    try:
        params = zstandard.get_frame_parameters(stored)
    except zstandard.ZstdError:
        return None
    if params.content_size != raw_len:
        return None
    try:
        dobj = zstandard.ZstdDecompressor().decompressobj()
        out = dobj.decompress(stored)
    except zstandard.ZstdError:
        return None
    if len(out) != raw_len or not dobj.eof or dobj.unused_data:
        return None
    return out


def sections(data):
    """Yield (offset, type, payload or None) per section 6; raise Damage."""
    pos = 16
    while pos < len(data):
        hdr = data[pos:pos + 32]
        if len(hdr) < 32:
            raise Damage(pos, "truncated section header")
        stype, flags, stored_len, raw_len, pcrc, hcrc = struct.unpack("<IIQQII", hdr)
        if crc32c(hdr[:28]) != hcrc:
            raise Damage(pos, "section header checksum")
        if stored_len > MAX_LEN or raw_len > MAX_LEN:
            raise Damage(pos, "length over 1 GiB")
        known_flags = not flags & ~FLAG_ZSTD
        if known_flags and not flags & FLAG_ZSTD and raw_len != stored_len:
            raise Damage(pos, "uncompressed, raw_len != stored_len")
        decoded = known_flags and stype in KNOWN_TYPES
        if decoded and (stored_len > MAX_PAYLOAD or raw_len > MAX_PAYLOAD):
            raise Damage(pos, "payload over the 64 MiB decode limit")
        payload = data[pos + 32:pos + 32 + stored_len]
        if len(payload) < stored_len:
            raise Damage(pos, "truncated payload")
        if crc32c(payload) != pcrc:
            raise Damage(pos, "payload checksum")
        if not decoded:
            yield pos, stype, None      # unknown type or flags: skipped, not decompressed
        elif flags & FLAG_ZSTD:
            raw = zstd_payload(payload, raw_len)
            if raw is None:
                raise Damage(pos, "not one zstd frame of raw_len bytes")
            yield pos, stype, raw
        else:
            yield pos, stype, payload
        pos += 32 + stored_len


def kv(text):
    """4.1: key=value lines, the later key wins, a NUL ends the text."""
    text = text.split(b"\0", 1)[0]
    out = {}
    for line in text.split(b"\n"):
        key, eq, value = line.partition(b"=")
        if eq:
            out[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def named_payload(payload, fixed, name_len_at):
    """FILE / SNAPSHOT: (name, data), or None when the payload is invalid."""
    if len(payload) < fixed:
        return None
    (name_len,) = struct.unpack_from("<H", payload, name_len_at)
    name = payload[fixed:fixed + name_len]
    if name_len == 0 or len(name) < name_len or b"\0" in name:
        return None
    return name, payload[fixed + name_len:]


class Totals:
    def __init__(self):
        self.cpu_events = {}
        self.cpu_last_ts = {}
        self.bad_pages = 0
        self.lost_pages = 0
        self.lost_total = 0
        self.lost_unknown = 0


def walk_records(data, size, big, clock):
    """4.3.1: the records of one sub-buffer's data, the clock starting at the
    page's timestamp; (number of events, time of the last one), or None when a
    record does not lie wholly inside the data (a bad page)."""
    u32 = ">I" if big else "<I"
    pos = events = 0
    last_ts = None
    while pos < size:
        if pos + 4 > size:
            return None
        (word,) = struct.unpack_from(u32, data, pos)
        type_len = word >> 27 if big else word & 31
        delta = word & ((1 << 27) - 1) if big else word >> 5
        if type_len == 30 or type_len == 31:
            if pos + 8 > size:
                return None
            (ext,) = struct.unpack_from(u32, data, pos + 4)
            if type_len == 30:
                clock += (ext << 27) + delta
            else:
                clock = (clock & (0x1F << 59)) | ((ext << 27) + delta)
        else:
            clock += delta
        if type_len == 29:                      # padding: length in the next word
            if pos + 8 > size:
                return None
            (length,) = struct.unpack_from(u32, data, pos + 4)
            end = pos + 4 + length
        elif type_len in (30, 31):              # time extend, absolute time stamp
            end = pos + 8                       # (its clock change is above)
        elif type_len == 0:                     # length word, then the data
            if pos + 8 > size:
                return None
            (length,) = struct.unpack_from(u32, data, pos + 4)
            length = (length - 4) & 0xFFFFFFFF
            if length >= 1 << 31:               # a signed 32-bit value below 0
                return None
            length = (length + 3) & ~3
            if length == 0:
                return None
            end = pos + 8 + length
            events += 1
            last_ts = clock
        else:
            end = pos + 4 + 4 * type_len
            events += 1
            last_ts = clock
        if end > size:
            return None
        pos = end
    return events, last_ts


def walk_page(page, long_size, big, cpu, totals):
    order = "big" if big else "little"
    hdr = 8 + long_size
    commit = int.from_bytes(page[8:hdr], order)
    size = commit & 0x3FFFFFFF
    if len(page) < hdr or size > len(page) - hdr:
        totals.bad_pages += 1
        return
    walked = walk_records(page[hdr:hdr + size], size, big, int.from_bytes(page[:8], order))
    if walked is None:
        totals.bad_pages += 1
        return
    events, last_ts = walked
    if commit & (1 << 31):
        totals.lost_pages += 1
        at = hdr + size
        count = int.from_bytes(page[at:at + long_size], order)
        if not commit & (1 << 30) or at + long_size > len(page) or count >= 1 << 63:
            totals.lost_unknown += 1
        else:
            totals.lost_total += count
    if events:
        totals.cpu_events[cpu] = totals.cpu_events.get(cpu, 0) + events
        totals.cpu_last_ts[cpu] = last_ts


def read_header(data):
    """Section 2 / 6 step 1: raise Refused unless a 1.x header."""
    if len(data) < 16:
        if data and (MAGIC.startswith(data) or data.startswith(MAGIC)):
            raise Damage(0, "truncated file header")    # a recording cut short
        raise Refused("not an .ftz file")
    if data[:8] != MAGIC:
        raise Refused("not an .ftz file")
    major, _minor = struct.unpack_from("<HH", data, 8)
    if major != 1:
        raise Refused(f"format version {major}.x is not 1.x")


def read(path):
    """The outcome of reading PATH, as a dict of the .expect keys."""
    with open(path, "rb") as f:
        data = f.read()
    totals = Totals()
    out = {}
    info = None
    header_page = False
    end_seen = False
    damage = None
    pages = []          # (cpu, page bytes) in file order, decoded once INFO is known
    try:
        try:
            read_header(data)
        except Damage as d:
            return {"exit": 3, "end": "damaged", "damage_offset": 0, "reason": str(d)}
        try:
            first = True
            for off, stype, payload in sections(data):
                if first and (stype != INFO or payload is None):
                    raise Refused("the first section is not INFO")
                first = False
                if payload is None:
                    continue
                if stype == INFO:
                    if info is None:            # only the first INFO counts
                        info = kv(payload)
                elif stype == END:
                    end_seen = True
                    break                       # nothing after END is read
                elif stype == FILE:
                    named = named_payload(payload, 4, 2)
                    if named is None:
                        raise Damage(off, "invalid FILE payload")
                    if named[0] == b"events/header_page" and payload[0] in (0, 1):
                        header_page = True
                elif stype == SNAPSHOT:
                    if named_payload(payload, 24, 20) is None:
                        raise Damage(off, "invalid SNAPSHOT payload")
                elif stype == PAGES:
                    if len(payload) < 16:
                        raise Damage(off, "PAGES payload shorter than 16 bytes")
                    cpu, page_size, nr_pages, _ = struct.unpack_from("<IIII", payload)
                    if (page_size < 16 or cpu >= MAX_CPU or
                            len(payload) != 16 + nr_pages * page_size):
                        raise Damage(off, "invalid PAGES payload")
                    for i in range(nr_pages):
                        start = 16 + i * page_size
                        pages.append((cpu, payload[start:start + page_size]))
            if first:
                raise Refused("no INFO section")
        except Damage as d:
            damage = d
        if damage and (info is None or not header_page):
            # nothing is usable: the damage is the reason (exit 3, no counts)
            return {"exit": 3, "end": "damaged", "damage_offset": damage.offset,
                    "reason": f"{damage} before the metadata was complete"}
        if not header_page:
            raise Refused("no events/header_page")
        long_size = info.get("long_size", "8")
        endian = info.get("endian", "little")
        if long_size not in ("4", "8") or endian not in ("little", "big"):
            raise Refused("INFO long_size must be 4 or 8 and endian little or big")
        for cpu, page in pages:
            walk_page(page, int(long_size), endian == "big", cpu, totals)
    except Refused as r:
        return {"exit": 1, "reason": str(r)}
    if damage:
        out.update(exit=3, end="damaged", damage_offset=damage.offset, reason=str(damage))
    else:
        out.update(exit=0, end="clean" if end_seen else "no-end-section")
    out["events"] = sum(totals.cpu_events.values())
    for cpu in sorted(totals.cpu_events):
        out[f"cpu{cpu}_events"] = totals.cpu_events[cpu]
    for cpu in sorted(totals.cpu_last_ts):
        out[f"cpu{cpu}_last_ts"] = totals.cpu_last_ts[cpu]
    out.update(bad_pages=totals.bad_pages, lost_pages=totals.lost_pages,
               lost_total=totals.lost_total, lost_unknown=totals.lost_unknown)
    return out


def format_outcome(outcome, why=False):
    return "".join(f"{k}={v}\n" for k, v in outcome.items() if why or k != "reason")


def main(argv):
    why = "--why" in argv
    paths = [a for a in argv if a != "--why"]
    if not paths:
        sys.stderr.write(__doc__)
        return 2
    if zstandard is None:
        print("ftz_reader.py: the zstandard module is missing (Debian: python3-zstandard)",
              file=sys.stderr)
        return 77
    for path in paths:
        if len(paths) > 1:
            sys.stdout.write(f"file={path}\n")
        sys.stdout.write(format_outcome(read(path), why))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
