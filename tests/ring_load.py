#!/usr/bin/env python3
# Workload for tests/test_record_ring.sh (not a test itself).
#   ring_load.py stream SECONDS        getppid() in a loop for SECONDS (a steady
#                                      syscalls:sys_enter_getppid stream)
#   ring_load.py once DELAY CALL       sleep DELAY seconds, then ONE getpid() or
#                                      getppid() (CALL), then exit: the incident
import os
import sys
import time

mode = sys.argv[1]
if mode == "stream":
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        for _ in range(1000):
            os.getppid()
elif mode == "once":
    time.sleep(float(sys.argv[2]))
    getattr(os, sys.argv[3])()
else:
    sys.exit("usage: ring_load.py stream SECONDS | once DELAY getpid|getppid")
