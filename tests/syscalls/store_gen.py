# SPDX-License-Identifier: MIT
"""store_gen.py - captures for tests/test_syscall_store.sh: syscall entries and exits
written byte by byte (tests/hostile/ftzgen.py; our C code computes nothing here) on
several CPUs, whose pairing this file knows by construction and by its own model of the
rule (import/syscall_pairing.c's comment: an entry pairs with its thread's next syscall
event when that is the exit of the same NAME and no event was lost on any CPU after the
entry's time and up to the exit's; a loss is at the time of the event that carries it,
the first of a page flagged RB_MISSED_EVENTS).

  store_gen.py cases OUTDIR          the hand-made captures
  store_gen.py fuzz OUTDIR SEED N    N small random captures from SEED
  store_gen.py check TRUTH DIR       ok/FAIL lines: DIR's NAME.store.db and NAME.rows.db
                                     against the lines cases or fuzz printed, and each other
  store_gen.py dump DB...            each DB's syscall contents as text, into DB.dump

cases and fuzz write OUTDIR/NAME.ftz and print one line per capture:
  NAME STORE EVENTS CALLS PAIRED LONE DUR_NS XCPU TYPES
STORE: pairs when the import must store the syscalls as their pairs, rows when it must
give up (meta syscall_store not 'pairs'), none without a syscall event; EVENTS the
capture's events (its kernel stacks aside); CALLS the entries; PAIRED the entries paired
with their exit; LONE the exits no pair holds; DUR_NS the paired calls' total time; XCPU
the pairs whose exit is on another CPU than the entry; TYPES TYPE=COUNT,... every syscall
type's events. A '-' where the pairing depends on how the decoder merges times that go
back.
"""
import os
import random
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import ftzgen as g  # noqa: E402

MISSED = 1 << 31  # RB_MISSED_EVENTS in a page's commit word: a loss of unknown size
AT_FDCWD = (1 << 64) - 100

# NAME: (__syscall_nr, sys_enter ID, sys_exit ID, the entry's arguments), as a kernel's
# formats have them: every argument 8 bytes from offset 16, unsigned.
SYSCALLS = {
    "read": (0, 712, 711, ["unsigned int fd", "char * buf", "size_t count"]),
    "write": (1, 714, 713, ["unsigned int fd", "const char * buf", "size_t count"]),
    "openat": (257, 654, 653, ["int dfd", "const char * filename", "int flags", "umode_t mode"]),
    "close": (3, 600, 599, ["unsigned int fd"]),
    "getpid": (39, 230, 229, []),
    "futex": (202, 402, 401, ["u32 * uaddr", "int op", "u32 val", "const struct __kernel_timespec * utime",
                              "u32 * uaddr2", "u32 val3"]),
    "exit_group": (231, 300, 299, ["int error_code"]),
}
NAMES = sorted(SYSCALLS)
GOOD = g.GOOD_ID  # a non-syscall event ("good:ev") among them
STACK_ID = 4
STACK_FORMAT = g.event_format("kernel_stack", STACK_ID, [("int size", 8, 4, 1), ("unsigned long caller[8]", 16, 64, 0)],
                              '"\\t=> %ps\\n", (void *)REC->caller[0]')


def stack_ev(cpu, ts, tid):
    """A kernel_stack event of two frames."""
    data = g.common(STACK_ID, tid) + struct.pack("<iI", 2, 0) + struct.pack("<8Q", 0xffffffff81000010,
                                                                           0xffffffff81000020, *[0] * 6)
    return Ev(cpu, ts, "stack", None, tid, data, STACK_ID)


def enter_format(name, args=None, nr_decl=("int __syscall_nr", 8, 4, 1)):
    nr, eid, _, default = SYSCALLS[name]
    args = default if args is None else args
    fields = [nr_decl] + [(a if isinstance(a, tuple) else (a, 16 + 8 * i, 8, 0)) for i, a in enumerate(args)]
    return g.event_format("sys_enter_" + name, eid, fields, '"%d", REC->__syscall_nr')


def exit_format(name, ret_decl=("long ret", 16, 8, 1)):
    return g.event_format("sys_exit_" + name, SYSCALLS[name][2], [("int __syscall_nr", 8, 4, 1), ret_decl],
                          '"0x%lx", REC->ret')


class Ev:
    """One event: on CPU at TS; kind enter/exit/good/stack; its record's bytes."""
    __slots__ = ("cpu", "ts", "kind", "name", "tid", "data", "missed", "type_id")

    def __init__(self, cpu, ts, kind, name, tid, data, type_id):
        self.cpu, self.ts, self.kind, self.name, self.tid, self.data = cpu, ts, kind, name, tid, data
        self.type_id = type_id
        self.missed = False


class Cap:
    """A capture under construction: events per CPU in their order, the formats."""

    def __init__(self, nr_cpus, names=NAMES, stack_format=False, info=None):
        self.nr_cpus = nr_cpus
        self.cpus = [[] for _ in range(nr_cpus)]
        self.formats = {}     # type name -> format bytes
        self.type_ids = {}    # type name -> id
        for n in names:
            self.set_format("sys_enter_" + n, enter_format(n))
            self.set_format("sys_exit_" + n, exit_format(n))
        self.stack_format = stack_format
        self.info = dict(info or {})
        self.back = False     # times go back: the merge's order decides the pairing
        self.page_break = set()  # (cpu, index) where a new page starts

    def set_format(self, tname, fmt):
        self.formats[tname] = fmt
        self.type_ids[tname] = int(fmt.split(b"\nID: ", 1)[1].split(b"\n", 1)[0])

    def drop_format(self, tname):
        self.formats.pop(tname, None)
        self.type_ids.pop(tname, None)

    def add(self, cpu, ts, kind, name, tid, data, type_id):
        e = Ev(cpu, ts, kind, name, tid, data, type_id)
        self.cpus[cpu].append(e)
        return e

    def enter(self, cpu, ts, name, tid, args=None, nr=None, size=None):
        nargs = len(SYSCALLS[name][3])
        args = list(args) if args is not None else [0] * nargs
        data = g.common(SYSCALLS[name][1], tid) + struct.pack("<iI", SYSCALLS[name][0] if nr is None else nr, 0)
        data += b"".join(struct.pack("<Q", a % (1 << 64)) for a in args)
        if size is not None:
            data = data[:size]
        return self.add(cpu, ts, "enter", name, tid, data, SYSCALLS[name][1])

    def exit(self, cpu, ts, name, tid, ret=0, nr=None, size=None, ret_bytes=None):
        data = g.common(SYSCALLS[name][2], tid) + struct.pack("<iI", SYSCALLS[name][0] if nr is None else nr, 0)
        data += ret_bytes if ret_bytes is not None else struct.pack("<q", ret)
        if size is not None:
            data = data[:size]
        return self.add(cpu, ts, "exit", name, tid, data, SYSCALLS[name][2])

    def good(self, cpu, ts, x=0, tid=4242):
        return self.add(cpu, ts, "good", None, tid, g.good_record(x, pid=tid), GOOD)


    # ---------------------------------------------------------------- the bytes
    def pages(self, cpu, rng):
        evs, pages, recs, used, t, ts0, missed = self.cpus[cpu], [], [], 0, 0, None, False
        prev = None

        def close():
            p = bytearray(g.ring_page(recs, ts0))
            if missed:
                struct.pack_into("<Q", p, 8, struct.unpack_from("<Q", p, 8)[0] | MISSED)
            pages.append(bytes(p))

        for i, e in enumerate(evs):
            size = 4 + len(e.data) + (-len(e.data) % 4)
            new = (ts0 is None or used + size > 4096 - 16 or e.missed or (cpu, i) in self.page_break or
                   e.ts < t or e.ts - t >= (1 << 27))
            if new:
                if recs:
                    close()
                # the page's time a little before its first event's, never before the last
                lead = 0 if prev is None or e.ts < prev or not rng else min(rng.randrange(0, 40), e.ts - prev)
                ts0, t, recs, used, missed = e.ts - lead, e.ts - lead, [], 0, e.missed
            recs.append((e.ts - t, e.data))
            t = e.ts
            used += size
            prev = e.ts
        if recs:
            close()
        return pages

    def build(self, seed=0):
        rng = random.Random(seed)
        cap = g.Capture(nr_cpus=self.nr_cpus, info_extra=self.info)
        cap.info["events"] = ",".join("syscalls:" + n for n in self.formats) + ",good:ev"
        for n, fmt in self.formats.items():
            cap.event("syscalls", fmt)
        cap.event("good", g.good_format())
        if self.stack_format:
            cap.event("ftrace", STACK_FORMAT)
        cap.extra = [g.pages_sec(c, self.pages(c, rng)) for c in range(self.nr_cpus) if self.cpus[c]]
        return cap.build()

    # ---------------------------------------------------------------- the truth
    def truth(self):
        """EVENTS CALLS PAIRED LONE DUR_NS XCPU TYPES, by the rule."""
        allev = [e for c in self.cpus for e in c if e.kind != "stack"]  # (stacks: no event row)
        types = {}
        for e in allev:
            if e.kind in ("enter", "exit"):
                tn = ("sys_enter_" if e.kind == "enter" else "sys_exit_") + e.name
                types[tn] = types.get(tn, 0) + 1
        tstr = ",".join(f"{k}={types[k]}" for k in sorted(types)) or "none"
        calls = sum(1 for e in allev if e.kind == "enter")
        exits = sum(1 for e in allev if e.kind == "exit")
        if self.back:
            return f"{len(allev)} {calls} - - - - {tstr}"
        for c in self.cpus:
            assert all(a.ts <= b.ts for a, b in zip(c, c[1:])), "a CPU's times go back: set back"
        losses = sorted({e.ts for c in self.cpus for e in c if e.missed})
        # a thread's events in their order: the model keeps a thread's events at one time on one CPU
        order = sorted(((e.ts, e.cpu, i, e) for c in self.cpus for i, e in enumerate(c)), key=lambda x: x[:3])
        pending, paired, dur, xcpu = {}, 0, 0, 0
        last_seen = {}
        for ts, cpu, _, e in order:
            if e.kind not in ("enter", "exit"):
                continue
            assert e.tid not in last_seen or last_seen[e.tid][0] < ts or last_seen[e.tid][1] == cpu, \
                f"tid {e.tid}: two CPUs at {ts}"
            last_seen[e.tid] = (ts, cpu)
            p = pending.pop(e.tid, None)
            if e.kind == "enter":
                pending[e.tid] = e
                continue
            if p and p.name == e.name and not any(p.ts < loss <= e.ts for loss in losses):
                paired += 1
                dur += e.ts - p.ts
                xcpu += p.cpu != e.cpu
        return f"{len(allev)} {calls} {paired} {exits - paired} {dur} {xcpu} {tstr}"


# ------------------------------------------------------------------ random traffic
def traffic(cap, rng, tids, t0, n, *, p_migrate=0.2, p_lose=0.0, p_same_ts=0.1, p_oddity=0.1,
            names=None, p_short=0.05, gap=(1, 3000)):
    """n syscall events of TIDS spread over cap's CPUs from t0: calls, some left running
    (an entry followed by another entry, or no exit at all), exits with no entry (a
    call entered before the capture), an exit of another syscall than the entry's.
    Returns the last time used."""
    names = names or [n_ for n_ in NAMES if "sys_enter_" + n_ in cap.formats and "sys_exit_" + n_ in cap.formats]
    state = {tid: None for tid in tids}          # tid -> (name, cpu) inside a call
    where = {tid: rng.randrange(cap.nr_cpus) for tid in tids}
    last = {tid: (-1, -1) for tid in tids}       # tid -> its last (ts, cpu)
    t = t0
    for k in range(n):
        if rng.random() > p_same_ts:
            t += rng.randint(*gap)
        tid = rng.choice(tids)
        cpu = where[tid]
        if rng.random() < p_migrate:
            cpu = rng.randrange(cap.nr_cpus)
        if last[tid][0] == t and last[tid][1] != cpu:
            cpu = last[tid][1]  # a thread's events at one time on one CPU (the model's order)
        where[tid] = cpu
        last[tid] = (t, cpu)
        inside = state[tid]
        odd = rng.random() < p_oddity
        if inside is None:
            name = rng.choice(names)
            if odd and k < n // 3:
                # an exit with no entry: the capture started mid-call
                cap.exit(cpu, t, name, tid, ret=rng.choice([0, -2, 5, 1 << 40]))
                continue
            e = cap.enter(cpu, t, name, tid, args=rand_args(rng, name),
                          size=short_size(rng, name) if rng.random() < p_short else None)
            state[tid] = name
        else:
            name = inside
            if odd:
                if rng.random() < 0.5:
                    # another entry of the same thread: the first never exits
                    name = rng.choice(names)
                    cap.enter(cpu, t, name, tid, args=rand_args(rng, name))
                    state[tid] = name
                    e = None
                else:
                    # the exit of another syscall than the pending entry's
                    other = rng.choice([x for x in names if x != inside] or names)
                    e = cap.exit(cpu, t, other, tid, ret=-rng.randint(1, 4095))
                    state[tid] = None
            else:
                e = cap.exit(cpu, t, name, tid, ret=rand_ret(rng),
                             size=12 if rng.random() < p_short / 2 else None)
                state[tid] = None
        if e is not None and rng.random() < p_lose:
            e.missed = True
    return t


def rand_args(rng, name):
    out = []
    for decl in SYSCALLS[name][3]:
        r = rng.random()
        if "dfd" in decl:
            out.append(AT_FDCWD if r < 0.7 else rng.randint(0, 20))
        elif r < 0.25:
            out.append(rng.randint(1 << 63, (1 << 64) - 1))  # >= 2^63: unsigned 8 bytes
        elif r < 0.35:
            out.append((1 << 64) - 1)
        else:
            out.append(rng.randint(0, 1 << 40))
    return out


def rand_ret(rng):
    r = rng.random()
    return rng.choice([-2, -13, -4095, -4096, 0]) if r < 0.3 else (-(1 << 63) if r < 0.33 else rng.randint(0, 1 << 20))


def short_size(rng, name):
    """A record that ends inside its arguments: those after the cut are NULL."""
    nargs = len(SYSCALLS[name][3])
    return 16 + 8 * rng.randrange(nargs) + rng.choice([0, 4]) if nargs else 12


def lose_on(cap, cpu, ts, tid=4242, good=False):
    """A loss carried by an event at TS on CPU (an exit or a good:ev event)."""
    e = cap.good(cpu, ts, tid=tid) if good else cap.exit(cpu, ts, "getpid", tid, ret=0)
    e.missed = True
    return e


# ------------------------------------------------------------------ the hand-made cases
T = 1_000_000_000


def case_mixed(seed, nr_cpus, ntids, n, p_lose):
    rng = random.Random(seed)
    cap = Cap(nr_cpus)
    t = traffic(cap, rng, list(range(100, 100 + ntids)), T, n, p_lose=p_lose, p_migrate=0.25, p_oddity=0.12)
    # a good:ev on every CPU after the calls
    for c in range(nr_cpus):
        cap.good(c, t + 10 + c, x=c)
    return cap


def case_loss_tie(exit_cpu, loss_cpu, good):
    """tid 10 enters on CPU 0 at T and exits at T+4000 on EXIT_CPU; a loss is carried
    by LOSS_CPU's first event of a flagged page at exactly T+4000 (the merge takes
    either CPU first at the tie): unpaired either way. tid 11's call after it pairs;
    tid 12's call around it on a third CPU does not; tid 13 enters AT the loss's time
    and pairs."""
    cap = Cap(3)
    cap.enter(0, T, "read", 10, args=[3, 0x7fff0000, 4096])
    cap.enter(2, T + 100, "close", 12, args=[5])
    cap.good(loss_cpu, T + 200)
    cap.enter(loss_cpu, T + 300, "getpid", 14)
    cap.exit(loss_cpu, T + 500, "getpid", 14, ret=14)      # pairs: before the loss
    cap.exit(exit_cpu, T + 4000, "read", 10, ret=4096)
    lose_on(cap, loss_cpu, T + 4000, good=good)
    cap.enter(2, T + 4000, "write", 13, args=[1, 0x1000, 7])  # AT the loss: pairs
    cap.exit(2, T + 4600, "write", 13, ret=7)
    cap.exit(2, T + 4700, "close", 12, ret=0)
    cap.enter(0, T + 5000, "getpid", 11)
    cap.exit(1, T + 6000, "getpid", 11, ret=11)  # on another CPU: exit_cpu
    return cap


def case_two_losses(exit_cpu, loss_cpus):
    """tids 10 and 11 enter before T+4000 and exit at T+4000 on EXIT_CPU; two losses at
    exactly T+4000, each the first event of a flagged page on one of LOSS_CPUS (twice
    the same CPU: two pages): both calls unpaired, each exit lone once. tid 12 after
    them pairs."""
    cap = Cap(3, names=["getpid", "read"])
    cap.enter(exit_cpu, T, "read", 10, args=[0, 1 << 63, 8])
    cap.enter(exit_cpu, T + 100, "getpid", 11)
    cap.exit(exit_cpu, T + 4000, "read", 10, ret=8)
    cap.exit(exit_cpu, T + 4000, "getpid", 11, ret=11)
    for i, c in enumerate(loss_cpus):
        lose_on(cap, c, T + 4000, tid=77 + i, good=True)
    cap.enter(exit_cpu, T + 5000, "getpid", 12)
    cap.exit(exit_cpu, T + 6000, "getpid", 12, ret=12)
    return cap


def case_same_ts(n, loss_cpu):
    """N calls entered and exited at one time T on CPU 0 (tids 1000..), calls entered
    before T and exited at T on CPU 1 (tids 5000..), and a loss at T carried by CPU
    LOSS_CPU's flagged page, 0 (after CPU 0's pairs at T... the merge decides) or 2:
    every call entered before T and exited at T is unpaired, those entered at T pair."""
    cap = Cap(3, names=["getpid", "read"])
    for i in range(50):
        cap.enter(1, T - 1000 + i, "read", 5000 + i, args=[i, 0, 10])
    for i in range(n):
        cap.enter(0, T, "getpid", 1000 + i)
        cap.exit(0, T, "getpid", 1000 + i, ret=1000 + i)
    for i in range(50):
        cap.exit(1, T, "read", 5000 + i, ret=10)
    if loss_cpu == 2:
        lose_on(cap, 2, T, tid=77, good=True)
    else:
        cap.page_break.add((loss_cpu, len(cap.cpus[loss_cpu])))
        e = cap.good(loss_cpu, T, tid=77)
        e.missed = True
    cap.enter(0, T + 10, "getpid", 9)
    cap.exit(0, T + 20, "getpid", 9, ret=9)
    return cap


def case_recent(n):
    """N calls paired at one time: the store holds 65536 (RECENT_MAX), past that it
    gives up (rows)."""
    cap = Cap(2, names=["getpid"])
    cap.enter(1, T - 5, "getpid", 7)
    for i in range(n):
        cap.enter(0, T, "getpid", 1000 + i % 7)
        cap.exit(0, T, "getpid", 1000 + i % 7, ret=i)
    cap.exit(1, T + 5, "getpid", 7, ret=7)
    return cap


def case_simple(seed, **kw):
    rng = random.Random(seed)
    cap = Cap(kw.pop("cpus", 2), **kw)
    traffic(cap, rng, [20, 21, 22, 23], T, 80, p_lose=0.05)
    return cap


def cases():
    out = []
    # several CPUs, many tids, interleaved calls, losses at random places
    for i, (cpus, ntids, n, p) in enumerate([(2, 6, 400, 0.01), (4, 40, 3000, 0.004), (8, 200, 6000, 0.002),
                                             (3, 3, 200, 0.0)]):
        out.append((f"mixed{i}_{cpus}cpu", "pairs", case_mixed(1000 + i, cpus, ntids, n, p)))
    for exit_cpu, loss_cpu in ((0, 1), (1, 0)):
        for good in (False, True):
            out.append((f"loss_tie_x{exit_cpu}_l{loss_cpu}_{'good' if good else 'exit'}", "pairs",
                        case_loss_tie(exit_cpu, loss_cpu, good)))
    for exit_cpu, loss_cpus in ((0, (1, 2)), (2, (0, 1)), (0, (1, 1))):
        out.append((f"two_losses_x{exit_cpu}_l{loss_cpus[0]}{loss_cpus[1]}", "pairs",
                    case_two_losses(exit_cpu, loss_cpus)))
    for loss_cpu in (0, 2):
        out.append((f"same_ts_l{loss_cpu}", "pairs", case_same_ts(3000, loss_cpu)))
    out.append(("recent_max", "pairs", case_recent(65536)))
    out.append(("recent_over", "rows", case_recent(65537)))

    # a type's __syscall_nr changes: rows
    cap = case_simple(1)
    cap.enter(0, 2 * T, "getpid", 30)
    cap.exit(0, 2 * T + 10, "getpid", 30, nr=40)
    out.append(("nr_change", "rows", cap))
    # __syscall_nr outside a short record (NULL), in every event of a type: pairs
    cap = case_simple(2, names=["getpid"])
    cap.set_format("sys_enter_read", enter_format("read"))
    cap.set_format("sys_exit_read", exit_format("read"))
    for i in range(3):
        cap.enter(1, 2 * T + 100 * i, "read", 31, args=[1, 2, 3])
        cap.exit(1, 2 * T + 100 * i + 50, "read", 31, size=8)
    out.append(("nr_null", "pairs", cap))
    # ... NULL in one event of a type, a number in the others: rows
    cap = case_simple(3, names=["getpid"])
    cap.enter(1, 2 * T, "getpid", 31)
    cap.exit(1, 2 * T + 50, "getpid", 31, size=8)
    out.append(("nr_null_once", "rows", cap))
    # times that go back on one CPU: rows
    cap = case_simple(4)
    last = max(e.ts for c in cap.cpus for e in c)
    cap.enter(1, last + 100, "getpid", 40)
    cap.exit(1, last - 50_000, "getpid", 40, ret=1)   # a page that starts before the last
    cap.enter(1, last + 200, "read", 41, args=[0, 1, 2])
    cap.exit(1, last + 300, "read", 41, ret=2)
    cap.back = True
    out.append(("time_back", "rows", cap))
    # a time too far from the first for ts - base: rows
    cap = case_simple(5)
    far = (1 << 63) + 12345
    cap.enter(0, far, "getpid", 50)
    cap.exit(0, far + 10, "getpid", 50, ret=50)
    out.append(("ts_far", "rows", cap))
    # the kernel_stack format: a stack may follow an event: rows; not with stacktrace=0
    out.append(("stack_format", "rows", case_simple(6, stack_format=True)))
    out.append(("stack_format_off", "pairs", case_simple(6, stack_format=True, info={"stacktrace": 0})))
    cap = case_simple(7, stack_format=True)
    for c in range(cap.nr_cpus):  # a stack after every fifth event, on its CPU at its time
        cap.cpus[c] = [x for i, e in enumerate(cap.cpus[c])
                       for x in ([e, stack_ev(c, e.ts, e.tid)] if i % 5 == 0 else [e])]
    out.append(("stack_events", "rows", cap))
    # a hostile exit format: ret a char array, or a 3-byte field: rows
    for name, decl in (("ret_char3", ("char ret[3]", 16, 3, 0)), ("ret_3byte", ("long ret", 16, 3, 1))):
        cap = case_simple(8, names=["getpid", "read"])
        cap.set_format("sys_exit_read", exit_format("read", decl))
        out.append((name, "rows", cap))
    # an entry of 7 integer arguments (the store keeps 6), or a text field: rows
    cap = case_simple(9, names=["getpid", "futex"])
    cap.set_format("sys_enter_futex", enter_format("futex", SYSCALLS["futex"][3] + ["long extra"]))
    out.append(("seven_args", "rows", cap))
    cap = case_simple(10, names=["getpid", "read"])
    cap.set_format("sys_enter_read", enter_format("read", [("char comm[8]", 16, 8, 0), "char * buf", "size_t count"]))
    out.append(("text_arg", "rows", cap))
    # an entry with no exit format (exit_group), exits with no entry format: pairs
    cap = case_simple(11, names=["getpid", "exit_group", "close"])
    cap.drop_format("sys_exit_exit_group")
    cap.drop_format("sys_enter_close")
    for c in cap.cpus:
        c[:] = [e for e in c if not (e.name == "exit_group" and e.kind == "exit") and
                not (e.name == "close" and e.kind == "enter")]
    cap.enter(0, 2 * T, "exit_group", 60, args=[0])
    cap.exit(1, 2 * T + 5, "close", 61, ret=0)
    out.append(("one_sided_types", "pairs", cap))
    # openat calls for opensnoop: AT_FDCWD, flags, mode, failures, one on another CPU
    cap = Cap(2)
    rng = random.Random(12)
    traffic(cap, rng, [70, 71, 72], T, 200, names=["openat", "close", "read"], p_lose=0.01)
    out.append(("opens", "pairs", cap))
    return out


# ------------------------------------------------------------------ fuzz
def fuzz_one(seed):
    """A small random capture; STORE rows when it holds what the store gives up on."""
    rng = random.Random(seed)
    cap = Cap(rng.randint(2, 8), names=rng.sample(NAMES, rng.randint(1, len(NAMES))))
    store = "pairs"
    ntids = rng.randint(1, 12)
    t = traffic(cap, rng, list(range(10, 10 + ntids)), T + rng.randrange(1 << 30), rng.randint(1, 60),
                p_lose=rng.choice([0, 0.05, 0.2]), p_same_ts=rng.choice([0, 0.2, 0.6]),
                p_migrate=rng.random(), p_oddity=rng.random() * 0.3, gap=(1, rng.choice([3, 1000, 1 << 28])))
    for _ in range(rng.randint(0, 3)):
        lose_on(cap, rng.randrange(cap.nr_cpus), rng.randint(T, t + 1), tid=rng.randint(10, 10 + ntids), good=True)
    for c in cap.cpus:  # a good:ev at a random place keeps the CPU's order
        c.sort(key=lambda e: e.ts)
    # keep the model's order: a thread's events at one time on one CPU
    seen = {}
    for c in cap.cpus:
        for e in c:
            if e.kind in ("enter", "exit"):
                seen.setdefault((e.tid, e.ts), set()).add(e.cpu)
    bad = {k for k, v in seen.items() if len(v) > 1}
    if bad:
        for c in cap.cpus:
            c[:] = [e for e in c if (e.tid, e.ts) not in bad or e.kind not in ("enter", "exit")]
    r = rng.random()
    evs = [e for c in cap.cpus for e in c if e.kind in ("enter", "exit")]
    if r < 0.08 and evs:
        # an event whose __syscall_nr is not its type's: the store gives up when the
        # type has another event (its number, or NULL outside a short record)
        e = rng.choice([x for x in evs if len(x.data) >= 12] or evs)
        if len(e.data) >= 12:
            e.data = e.data[:8] + struct.pack("<i", 999) + e.data[12:]
            if sum(x.type_id == e.type_id for x in evs) > 1:
                store = "rows"
    elif r < 0.14 and evs:
        c = rng.choice([c for c in cap.cpus if c])
        if len(c) > 1:
            i = rng.randrange(1, len(c))
            d = rng.randint(1, 5000)
            if c[i - 1].ts - d >= 0 and c[i].ts - d < c[i - 1].ts:
                for e in c[i:]:
                    e.ts -= d
                cap.back = True
                store = "rows"
    elif r < 0.18:
        cap.stack_format = True
        store = "rows"
        if rng.random() < 0.5:
            cap.info["stacktrace"] = 0
            store = "pairs"
    if not any(e.kind in ("enter", "exit") for c in cap.cpus for e in c):
        store = "none"  # no syscall event: nothing to store either way
    return cap, store


# ------------------------------------------------------------------ dump and check
def dump(db):
    """(lines, numbers): DB's syscall contents as text, every value's repr (its type
    told): meta syscall_store first, then event_types, every syscall type's table or
    view (SELECT * ORDER BY id), syscall_pairs (every column, its syscall as its name),
    syscall_totals joined to the names, syscall_range, the events view, lost_events,
    the report views syscall_calls and opens. numbers: syscall_pairs and syscall_names
    as they are, syscall by its number."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    c.text_factory = bytes  # a hostile ret is text of any bytes
    out, numbers = [], []

    def q(title, sql, to=out):
        try:
            cur = c.execute(sql)
        except sqlite3.Error as e:
            to.append(f"== {title}: error {e}")
            return
        to.append(f"== {title}: " + ",".join(d[0] for d in cur.description))
        to.extend(repr(r) for r in cur)

    names = {r[0].decode() for r in c.execute("SELECT name FROM sqlite_master")}
    store = c.execute("SELECT value FROM meta WHERE key = 'syscall_store'").fetchone()
    out.append(f"syscall_store {store[0].decode() if store else None}")
    q("event_types", "SELECT type_id, system, name, table_name, count, imported FROM event_types ORDER BY type_id")
    for name, table in c.execute("SELECT name, table_name FROM event_types WHERE system = 'syscalls' AND "
                                 "(name GLOB 'sys_enter_?*' OR name GLOB 'sys_exit_?*') ORDER BY type_id").fetchall():
        name, table = name.decode(), table and table.decode()
        if table in names:
            q(f"type {name}", f'SELECT * FROM "{table}" ORDER BY id')
    if "syscall_pairs" in names:
        q("syscall_pairs", "SELECT p.id, p.ts_rel, p.cpu, p.tid, n.name AS syscall, p.exit_gap, p.ret, p.dur_ns "
          "FROM syscall_pairs p LEFT JOIN syscall_names n USING (syscall) ORDER BY p.id")
        q("syscall_totals", "SELECT n.name, t.tid, t.calls, t.errors, t.paired, t.dur_ns, t.error_dur_ns FROM "
          "syscall_totals t JOIN syscall_names n USING (syscall) ORDER BY n.name, t.tid")
        q("syscall_totals rows", "SELECT count(*) FROM syscall_totals")
        q("syscall_range", "SELECT * FROM syscall_range")
        q("syscall_pairs", "SELECT * FROM syscall_pairs ORDER BY id", numbers)
        q("syscall_names", "SELECT * FROM syscall_names ORDER BY syscall", numbers)
    else:
        out.append("no syscall_pairs")
    q("events", "SELECT * FROM events ORDER BY id")
    q("lost_events", "SELECT * FROM lost_events ORDER BY 1, 2, 3")
    q("syscall_calls", "SELECT * FROM syscall_calls ORDER BY 1")
    q("opens", "SELECT * FROM opens ORDER BY 1, 2, 3")
    return out, numbers


def counts(db):
    """EVENTS CALLS PAIRED LONE DUR_NS XCPU TYPES as DB holds them (store_gen's truth line)."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
    events = c.execute("SELECT count(*) FROM events").fetchone()[0]
    types, exits = {}, 0
    for name, table in c.execute("SELECT name, table_name FROM event_types WHERE system = 'syscalls' AND "
                                 "(name GLOB 'sys_enter_?*' OR name GLOB 'sys_exit_?*')").fetchall():
        n = c.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] if table in names else 0
        if n:
            types[name] = n
            exits += n if name.startswith("sys_exit_") else 0
    calls = paired = dur = xcpu = 0
    if "syscall_pairs" in names:
        calls, paired, dur = c.execute("SELECT count(*), count(exit_gap), coalesce(sum(dur_ns), 0) "
                                       "FROM syscall_pairs").fetchone()
        # an exit's CPU as its event (row or view) has it
        xcpu = c.execute("SELECT count(*) FROM syscall_pairs p JOIN events e ON e.id = p.id + p.exit_gap "
                         "WHERE e.cpu IS NOT p.cpu").fetchone()[0]
    tstr = ",".join(f"{k}={types[k]}" for k in sorted(types)) or "none"
    return [str(x) for x in (events, calls, paired, exits - paired, dur, xcpu)] + [tstr]


FIELDS = ("events", "calls", "paired", "lone exits", "total dur_ns", "pairs exited on another CPU", "types")


def check(truth, d):
    """For each capture of TRUTH (in directory D: NAME.store.db made with the store,
    NAME.rows.db with FTANA_SYSCALL_ROWS=1): ok/FAIL/note lines. Both hold the counts
    the generator wrote, the store's syscall_store is 'pairs' exactly when expected,
    and both say the same everywhere (dump)."""
    for line in open(truth):
        name, store, *want = line.split()
        dumps = {}
        for k in ("store", "rows"):
            db = os.path.join(d, f"{name}.{k}.db")
            if not os.path.exists(db):
                print(f"FAIL: {name}: no {k} database")
                continue
            dumps[k] = dump(db)
            seen = counts(db)
            bad = [f"{f}: expected {w}, seen {s}" for f, w, s in zip(FIELDS, want, seen) if w != "-" and w != s]
            if bad:
                print(f"FAIL: {name} ({k}): " + "; ".join(bad))
            else:
                print(f"ok:   {name} ({k}): the generator's counts: {' '.join(seen[:6])}")
        if len(dumps) < 2:
            continue
        got = dumps["store"][0][0].split()[1]
        if (got == "pairs") == (store == "pairs") and dumps["rows"][0][0] == "syscall_store None":
            print(f"ok:   {name}: syscall_store {got} (expected {store}; the rows' none)")
        else:
            print(f"FAIL: {name}: syscall_store {got}, expected {store}; the rows': {dumps['rows'][0][0]}")
        a, b = dumps["store"][0][1:], dumps["rows"][0][1:]
        if a == b:
            print(f"ok:   {name}: store = rows ({len(a)} lines: types, pairs, totals, range, events, views)")
        else:
            i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            sect = next((x for x in reversed(a[:i + 1]) if x.startswith("== ")), "")
            print(f"FAIL: {name}: store != rows at line {i + 2} ({sect}): store {a[i] if i < len(a) else 'EOF'}"
                  f" / rows {b[i] if i < len(b) else 'EOF'}")
        if dumps["store"][1] != dumps["rows"][1]:
            print(f"note: {name}: syscall numbers differ (syscall_pairs.syscall, syscall_names): the same "
                  "by name")


def write(out, name, store, cap, seed=0):
    with open(os.path.join(out, name + ".ftz"), "wb") as f:
        f.write(cap.build(seed))
    print(name, store, cap.truth(), flush=True)


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        for db in sys.argv[2:]:
            lines, numbers = dump(db)
            with open(db + ".dump", "w") as f:
                f.write("\n".join(lines + numbers) + "\n")
        return
    if cmd == "check":
        check(sys.argv[2], sys.argv[3])
        return
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if cmd == "cases":
        for name, store, cap in cases():
            write(out, name, store, cap)
    elif cmd == "fuzz":
        seed, n = int(sys.argv[3]), int(sys.argv[4])
        for i in range(n):
            cap, store = fuzz_one(seed + i)
            write(out, f"fuzz{seed + i}", store, cap, seed + i)
    else:
        sys.exit(f"usage: {sys.argv[0]} cases|fuzz|dump ...")


if __name__ == "__main__":
    main()
