# SPDX-License-Identifier: MIT
"""gen.py OUTDIR - small .ftz captures of syscall entries and exits whose pairing the
test knows by construction (tests/test_syscall_totals.sh): losses after an entry, at an
exit's very time on the other CPU (either order of the tie), at an entry's time, times
that go back, a ret that is not a number. Written byte by byte with tests/hostile/
ftzgen.py (our C code computes nothing here); each capture's expected syscount line
(calls, unpaired, total_ns) is printed as NAME CALLS UNPAIRED TOTAL_NS, or NAME - for a
capture whose truth is only that every way of reading it agrees."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import ftzgen as g  # noqa: E402

ENTER, EXIT = 2000, 2001
MISSED = 1 << 31  # RB_MISSED_EVENTS in a page's commit word: a loss of unknown size


def formats(cap, ret_decl=("long ret", 16, 8, 1)):
    cap.info["events"] = "syscalls:sys_enter_getpid,syscalls:sys_exit_getpid"
    cap.event("syscalls", g.event_format("sys_enter_getpid", ENTER, [("int __syscall_nr", 8, 4, 1)],
                                         '"NR %d", REC->__syscall_nr'))
    cap.event("syscalls", g.event_format("sys_exit_getpid", EXIT, [("int __syscall_nr", 8, 4, 1), ret_decl],
                                         '"NR %d", REC->__syscall_nr'))


def enter(tid):
    return g.common(ENTER, tid) + struct.pack("<i", 39)


def leave(tid, ret=100):
    return g.common(EXIT, tid) + struct.pack("<iiq", 39, 0, ret)


def page(ts0, records, missed=False):
    """records: (time after ts0, data); missed: events were lost before this page."""
    recs, t = [], 0
    for at, data in records:
        recs.append((at - t, data))
        t = at
    p = bytearray(g.ring_page(recs, ts0))
    if missed:
        commit = struct.unpack_from("<Q", p, 8)[0]
        struct.pack_into("<Q", p, 8, commit | MISSED)
    return bytes(p)


def capture(cpu_pages, **fmt):
    cap = g.Capture(nr_cpus=len(cpu_pages))
    formats(cap, **fmt)
    cap.extra = [g.pages_sec(cpu, pgs) for cpu, pgs in enumerate(cpu_pages)]
    return cap.build()


T = 1_000_000_000
CASES = {
    # tid 10: a loss (CPU 1) after its entry and before its exit: unpaired. tid 11 after
    # the loss: paired, 2000 ns.
    "loss_between": (capture([
        [page(T, [(0, enter(10)), (5000, leave(10)), (6000, enter(11)), (8000, leave(11))])],
        [page(T + 3000, [(0, enter(20))], missed=True)]]), "3 2 2000"),
    # The loss is carried by CPU 1's first event at the very time of tid 10's exit on
    # CPU 0 (lost_events.ts <= the exit's: unpaired), and by CPU 0's at the time of tid
    # 21's exit on CPU 1: whichever CPU the merge takes first at a tie, one of the two
    # exits comes before its loss. tid 11 pairs (1000 ns); tid 20's entry carries the
    # loss at its own time, which is not after it: paired (500 ns).
    "loss_at_exit": (capture([
        [page(T, [(0, enter(10)), (4000, leave(10)), (5000, enter(11)), (6000, leave(11))]),
         page(T + 9000, [(0, enter(12))], missed=True)],
        [page(T + 4000, [(0, enter(20)), (500, leave(20)), (1000, enter(21)), (5000, leave(21))],
              missed=True)]]), "5 3 1500"),
    # Times that go back from one page to the next on CPU 0: the totals cannot be built
    # in one pass (the report reads the rows): it must agree all the same.
    "time_back": (capture([
        [page(T + 50000, [(0, enter(10)), (1000, leave(10))]),
         page(T, [(0, enter(11)), (2000, leave(11))])],
        [page(T + 20000, [(0, enter(20)), (300, leave(20))], missed=True)]]), "-"),
    # A ret of three bytes: not a number (a hostile format); the report reads the rows.
    "ret_bytes": (capture([
        [page(T, [(0, enter(10)), (700, leave(10))])]],
        ret_decl=("char ret[3]", 16, 3, 0)), "1 0 700"),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (data, expect) in CASES.items():
        with open(os.path.join(out, name + ".ftz"), "wb") as f:
            f.write(data)
        print(name, expect)


if __name__ == "__main__":
    main()
