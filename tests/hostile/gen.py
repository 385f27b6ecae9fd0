#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py [--small] OUTDIR [CASE...] - write one hostile capture per class of issues 10 and 25
(trace.dat v7) into OUTDIR, and OUTDIR/MANIFEST saying what ftana must do with each
(tests/test_hostile.sh checks it).

Every capture is small (a few KB, the bombs ~100 KB; files_250k ~12 MB) and is
built from the format spec by ftzgen.py, never by our C code.

MANIFEST: one line per run, tab-separated:
    CASE  FILE  COMMAND  EXITS  RSS_MB  NOFILE  CHECK
COMMAND  db | info | tpoint | sql:QUERY | report:NAME [ARG...]  (ftana db / info / report
         tpoint / sql / report NAME FILE ARG..., the ARGs split at spaces)
EXITS    allowed exit codes, comma-separated (0 ok, 1 error, 3 damaged input)
RSS_MB   0, or a bound on peak RSS: then the unsanitized ftana runs under
         prlimit --as (twice the bound) and /usr/bin/time measures it
NOFILE   0, or a limit on open files for the run (prlimit --nofile)
CHECK    -, or checks separated by " ;; ": stdout=REGEX (a stdout line must
         match, grep -E), out=REGEX (a line of stdout or stderr), nostdout=REGEX
         (no stdout line may), nostderr=REGEX, time=SECONDS (wall-clock budget),
         errlines=N (stderr has exactly N non-empty lines)
Always checked besides, for every run: no sanitizer report, no signal death or
hang (timeout 60), exit 1 -> exactly one stderr line, no ESC byte in stdout or
stderr, no file created anywhere in the work dir but the capture's own cache
(FILE.db), in particular none named pwned* (the injected ATTACH/VACUUM paths)
and no *.tmp.* left.
"""
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftzgen import (Capture, FILE, FLAG_ZSTD, GOOD_ID, TraceDatV7, V7_HEADER_INFO,  # noqa: E402
                    V7_STRINGS, common, event_format, end_sec, file_payload, file_sec,
                    good_format, good_record, pages_bomb, pages_sec, ring_files, ring_page,
                    section, tracedat_v6, zstd_frame)

CASES = []  # (name, filename, bytes or {file name: bytes} of a set, [(command, exits, rss_mb, nofile, check)])

COUNT = "sql:select count(*) from events"


def case(name, data, runs, ext=".ftz"):
    CASES.append((name, name + ext, data, runs))


def standard(n_events, tpoint_check="-", db_exits="0"):
    """The commands on a file that is valid apart from its hostile part. The first, a
    report that asks for types the capture lacks, builds the cache by the lazy path (a
    pass that counts every event and hands out none); the count then extends it."""
    return [("report:summary", db_exits, 0, 0, "-"),
            (COUNT, db_exits, 0, 0, "-"),
            ("db", db_exits, 0, 0, "-"), ("info", "0", 0, 0, "-"),
            ("tpoint", "0", 0, 0, tpoint_check),
            (COUNT, "0", 0, 0, f"stdout=^ *{n_events} *$")]


def with_good(cap, n=3):
    """Add the good event type and N of its records."""
    cap.event("good", good_format())
    for i in range(n):
        cap.record(good_record(i))
    return n


# ---- SQL injection through names -------------------------------------------------
def sqli_system():
    # Two systems share the event name "ev", so the system name becomes part of the
    # table name and of the events view (import/import_plan.c).
    cap = Capture()
    n = with_good(cap)
    hostile = ["x\"(a);ATTACH 'pwned_sys.db' AS p;--",
               "y\" AS SELECT 1;VACUUM INTO 'pwned_vac.db';--",
               "z'); ATTACH DATABASE 'pwned_q.db' AS q; --"]
    for i, sysname in enumerate(hostile):
        cap.event(sysname, good_format(type_id=GOOD_ID + 1 + i))
        for j in range(2):
            cap.record(good_record(10 * i + j, type_id=GOOD_ID + 1 + i))
            n += 1
    case("sqli_system", cap.build(), standard(n, "stdout=x=0 s=hello"))


def sqli_event_field():
    # Event and field names as libtraceevent tokenizes them: quotes and keywords
    # that survive its tokenizer.
    cap = Capture()
    n = with_good(cap)
    evil_event = event_format('ev"ATTACH', GOOD_ID + 1,
                              [("int x\"); ATTACH 'pwned_field.db' AS f; --", 8, 4, 1),
                               ("int \"pwned_field2\"", 12, 4, 1)],
                              '"x=%d", REC->x')
    cap.event("good2", evil_event)
    cap.record(common(GOOD_ID + 1, 1) + struct.pack("<ii", 1, 2))
    keyword = event_format("select", GOOD_ID + 2, [("int from", 8, 4, 1), ("int where", 12, 4, 1)],
                           '"from=%d", REC->from')
    cap.event("good3", keyword)
    cap.record(common(GOOD_ID + 2, 1) + struct.pack("<ii", 5, 6))
    # libtraceevent refuses the quoted event name (one warning, that type is lost)
    # and drops the quoted field names: 4 or 5 events, never an injected statement.
    runs = standard(n + 2)
    runs[-1] = (COUNT, "0", 0, 0, f"stdout=^ *({n + 1}|{n + 2}) *$")
    case("sqli_event_field", cap.build(), runs)


def case_collide():
    cap = Capture()
    n = with_good(cap)
    tid = GOOD_ID + 1
    for sysname, ev in [("good", "EV"), ("good", "Ev"), ("A", "dup"), ("a", "dup"),
                        ("a", "A_dup"), ("B", "a_DUP")]:
        cap.event(sysname, good_format(ev, tid))
        cap.record(good_record(tid, type_id=tid))
        tid += 1
        n += 1
    case("case_collide", cap.build(), standard(n))


def reserved_names():
    # Our tables, views and indexes (schema/*.sql) and SQLite's own.
    cap = Capture()
    n = with_good(cap)
    tid = GOOD_ID + 1
    for ev in ["meta", "events", "Tasks", "symbols", "stacks", "event_types", "cpu_stats",
               "cpu_stats_delta", "lost_events", "profile_rounds", "function_profile",
               "symbols_addr", "lost_events_cpu", "sqlite_master", "sqlite_schema",
               "sqlite_sequence", "SQLITE_temp_master", "sqlite_stat1"]:
        cap.event("good" if tid % 2 else "sqlite", good_format(ev, tid))
        cap.record(good_record(tid, type_id=tid))
        tid += 1
        n += 1
    # A field named like our fixed columns.
    cap.event("good", event_format("cols", tid, [("int id", 8, 4, 1), ("int ts", 12, 4, 1),
                                                ("int ID", 16, 4, 1), ("int field_id", 20, 4, 1)],
                                   '"id=%d", REC->id'))
    cap.record(common(tid, 1) + struct.pack("<iiii", 1, 2, 3, 4))
    case("reserved_names", cap.build(), standard(n + 1))


# ---- crashes in our code -----------------------------------------------------------
def info_nul():
    cap = Capture()
    n = with_good(cap)
    # A NUL inside a value and no newline at the end: key lookup must stop at the
    # section's length, not at a NUL it assumes.
    cap.info_raw = b"hostname_x=ab\0cd\nzz=" + b"A" * 64
    cap.files.append(("saved_cmdlines", b"4242 ev\0il\n4243 ok\n"))
    cap.files.append(("events/good/nul/format", good_format("nul", GOOD_ID + 1)[:40] + b"\0" +
                      good_format("nul", GOOD_ID + 1)[40:]))
    case("info_nul", cap.build(), standard(n))


def field_layouts():
    cap = Capture()
    n = with_good(cap)
    specs = [("offset_2g", [("int big", 2147483640, 4, 1)]),
             ("offset_4g", [("int big", 4294967000, 4, 1)]),
             ("size_2g", [("char big[8]", 8, 2147483640, 1)]),
             ("size_odd", [("long big", 8, 3, 1)]),
             ("dataloc_out", [("__data_loc char[] big", 8, 4, 0)])]
    for i, (ev, fields) in enumerate(specs):
        tid = GOOD_ID + 1 + i
        cap.event("layout", event_format(ev, tid, fields, '"big=%d", REC->big'))
        # data_loc pointing 60000 bytes past the record, length 65535
        cap.record(common(tid, 1) + struct.pack("<I", (0xFFFF << 16) | 60000) + b"\xAB" * 8,
                   delta=1000)
        n += 1
    checks = [(f"sql:select count(*) from {ev} where big is not null", "0,1", 0, 0,
               "out=^ *0 *$|no such (column|table)") for ev, _ in specs[:2]]
    # tpoint: libtraceevent would print bytes from outside the record (a different
    # number each run): ftana prints those records' fields by its own code
    case("field_layouts", cap.build(),
         standard(n, "stdout=offset_4g: big=<outside the record>") + checks)


def pid_size3():
    cap = Capture()
    odd_common = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                            "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                            "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                            "\tfield:int common_pid;\toffset:4;\tsize:3;\tsigned:1;\n\n")
    cap.event("good", event_format("ev", GOOD_ID, [("int x", 8, 4, 1)], '"x=%d", REC->x',
                                   common_fields=odd_common))
    # A record of 8 bytes: an 8-byte read of common_pid at offset 4 runs past it.
    for i in range(3):
        cap.record(common(GOOD_ID, 0x00ABCDEF))
    # The pid is 3 bytes (0xABCDEF, or its sign-extended -5517841, or a BLOB); an
    # 8-byte read would pull in the next record's header.
    wide = ("sql:select count(*) from ev where typeof(pid) = 'integer' and "
            "(pid > 16777215 or pid < -8388608)")
    case("pid_size3", cap.build(), standard(3) + [(wide, "0", 0, 0, "stdout=^ *0 *$")])


# ---- libtraceevent on text from the file --------------------------------------------
def print_fmt_cases():
    fmts = {
        "pfmt_symbolic": '"%s", __print_symbolic(REC->nosuch, { 1, "a" })',
        "pfmt_sizeof": '"%d", sizeof(',
        "pfmt_div0": '"%d", 1/0',
        "pfmt_rec_div0": '"%d", REC->x / 0',
        "pfmt_mod0": '"%d", REC->x % (REC->x - REC->x)',
        "pfmt_print_hex": '"%s", __print_hex(REC->buf, 2147483647)',
        "pfmt_print_array": '"%s", __print_array(REC->buf, 1073741824, 8)',
        "pfmt_unterminated": '"%d %s %',
        # a function only a trace-cmd plugin defines (cfg80211's reads through its
        # argument as a pointer): harmless to ftana, SIGSEGV in `trace-cmd report`
        "pfmt_plugin_func": '"%d", __le16_to_cpup(REC->x)',
    }
    for name, pf in fmts.items():
        cap = Capture()
        n = with_good(cap)
        bad = event_format("bad", GOOD_ID + 1, [("int x", 8, 4, 1), ("char buf[8]", 12, 8, 0)], pf)
        cap.event("hostile", bad)
        for i in range(2):
            cap.record(common(GOOD_ID + 1, 7) + struct.pack("<i", 5) + b"ABCDEFGH")
            n += 1
        case(name, cap.build(), standard(n, "stdout=x=2 s=hello"))


def printk_malformed():
    cap = Capture()
    n = with_good(cap)
    cap.files.append(("printk_formats",
                      b"0xffffffff81000000 : \"ok %d\\n\"\n"
                      b"0xffffffff81000010 : \"unterminated\n"
                      b"0xffffffff81000020 :\n"
                      b"0xffffffff81000030\n"
                      b": \"no address\"\n"
                      b"garbage line without colon\n"
                      b"0xffffffff81000040 : \"" + b"x" * 5000 + b"\n"
                      b"0xffffffff81000050 : \""))
    cap.event("hostile", event_format("ptr", GOOD_ID + 1, [("const char * fmt", 8, 8, 0)],
                                      '"%s", REC->fmt'))
    for addr in (0xffffffff81000000, 0xffffffff81000010, 0xffffffff81000050, 0xffffffff81000040):
        cap.record(common(GOOD_ID + 1, 9) + struct.pack("<Q", addr))
        n += 1
    case("printk_malformed", cap.build(), standard(n, "stdout=x=2 s=hello"))


# ---- memory and descriptors follow what the file declares ---------------------------
# Either streamed within the bound (exit 0, the 3 good events counted) or refused
# with a one-line error naming the limit; "out of memory" dressed up as damage
# (what an address-space limit makes of a 1 GiB malloc) is neither.
BOMB_CHECK = "nostderr=out of memory|Cannot allocate"
BOMB_RUNS = [(cmd, "0,1,3", 512, 0, BOMB_CHECK) for cmd in ("db", "info", "tpoint")] + [
    (COUNT, "0,1,3", 512, 0, BOMB_CHECK + " ;; out=^ *3 *$|limit|too large|exceed|larger than")]
GIB = 1 << 30


def zstd_bombs():
    cap = Capture(nr_cpus=3)
    with_good(cap)
    data = cap.build()
    for cpu in range(3):
        data += pages_bomb(cpu, (GIB - 16) // 4096)
    case("zstd_bombs", data, BOMB_RUNS)


def ring_bombs():
    """A disk ring of 100 segments of 36 KB, each 12 PAGES bombs of 64 MiB (768 MiB,
    within the expansion limit of a file alone) after one good event: 75 GiB for the
    set, 30+ s of decompression were it read whole. The limit is the set's (1 GiB +
    1024 times all its files' size, FORMAT.md 6.1): the second segment is damaged
    there, in one line naming the limit, and nothing after it is decompressed."""
    head = Capture()
    head.event("good", good_format())
    bomb = pages_bomb(0, (64 << 20) // 4096 - 1)
    segments = [pages_sec(0, [ring_page([(1000, good_record(no))], 1000000 * no)]) + bomb * 12
                for no in range(1, 101)]
    where = ("out=: damaged at offset [0-9]+ \\(in ring_bombs\\.ring-000002\\.ftz: sections "
             "expand to over 1024 times the capture's size\\)")
    # the first two runs decode it (sanitized, then within 512 MB), the others its cache
    runs = [("report:summary", "3", 0, 0, where), (COUNT, "3", 512, 0, where + " ;; stdout=^ *2 *$"),
            ("info", "3", 0, 0, where + " ;; errlines=1"), ("db", "3", 0, 0, where + " ;; errlines=1"),
            ("tpoint", "3", 0, 0, where + " ;; stdout=x=2 s=hello ;; nostdout=x=3")]
    CASES.append(("ring_bombs", "ring_bombs.ftz", ring_files("ring_bombs", head, segments), runs))


def file_bombs():
    cap = Capture()
    with_good(cap)
    for i, name in enumerate(["junk/a", "/proc/kallsyms", "saved_cmdlines"]):
        prefix = file_payload(name, b"")
        raw = GIB - 64
        cap.extra.append(section(FILE, zstd_frame(prefix, raw - len(prefix), 0x41 + i),
                                 FLAG_ZSTD, raw_len=raw))
    case("file_bombs", cap.build(), BOMB_RUNS)


def cpus_3000():
    cap = Capture(nr_cpus=3000)
    cap.event("good", good_format())
    for cpu in range(3000):
        cap.record(good_record(cpu), cpu=cpu)
    runs = [("db", "0", 0, 256, "-"), ("info", "0", 0, 256, "-"),
            ("tpoint", "0", 0, 256, "stdout=x=2999 s=hello"),
            (COUNT, "0", 0, 256, "stdout=^ *3000 *$")]
    case("cpus_3000", cap.build(), runs)


def files_250k():
    cap = Capture()
    n = with_good(cap)
    sections = bytearray()
    for i in range(250000):
        sections += section(FILE, file_payload(f"f/{i}", b""))
    cap.extra.append(bytes(sections))
    runs = [("db", "0", 1024, 0, "time=30"), ("info", "0", 1024, 0, "time=30"),
            (COUNT, "0", 1024, 0, f"stdout=^ *{n} *$ ;; time=30")]
    case("files_250k", cap.build(), runs)


# ---- terminal escapes ---------------------------------------------------------------
def esc_text():
    esc = b"\x1b]0;owned\x07\x1b[2J\x1b[31m"
    cap = Capture(info_extra={"hostname": "h\x1b[2Jost", "uname_release": "6.\x1b]0;x\x07"})
    cap.event("good", good_format())
    cap.files.append(("saved_cmdlines", b"4242 ev" + esc + b"il\n"))
    for i in range(3):
        cap.record(good_record(i, b"s" + esc + b"\x08\x7f\x9b"))
    runs = standard(3) + [("sql:select s, pid from ev", "0", 0, 0, "-"),
                          ("sql:select comm from tasks", "0", 0, 0, "-")]
    case("esc_text", cap.build(), runs)


# ---- what INFO says stopped a --stop-if recording (import/import_stop.c) ------------
def stop_if_cases():
    """The synthetic event's table is named by the capture and the view capture_stop
    is made from it in C: quotes, SQL and escapes in its names and in the INFO keys
    stay data. The first of its events over the threshold is the stop; a latency of a
    day or more (a negative difference as u64) never is."""
    sysname = 'x";DROP TABLE meta;--'
    name = "ftrec_stop_1"  # libtraceevent takes an identifier only; one in another system too
    fields = [("u64 lat", 8, 8, 0), ("int pid", 16, 4, 1)]
    for case_name, lats, want in [("stop_if_names", [5, 2000000, 3000000], "2000000"),
                                  ("stop_if_negative", [5, (1 << 64) - 7, 1 << 62], None)]:
        cap = Capture(info_extra={"stop_if": "runq > 1ms\x1b[2J", "stop_kind": "runq' OR 1=1 --",
                                  "stop_threshold_ns": "1000000",
                                  "trigger_event": f"{sysname}:{name}"})
        n = with_good(cap)
        cap.event(sysname, event_format(name, GOOD_ID + 5, fields, '"lat=%llu", REC->lat'))
        cap.event("other", event_format(name, GOOD_ID + 6, fields, '"lat=%llu", REC->lat'))
        cap.record(common(GOOD_ID + 6, 78) + struct.pack("<Qi", 9000000, 1))
        for lat in lats:
            cap.record(common(GOOD_ID + 5, 77) + struct.pack("<Qi", lat, 4242))
        count = "sql:select count(*), max(lat_ns), max(tid) from capture_stop"
        if want:
            runs = [("info", "0", 0, 0, "stdout=^stop-if +runq > 1ms.*: .*2\\.000 ms"),
                    (count, "0", 0, 0, f"stdout=^ *1 +{want} +4242 *$"),
                    ("report:tpoint --before-stop 0.000002", "0", 0, 0, "stdout=lat=2000000")]
        else:
            runs = [("info", "0", 0, 0, "stdout=never held"),
                    (count, "0", 0, 0, "stdout=^ *0 *$"),
                    ("report:tpoint --before-stop 1", "1", 0, 0,
                     "out=not stopped by ftrec --stop-if")]
        case(case_name, cap.build(), standard(n + 4) + runs)


# ---- a 16 MiB name in saved_cmdlines -------------------------------------------------
def comm_16m():
    """The kernel's names have 15 bytes: one of 16 MiB, printed on each of its task's
    lines by tpoint, made gigabytes of output (the header outside the print child's
    time limit). Names are cut at 64 bytes wherever they are read: a .ftz's
    saved_cmdlines, and a trace.dat's cmdlines (libtracecmd's, which tpoint printed
    whole: a minute for three events under ASan)."""
    cmdlines = b"4242 " + b"A" * (16 << 20) + b"\n4243 ok\n"
    cap = Capture()
    n = with_good(cap)
    cap.files.append(("saved_cmdlines", cmdlines))
    runs = standard(n) + [("tpoint", "0", 400, 0, "nostdout=A{65}"),
                          ("sql:select length(comm) from tasks where pid = 4242", "0", 0, 0,
                           "stdout=^ *6[0-4] *$")]
    case("comm_16m", cap.build(), runs)
    dat = tracedat_v6([(b"good", [good_format()])], [(1000, good_record(i)) for i in range(n)],
                      cmdlines=cmdlines)
    case("comm_16m_dat", dat, runs, ext=".dat")


# ---- END's recording interval, written by whoever made the file ------------------------
def end_window():
    """traced_from_trace_ns and end_trace_ns bound every rate: negative, after the first
    event, at the int64 edge, not numbers. The window keeps to the events' own span
    where END says nonsense (capture_window never starts after the first event), and
    nothing overflows (UBSan)."""
    for name, text in (("end_window_edges", b"traced_from_trace_ns=-5\nend_trace_ns=9223372036854775807\n"),
                       ("end_window_late", b"traced_from_trace_ns=99999999999999999\nend_trace_ns=x\n")):
        cap = Capture()
        n = with_good(cap)
        cap.end = False
        runs = standard(n) + [
            ("sql:select start_ts <= (select value from meta where key = 'first_ts') from capture_window",
             "0", 0, 0, "stdout=^ *1 *$"),
            ("report:summary", "0", 0, 0, "-")]
        case(name, cap.build() + end_sec(b"stop_reason=test\n" + text), runs)


def wall_edges():
    """INFO's start_wall_ns and start_trace_ns at the int64 ends: their difference (the
    wall-clock offset) overflowed (UBSan); such a pair is no clock, so the capture has no
    wall-clock time, and info says no UTC start from it."""
    for name, wall, trace in (("wall_edges_max", "9223372036854775807", "-1"),
                              ("wall_edges_min", "-9223372036854775808", "1")):
        cap = Capture(info_extra={"start_wall_ns": wall, "start_trace_ns": trace})
        n = with_good(cap)
        runs = standard(n) + [
            ("sql:select count(*) from meta where key = 'wall_offset_ns'", "0", 0, 0, "stdout=^ *0 *$"),
            ("report:summary --wall", "0", 0, 0, "-")]
        case(name, cap.build(), runs)


# ---- ftrec's /proc/tgids, written by whoever made the file ---------------------------
def proc_tgids():
    # FORMAT.md 4.2: "TID TGID" decimal lines; anything else is skipped. 200,000 good
    # lines (pids 10000..209999), then lines no ftrec writes: negative, overflowing,
    # words, injection, escapes, NULs, a 10,000-byte line, no final newline.
    cap = Capture()
    n = with_good(cap)
    good = "".join(f"{p} {p + 1}\n" for p in range(10000, 210000)).encode()
    junk = (b"-5 10\n4242 -1\n99999999999 1\n1 99999999999999999999\n2147483648 1\n"
            b"abc def\n4242\n\n 4242\n4242 4242'); ATTACH 'pwned_tgid.db' AS p; --\n"
            b"4242 1e3\n4242 0x10\n4242 12abc\n\x1b[2J 1\n4242 \x1b]0;x\x07\n"
            b"7\x007 7\n5 " + b"9" * 10000 + b"\n6 6" + b"x" * 10000 + b"\n4242 4241")
    cap.files.append(("/proc/tgids", good + junk))
    end_tgids = b"4242 4240\n4243 x\n"
    capture = cap.build()
    # the END copy after the pages: 4242 is in process 4240 (END wins over START)
    end_at = capture.rindex(b"stop_reason=test\n") - 32
    capture = capture[:end_at] + file_sec("/proc/tgids", end_tgids, phase=1) + capture[end_at:]
    count = "sql:select count(*) from tasks where "
    runs = standard(n) + [
        (count + "tgid is not null", "0", 0, 0, "stdout=^ *200001 *$"),
        (count + "typeof(tgid) not in ('integer', 'null') or tgid < 0 or pid < 0",
         "0", 0, 0, "stdout=^ *0 *$"),
        ("sql:select tgid from tasks where pid = 4242", "0", 0, 0, "stdout=^ *4240 *$"),
        ("sql:select tgid from tasks where pid = 209999", "0", 0, 0, "stdout=^ *210000 *$"),
        (count + "pid in (4243, 5, 6, 7, 2147483647)", "0", 0, 0, "stdout=^ *0 *$")]
    case("proc_tgids", capture, runs)


# ---- a planted cache and a session that writes ------------------------------------
def planted_db():
    # Two captures of the same size: the test builds A's database, plants it as
    # B's cache with B's mtime, and B must still answer with B's own numbers.
    for tag, x in (("a", 111), ("b", 222)):
        cap = Capture()
        cap.event("good", good_format())
        cap.record(good_record(x))
        CASES.append((f"planted_{tag}", f"planted_{tag}.ftz", cap.build(),
                      [] if tag == "a" else
                      [("sql:select sum(x) from ev", "0", 0, 0, "stdout=^ *222 *$")]))


def sql_writes():
    cap = Capture()
    with_good(cap)
    refuse = [("sql:VACUUM INTO 'pwned_vacuum.db'", "1", 0, 0, "-"),
              ("sql:ATTACH 'pwned_attach.db' AS a", "1", 0, 0, "-"),
              ("sql:select 1; ATTACH 'pwned_attach2.db' AS a; select 2", "1", 0, 0, "-"),
              ("sql:CREATE TABLE main.pwned(x)", "1", 0, 0, "-"),
              ("sql:DELETE FROM meta", "1", 0, 0, "-"),
              ("sql:select count(*) from meta", "0", 0, 0, "stdout=^ *[1-9]")]
    case("sql_writes", cap.build(), [("db", "0", 0, 0, "-")] + refuse)


# ---- trace.dat ----------------------------------------------------------------------
def tracedat_cases():
    recs = [(1000, good_record(i)) for i in range(3)]
    recs += [(1000, good_record(10 + i, type_id=GOOD_ID + 1)) for i in range(2)]
    for name, sysname in [("tracedat_sqli", b"x\"(a);ATTACH 'pwned_dat.db' AS p;--"),
                          ("tracedat_longsys", b"\"'" * 3000 + b"; VACUUM INTO 'pwned_long.db'")]:
        dat = tracedat_v6([(b"good", [good_format()]),
                           (sysname, [good_format(type_id=GOOD_ID + 1)])], recs,
                          cmdlines=b"4242 dat\n")
        case(name, dat, standard(5, "stdout=x=2 s=hello"), ext=".dat")


# ---- trace.dat v7: what its headers declare (decode/tracedat_check.c) -----------------
# libtracecmd mallocs and decompresses every size a v7 file declares and follows its
# offsets anywhere; each of these must be refused before it reads the file, in one
# line naming the file, with exit 3 (damaged, as every trace.dat it cannot open).
def v7_refused(why):
    check = (f"out=tracedat_v7_[a-z_]+\\.dat: damaged trace\\.dat \\(v7\\) at offset [0-9]+: {why}"
             " ;; errlines=1 ;; time=10")
    return [(cmd, "3", 0, 0, check) for cmd in ("info", "db", "tpoint", COUNT)] + \
        [("info", "3", 128, 0, check)]


def v7_capture(big=False):
    """Two CPUs, five good:ev events (three on CPU 0), in the file's byte order."""
    e = ">" if big else "<"
    recs = {0: [(1000, good_record(i, e=e)) for i in range(3)],
            1: [(1000, good_record(10 + i, e=e)) for i in range(2)]}
    return TraceDatV7([(b"good", [good_format()])], recs, big=big, cmdlines=b"4242 dat\n")


def tracedat_v7_cases():
    # the builder's files as they are: read in full (the check refuses no valid file)
    for name, big in [("tracedat_v7_good", False), ("tracedat_v7_good_be", True)]:
        case(name, v7_capture(big).build(), standard(5, "stdout=x=2 s=hello"), ext=".dat")
    # the last options section's DONE names the first: handle_options recurses forever
    dat = v7_capture()
    dat.loop = True
    case("tracedat_v7_options_loop", dat.build(), v7_refused("the options sections go back"),
         ext=".dat")
    # a section whose size (2^64 - 16) takes the section walk back to its own header
    dat = v7_capture()
    dat.before = struct.pack("<HHIQ", 99, 0, 0, (1 << 64) - 16)
    case("tracedat_v7_section_back", dat.build(),
         v7_refused("section 99 of [0-9]+ bytes runs past the end of the file"), ext=".dat")
    # CPU 0's chunk table says a million chunks and holds one: truncated
    dat = v7_capture()
    dat.chunk_count = {0: 1000000}
    case("tracedat_v7_chunk_count", dat.build(),
         v7_refused("1000000 chunks declared where their section has room for [0-9]+"), ext=".dat")


def v7_chunked(chunks):
    """v7_capture's file with each CPU's data in CHUNKS(its page of events)."""
    dat = v7_capture()
    for cpu, recs in dat.records.items():
        page = ring_page(recs, 1000000 + 1000000 * cpu, dat.page_size)
        dat.cpu_chunks[cpu] = chunks(page)
    return dat.build()


def tracedat_v7_bombs():
    # a compressed section declaring ~2 GiB (libtracecmd's sizes are ints: it mallocs
    # and fills up to 2 GiB, fails at once above) or ~4 GiB, from a zstd frame of RLE
    # blocks that does expand to it (64 or 128 KiB of file): the header info, the
    # strings (read first, in tracecmd_alloc_fd), the header info of a big-endian file
    for name, sid, big, raw in [("tracedat_v7_section_bomb", V7_HEADER_INFO, False, 31),
                                ("tracedat_v7_strings_bomb", V7_STRINGS, False, 32),
                                ("tracedat_v7_be_bomb", V7_HEADER_INFO, True, 31)]:
        dat = v7_capture(big)
        raw = (1 << raw) - (1 << 16)
        dat.bombs = {sid: raw}
        case(name, dat.build(), v7_refused(f"a [a-z]+ section declares {raw} bytes, over the "
                                           "1024 MiB one block may expand to"), ext=".dat")
    # flyrecord chunks of 512 MiB each (a page of events, then empty pages), within one
    # block's bound, 4 GiB together (over 1024 times the file's size). libtracecmd 1.3
    # keeps every chunk it decompressed until it closes the file, so the first chunk
    # is already over what it may hold (64 MiB + 64 times the file's size) ...
    held = v7_refused("its chunks expand to over [0-9]+ bytes, which libtracecmd holds at "
                      "once \\(64 MiB \\+ 64 times the file's size\\)")
    case("tracedat_v7_chunk_bombs", v7_chunked(lambda page: [(page, 512 << 20)] * 4), held,
         ext=".dat")
    # ... as is 1 GiB of them from a ~70 KB file, within the expansion budget ...
    case("tracedat_v7_chunks_held", v7_chunked(lambda page: [(page, 256 << 20)] * 2), held,
         ext=".dat")
    # ... and 48 MiB of them is read whole, in at most 64 MiB + the metadata's 128
    case("tracedat_v7_chunks_within",
         v7_chunked(lambda page: [(page, 8 << 20)] + [(bytes(len(page)), 8 << 20)] * 2),
         standard(5, "stdout=x=2 s=hello") + [("info", "0", 250, 0, "-"),
                                              (COUNT, "0", 250, 0, "stdout=^ *5 *$")],
         ext=".dat")


def main():
    args = sys.argv[1:]
    # --small: leave out the captures that are big or expand to GiB (fuzz seeds).
    small = "--small" in args
    args = [a for a in args if a != "--small"]
    out = args[0]
    os.makedirs(out, exist_ok=True)
    big = (zstd_bombs, ring_bombs, file_bombs, cpus_3000, files_250k, proc_tgids, comm_16m,
           tracedat_v7_bombs)  # no fuzz seeds
    for gen in (sqli_system, sqli_event_field, case_collide, reserved_names, info_nul,
                field_layouts, pid_size3, print_fmt_cases, printk_malformed, proc_tgids,
                zstd_bombs, ring_bombs,
                file_bombs, cpus_3000, files_250k, esc_text, stop_if_cases, comm_16m, end_window, wall_edges,
                planted_db, sql_writes,
                tracedat_cases, tracedat_v7_cases, tracedat_v7_bombs):
        if not (small and gen in big):
            gen()
    only = set(args[1:])
    with open(os.path.join(out, "MANIFEST"), "w") as m:
        for name, fname, data, runs in CASES:
            if only and name not in only:
                continue
            for member, content in (data if isinstance(data, dict) else {fname: data}).items():
                with open(os.path.join(out, member), "wb") as f:
                    f.write(content)
            for cmd, exits, rss, nofile, check in runs:
                m.write("\t".join([name, fname, cmd, exits, str(rss), str(nofile), check]) + "\n")


if __name__ == "__main__":
    main()
