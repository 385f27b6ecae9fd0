#!/usr/bin/env python3
"""sched_load.py - workloads of known shape for tests/test_sched_live.sh, each writing
its own ground truth to OUTDIR: its thread id, its own clock's measurements, and at the
start and end of the measured part the UTC wall-clock time (since=, until=: ISO 8601
with microseconds, for ftana's --since/--until) and the kernel's
/proc/thread-self/schedstat (on-CPU ns, run-queue wait ns, timeslices: the deltas are
written as cpu_ns=, runq_ns=, slices=).

  pair SECS CPU OUTDIR         two CPU-bound threads of two processes pinned to CPU,
                               busy for SECS each (files pair.TID)
  sleep N MS CPU OUTDIR        sleeps MS milliseconds N times (file sleep.TID: the sum
                               of the sleeps as measured around each)
  bursts N MS GAP CPU OUTDIR   N bursts of MS ms of CPU time (its own thread clock) on
                               CPU, GAP ms asleep after each
                               (file bursts.TID)
  wake N CPU OUTDIR            a reader (comm ftwakee) blocked on a pipe, woken by the
                               writer's (comm ftwaker) N writes and its close, both on
                               CPU (file wake.TID: the bytes it read, n=)
"""
import os
import threading
import sys
import time


def schedstat():
    with open("/proc/thread-self/schedstat") as f:
        cpu, runq, slices = f.read().split()
    return int(cpu), int(runq), int(slices)


def spin(seconds, clock=time.monotonic):
    end = clock() + seconds
    while clock() < end:
        pass


def wall():
    ns = time.time_ns()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + \
        ".%06dZ" % (ns % 10**9 // 1000)


class Measure:
    """The measured part: wall-clock time and schedstat at its start and end."""

    def __init__(self):
        self.since = wall()
        self.start = schedstat()

    def report(self, outdir, kind, **values):
        end = schedstat()
        until = wall()
        tid = threading.get_native_id()
        with open(os.path.join(outdir, "%s.%d" % (kind, tid)), "w") as f:
            f.write("tid=%d cpu_ns=%d runq_ns=%d slices=%d since=%s until=%s %s\n" % (
                tid, end[0] - self.start[0], end[1] - self.start[1], end[2] - self.start[2],
                self.since, until, " ".join("%s=%s" % kv for kv in values.items())))


def pair(secs, cpu, outdir):
    kids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            os.sched_setaffinity(0, {cpu})
            m = Measure()
            start = time.monotonic_ns()
            spin(secs)
            m.report(outdir, "pair", wall_ns=time.monotonic_ns() - start)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)


def sleeper(n, ms, cpu, outdir):
    os.sched_setaffinity(0, {cpu})
    m = Measure()
    slept = 0
    for _ in range(n):
        t = time.monotonic_ns()
        time.sleep(ms / 1000)
        slept += time.monotonic_ns() - t
    m.report(outdir, "sleep", slept_ns=slept, n=n, ms=ms)


def bursts(n, ms, gap, cpu, outdir):
    os.sched_setaffinity(0, {cpu})
    m = Measure()
    longest = 0  # wall time awake between sleeps: no slice can be longer
    for _ in range(n):
        t = time.monotonic_ns()
        spin(ms / 1000, time.thread_time)  # ms of CPU time, however long it takes
        longest = max(longest, time.monotonic_ns() - t)
        time.sleep(gap / 1000)
    m.report(outdir, "bursts", n=n, ms=ms, longest_wall_ns=longest)


def set_comm(name):
    with open("/proc/self/comm", "w") as f:
        f.write(name)


def wake(n, cpu, outdir):
    """A reader blocked on a pipe woken n times by this process's writes, 20 ms apart,
    and once more by its close (EOF): the reader's waker is known, ftwaker. Both on CPU:
    a recording of sched_wakeup alone (no sched_waking) names the task current on the
    woken task's CPU, which for a wakeup from another CPU is not the waker (often idle)."""
    os.sched_setaffinity(0, {cpu})
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        set_comm("ftwakee")
        m = Measure()
        got = 0
        while os.read(r, 1):
            got += 1
        m.report(outdir, "wake", n=got)
        os._exit(0)
    os.close(r)
    set_comm("ftwaker")
    time.sleep(0.2)  # the reader is blocked in read before the first write
    for _ in range(n):
        os.write(w, b"x")
        time.sleep(0.02)
    os.close(w)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "pair":
        pair(float(args[0]), int(args[1]), args[2])
    elif mode == "sleep":
        sleeper(int(args[0]), float(args[1]), int(args[2]), args[3])
    elif mode == "bursts":
        bursts(int(args[0]), float(args[1]), float(args[2]), int(args[3]), args[4])
    elif mode == "wake":
        wake(int(args[0]), int(args[1]), args[2])
    else:
        sys.exit("sched_load.py: unknown mode " + mode)
