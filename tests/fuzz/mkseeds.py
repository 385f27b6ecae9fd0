#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkseeds.py FTZ_DIR DAT_DIR [DB_DIR [SET_DIR]] - seed corpora for the fuzz targets.

.ftz seeds: every samples/*.ftz cut down to what a fuzzer can mutate usefully --
sections decompressed (with the zstd program; a mutated zstd frame only ever
exercises the decompressor), /proc/kallsyms cut to 300 lines, the first PAGES
section of each CPU cut to 2 sub-buffers, 2 SNAPSHOT rounds -- and the small
captures of tests/hostile/gen.py and tests/syscalls/gen.py and the conformance set (tests/conformance/: one
small file per reading rule of FORMAT.md, each an edge the fuzzer starts next to).
trace.dat seeds: the trace.dat test files
(tests/data/tracedat), cut down alike (v7
ones through trace-cmd convert), and gen.py's.
Set seeds (SET_DIR): tests/fuzz/sets/'s disk ring and --rotate series, each joined into one
input for fuzz_set (tests/fuzz/harness.h).

Database seeds (DB_DIR, with $FTANA): `ftana db` of the small samples, the big
tables cut (symbols) and the file vacuumed into 1 KiB pages, and hand-made hostile
databases: views that recurse forever under the names reports read, values of every
type where numbers are expected, a meta of extreme times.
"""
import glob
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
from ftzgen import FILE, PAGES, SNAPSHOT, section  # noqa: E402


def sections(data):
    off = 16
    while off + 32 <= len(data):
        stype, flags, stored, raw = struct.unpack_from("<IIQQ", data, off)
        payload = data[off + 32:off + 32 + stored]
        if len(payload) < stored:
            return
        yield stype, flags, payload, raw
        off += 32 + stored


def unzstd(payload):
    r = subprocess.run(["zstd", "-d", "-q", "-c"], input=payload, capture_output=True)
    return r.stdout if r.returncode == 0 else None


def shrink(data):
    out = bytearray(data[:16])
    seen_cpus, snapshots = set(), 0
    for stype, flags, payload, raw in sections(data):
        if flags & 1:
            payload = unzstd(payload)
            if payload is None or len(payload) != raw:
                continue
        if stype == FILE:
            name_len = struct.unpack_from("<H", payload, 2)[0]
            name = payload[4:4 + name_len]
            keep = {b"/proc/kallsyms": 300, b"saved_tgids": 100, b"saved_cmdlines": 100}.get(name)
            if keep:
                body = payload[4 + name_len:].split(b"\n")[:keep]
                payload = payload[:4 + name_len] + b"\n".join(body) + b"\n"
        elif stype == PAGES:
            cpu, page_size, nr = struct.unpack_from("<III", payload)
            if cpu in seen_cpus:
                continue
            seen_cpus.add(cpu)
            keep = min(nr, 2)
            payload = struct.pack("<IIII", cpu, page_size, keep, 0) + \
                payload[16:16 + keep * page_size]
        elif stype == SNAPSHOT:
            snapshots += 1
            if snapshots > 2:
                continue
        out += section(stype, payload)
    return bytes(out)


def shrink_dat_v6(data, keep_pages=2, kallsyms_lines=300):
    """A trace.dat v6 (trace-cmd.dat(5)) with kallsyms cut and at most KEEP_PAGES
    pages per CPU; None if it is not one. Its metadata parsed, not understood:
    every other byte is copied as it was."""
    if data[:10] != b"\x17\x08\x44tracing" or data[10:12] != b"6\0":
        return None
    endian = "<" if data[12] == 0 else ">"
    page_size = struct.unpack_from(endian + "I", data, 14)[0]
    pos = 18

    def take(n):
        nonlocal pos
        pos += n
        return data[pos - n:pos]

    def num(fmt):
        return struct.unpack(endian + fmt, take(struct.calcsize(fmt)))[0]

    def cstr():
        end = data.index(b"\0", pos)
        return take(end - pos + 1)

    for _ in range(2):                                  # header_page, header_event
        cstr()
        take(num("Q"))
    for _ in range(num("I")):                           # ftrace formats
        take(num("Q"))
    for _ in range(num("I")):                           # systems
        cstr()
        for _ in range(num("I")):
            take(num("Q"))
    meta_end = pos
    kallsyms = take(num("I"))
    rest_start = pos
    take(num("I"))                                      # printk
    take(num("Q"))                                      # cmdlines
    cpus = num("I")
    if take(10) != b"options  \0":
        return None
    while True:
        opt = num("H")
        if opt == 0:
            break
        take(num("I"))
    if take(10) != b"flyrecord\0":
        return None
    cpu_data = [(num("Q"), num("Q")) for _ in range(cpus)]
    head = bytearray(data[:meta_end])
    kallsyms = b"\n".join(kallsyms.split(b"\n")[:kallsyms_lines]) + b"\n"
    head += struct.pack(endian + "I", len(kallsyms)) + kallsyms
    head += data[rest_start:pos - 16 * cpus]
    offset = len(head) + 16 * cpus
    offset += -offset % page_size
    table, blobs = bytearray(), bytearray()
    for off, size in cpu_data:
        chunk = data[off:off + min(size, keep_pages * page_size)]
        table += struct.pack(endian + "QQ", offset + len(blobs), len(chunk))
        blobs += chunk + b"\0" * (-len(chunk) % page_size)
    head += table
    return bytes(head) + b"\0" * (offset - len(head)) + bytes(blobs)


def trace_cmd_convert(src, dst, version, compression):
    cmd = ["trace-cmd", "convert", "-i", src, "-o", dst, "--file-version", version,
           "--compression", compression]
    return subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0


def small_dats(path, max_seed=100 * 1024):
    """Seeds from one trace.dat: whole files cost seconds per run (kallsyms,
    thousands of events), so v6 files are cut down; v7 files (compressed sections)
    go through trace-cmd convert: to v6, cut down, back to a compressed v7.
    Without trace-cmd a v7 file is used whole."""
    base = os.path.basename(path)[:-4]
    data = open(path, "rb").read()
    small = shrink_dat_v6(data)
    if small:
        return [(f"small-{base}.dat", small)]
    if not shutil.which("trace-cmd"):
        return [(base + ".dat", data)]
    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        v6, v7 = os.path.join(tmp, "v6.dat"), os.path.join(tmp, "v7.dat")
        if trace_cmd_convert(path, v6, "6", "none"):
            small = shrink_dat_v6(open(v6, "rb").read())
            if small and len(small) <= max_seed:
                seeds.append((f"small6-{base}.dat", small))
                open(v6, "wb").write(small)
                if trace_cmd_convert(v6, v7, "7", "any"):
                    seeds.append((f"small7-{base}.dat", open(v7, "rb").read()))
    return seeds


DB_SAMPLES = ("triage", "triage_stacks", "iolat", "case01_iolat", "funcgraph", "funcslower",
              "funccount", "funccount_profile", "kprobe_read", "tpoint", "opensnoop")
RECURSE = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "


def shrink_db(path):
    db = sqlite3.connect(path)
    for table in ("symbols", "symbols_addr"):
        try:
            db.execute(f"DELETE FROM {table} WHERE rowid > 50")
        except sqlite3.Error:
            pass
    db.commit()
    db.execute("PRAGMA page_size = 1024")
    db.execute("VACUUM")
    db.close()


def hostile_dbs(db_dir, base):
    """Copies of BASE (a database of a triage sample), each made hostile one way."""
    cases = {
        # a view that never ends, where reports read events and the io pairs
        "recurse-events": ["DROP VIEW IF EXISTS events", "DROP TABLE IF EXISTS events",
                           "CREATE VIEW events AS " + RECURSE +
                           "SELECT x AS id, x AS ts, 0 AS cpu, x AS pid, 'e' AS type FROM r"],
        "recurse-tasks": ["DROP TABLE tasks", "CREATE VIEW tasks AS " + RECURSE +
                          "SELECT x AS pid, x AS tgid, 'c' AS comm FROM r"],
        # text, blobs, reals and extremes where numbers belong
        "types": ["UPDATE sched_switch SET prev_pid = 'x', next_pid = x'00ff', prev_state = 1e308",
                  "UPDATE sched_switch SET ts = 9223372036854775807 WHERE id % 3 = 0",
                  "UPDATE sched_switch SET ts = -9223372036854775808 WHERE id % 3 = 1",
                  "UPDATE tasks SET comm = x'1b5b33316d0a07'"],
        "meta": ["UPDATE meta SET value = '-9223372036854775808' WHERE key LIKE '%ts%'",
                 "UPDATE meta SET value = 'x' WHERE key LIKE '%ns%'",
                 "INSERT INTO meta VALUES ('kept_views', 'meta,sqlite_master,' || hex(randomblob(40)))"],
        "no-meta": ["DROP TABLE meta"],
    }
    for name, statements in cases.items():
        path = os.path.join(db_dir, f"hostile-{name}.db")
        shutil.copy(base, path)
        db = sqlite3.connect(path)
        for sql in statements:
            try:
                db.execute(sql)
            except sqlite3.Error:
                pass
        db.commit()
        db.close()


def db_seeds(db_dir, ftana):
    os.makedirs(db_dir, exist_ok=True)
    for name in DB_SAMPLES:
        src = os.path.join(ROOT, "samples", name + ".ftz")
        out = os.path.join(db_dir, name + ".db")
        if not os.path.exists(src):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, HOME=tmp, XDG_CACHE_HOME=tmp)
            copy = os.path.join(tmp, name + ".ftz")
            shutil.copy(src, copy)
            if subprocess.run([ftana, "db", copy, "-o", out], env=env,
                              capture_output=True).returncode != 0:
                continue
        shrink_db(out)
    base = os.path.join(db_dir, "triage_stacks.db")  # small: a budget by size stops it soon
    if os.path.exists(base):
        hostile_dbs(db_dir, base)


SET_SEP = b"\n--ftz-set-member--\n"  # tests/fuzz/harness.h FUZZ_SET_SEP


def set_seeds(set_dir):
    """fuzz_set's seeds: each set of tests/fuzz/sets/ as one input, byte 0 1 for a
    ring (head first), 0 for a series; also each with its last member left out."""
    os.makedirs(set_dir, exist_ok=True)
    sets = os.path.join(ROOT, "tests", "fuzz", "sets")
    for kind, flag in (("ring", b"\1"), ("series", b"\0")):
        files = sorted(glob.glob(os.path.join(sets, kind, "*.ftz")), key=lambda p: (".ring-" in p, p))
        members = [open(p, "rb").read() for p in files]
        for n in range(1, len(members) + 1):
            with open(os.path.join(set_dir, f"{kind}-{n}.set"), "wb") as f:
                f.write(flag + SET_SEP.join(members[:n]))


def main():
    ftz_dir, dat_dir = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and os.environ.get("FTANA"):
        db_seeds(sys.argv[3], os.environ["FTANA"])
    if len(sys.argv) > 4:
        set_seeds(sys.argv[4])
    os.makedirs(ftz_dir, exist_ok=True)
    os.makedirs(dat_dir, exist_ok=True)
    have_zstd = shutil.which("zstd") is not None
    for path in sorted(glob.glob(os.path.join(ROOT, "samples", "*.ftz"))):
        data = open(path, "rb").read()
        name = os.path.basename(path)
        if have_zstd:
            open(os.path.join(ftz_dir, "small-" + name), "wb").write(shrink(data))
        else:
            shutil.copy(path, ftz_dir)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "conformance", "*.ftz"))):
        shutil.copy(path, os.path.join(ftz_dir, "conformance-" + os.path.basename(path)))
    dat_src = os.path.join(ROOT, "tests", "data", "tracedat")
    for path in sorted(glob.glob(os.path.join(dat_src, "*.dat"))):
        for name, seed in small_dats(path):
            open(os.path.join(dat_dir, name), "wb").write(seed)
    with tempfile.TemporaryDirectory() as tmp:
        # syscall entries and exits around losses: import_stream.c's tie rules
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "syscalls", "gen.py"), tmp],
                       check=True, stdout=subprocess.DEVNULL)
        for path in glob.glob(os.path.join(tmp, "*.ftz")):
            shutil.copy(path, os.path.join(ftz_dir, "syscalls-" + os.path.basename(path)))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "hostile", "gen.py"),
                        "--small", tmp], check=True)
        for path in glob.glob(os.path.join(tmp, "*")):
            dest = ftz_dir if path.endswith(".ftz") else dat_dir if path.endswith(".dat") else None
            if dest:
                shutil.copy(path, os.path.join(dest, "hostile-" + os.path.basename(path)))


if __name__ == "__main__":
    main()
