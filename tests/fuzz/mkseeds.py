#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkseeds.py FTZ_DIR DAT_DIR - seed corpora for the fuzz targets.

.ftz seeds: every samples/*.ftz cut down to what a fuzzer can mutate usefully --
sections decompressed (with the zstd program; a mutated zstd frame only ever
exercises the decompressor), /proc/kallsyms cut to 300 lines, the first PAGES
section of each CPU cut to 2 sub-buffers, 2 SNAPSHOT rounds -- and the small
captures of tests/hostile/gen.py. trace.dat seeds: the trace.dat test files
(tests/data/tracedat, else ../shared/testdata/tracedat) and gen.py's.
"""
import glob
import os
import shutil
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
            if payload[4:4 + name_len] == b"/proc/kallsyms":
                body = payload[4 + name_len:].split(b"\n")[:300]
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


def main():
    ftz_dir, dat_dir = sys.argv[1], sys.argv[2]
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
    dat_src = os.path.join(ROOT, "tests", "data", "tracedat")
    if not os.path.isdir(dat_src):
        dat_src = os.path.join(os.path.dirname(ROOT), "shared", "testdata", "tracedat")
    for path in sorted(glob.glob(os.path.join(dat_src, "*.dat"))):
        shutil.copy(path, dat_dir)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "hostile", "gen.py"),
                        "--small", tmp], check=True)
        for path in glob.glob(os.path.join(tmp, "*")):
            dest = ftz_dir if path.endswith(".ftz") else dat_dir if path.endswith(".dat") else None
            if dest:
                shutil.copy(path, os.path.join(dest, "hostile-" + os.path.basename(path)))


if __name__ == "__main__":
    main()
