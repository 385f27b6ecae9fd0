#!/usr/bin/env python3
# Workload for tests/test_record_ring.sh (not a test itself).
#   ring_load.py stream SECONDS        getppid() in a loop for SECONDS (a steady
#                                      syscalls:sys_enter_getppid stream)
#   ring_load.py once DELAY CALL       sleep DELAY seconds, then ONE getpid() or
#                                      getppid() (CALL), then exit: the incident
#   ring_load.py markers MARKER RATE SECONDS COUNT
#                                      write "s 0", "s 1", ... to the trace_marker
#                                      file MARKER, RATE a second, until SECONDS
#                                      passed or a write fails (tracing was
#                                      switched off); then write to the file COUNT
#                                      how many writes succeeded (tests/
#                                      test_record_disk_ring.sh: the ground truth)
#   ring_load.py paced CPU N PERIOD_MS SECONDS
#                                      on CPU only: N getppid() every PERIOD_MS ms
#                                      for SECONDS (tests/test_capture_window.sh:
#                                      a stream of known density per CPU)
import os
import sys
import time

mode = sys.argv[1]
if mode == "paced":
    os.sched_setaffinity(0, {int(sys.argv[2])})
    n, period, secs = int(sys.argv[3]), float(sys.argv[4]) / 1000, float(sys.argv[5])
    start = time.monotonic()
    while time.monotonic() - start < secs:
        for _ in range(n):
            os.getppid()
        time.sleep(period)
elif mode == "stream":
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        for _ in range(1000):
            os.getppid()
elif mode == "once":
    time.sleep(float(sys.argv[2]))
    getattr(os, sys.argv[3])()
elif mode == "markers":
    marker, rate, secs, count_file = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    n = 0
    start = time.monotonic()
    try:
        while time.monotonic() - start < secs:
            # catch up to RATE per second in 10 ms steps: steady, whatever a write
            # costs; the file is open only meanwhile, so ftrec can remove its instance
            due = int((time.monotonic() - start) * rate)
            fd = os.open(marker, os.O_WRONLY)
            try:
                while n < due:
                    os.write(fd, b"s %d" % n)
                    n += 1
            finally:
                os.close(fd)
            time.sleep(0.01)
    except OSError:
        pass  # tracing is off (EBADF) or the instance is gone: the stop
    with open(count_file, "w") as f:
        f.write("%d\n" % n)
else:
    sys.exit("usage: ring_load.py paced CPU N PERIOD_MS SECONDS | stream SECONDS | once DELAY getpid|getppid | markers MARKER RATE SECONDS COUNT")
