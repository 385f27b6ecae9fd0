#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""export_check.py - checks of `ftana export`'s Trace Event Format document, by python
alone (tests/test_export.sh, tests/test_export_live.sh):
  export_check.py doc OUT.json
      validates the document (strict UTF-8, JSON, each phase's keys, X slices nested
      per thread with exact decimals, async b/e paired per id) and prints key=value
      counts and error=none or the first errors;
  export_check.py cpu-tracks SWITCHES.json OUT.json FIRST_TS LAST_TS
      the CPU tracks against the raw sched_switch rows (ftana sql --json: cpu, ts,
      prev_pid, next_pid): "same N" or what differs.
"""
import collections
import json
import sys
from decimal import Decimal


def check_doc(path):
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")          # strict: invalid UTF-8 fails here
        doc = json.loads(text, parse_float=Decimal)
    except Exception as e:
        print("error=not valid JSON: %s" % e); return
    errors = []
    evs = doc["traceEvents"]
    need = {"X": ("ts", "dur", "pid", "tid"), "i": ("ts", "pid", "tid", "s"), "b": ("ts", "pid", "id", "cat"),
            "e": ("ts", "pid", "id", "cat"), "C": ("ts", "pid", "args"), "M": ("pid", "args")}
    for e in evs:
        if e.get("ph") not in need or not isinstance(e.get("name"), str):
            errors.append("bad event %r" % e); continue
        for k in need[e["ph"]]:
            if k not in e:
                errors.append("%s event without %s: %r" % (e["ph"], k, e))
    # X slices nest per thread
    by_thread = collections.defaultdict(list)
    for e in evs:
        if e["ph"] == "X":
            if e["dur"] < 0:
                errors.append("negative dur %r" % e)
            by_thread[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for key, slices in by_thread.items():
        slices.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s, end, name in slices:
            while stack and stack[-1][0] <= s:
                stack.pop()
            if stack and end > stack[-1][0]:
                errors.append("thread %r: %s [%s, %s] overlaps %s ending %s" % (key, name, s, end, stack[-1][1], stack[-1][0]))
                break
            stack.append((end, name))
    # async: per id, b/e pair up in a stack; children inside the parent
    open_async, requests, phases = collections.defaultdict(list), 0, collections.Counter()
    for e in evs:
        if e["ph"] == "b":
            st = open_async[(e["cat"], e["id"])]
            if st and e["ts"] < st[-1][1]:
                errors.append("async %s begins before its parent" % e["id"])
            if not st:
                requests += 1
            else:
                phases[e["name"]] += 1
            st.append([e["name"], e["ts"], e["ts"]])    # name, begin, latest child end
        elif e["ph"] == "e":
            st = open_async[(e["cat"], e["id"])]
            if not st or st[-1][0] != e["name"] or e["ts"] < st[-1][2]:
                errors.append("async end %r does not close %r" % (e, st[-1] if st else None)); continue
            st.pop()
            if st:
                st[-1][2] = max(st[-1][2], e["ts"])
    unclosed = [k for k, v in open_async.items() if v]
    if unclosed:
        errors.append("async slices never ended: %r" % unclosed[:3])
    cat = collections.Counter(e.get("cat") for e in evs if e["ph"] == "X")
    print("calls=%d" % cat["funcgraph"])
    print("cpu_slices=%d" % cat["sched"])
    print("io=%d" % requests)
    print("io_queue=%d" % phases["queue"])
    print("io_service=%d" % phases["service"])
    print("markers=%d" % sum(1 for e in evs if e["ph"] == "i" and e.get("cat") == "marker"))
    print("lost=%d" % sum(1 for e in evs if e["ph"] == "C"))
    print("error=%s" % ("; ".join(errors[:3]) if errors else "none"))


def cpu_tracks(switch_json, doc_path, first, last):
    rows, first, last = json.load(open(switch_json)), int(first), int(last)
    doc = json.loads(open(doc_path, "rb").read().decode("utf-8"), parse_float=Decimal)
    want, per_cpu = set(), collections.defaultdict(list)
    for r in rows:
        per_cpu[r["cpu"]].append(r)
    for cpu, sw in per_cpu.items():
        runs = [(first, sw[0]["ts"], sw[0]["prev_pid"])]
        runs += [(a["ts"], b["ts"], a["next_pid"]) for a, b in zip(sw, sw[1:])]
        runs.append((sw[-1]["ts"], last, sw[-1]["next_pid"]))
        want |= {(cpu, s, e, p) for s, e, p in runs if p != 0 and e > s}
    cpu_of = {e["tid"]: int(e["args"]["name"].split()[1]) for e in doc["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"].startswith("CPU ")}
    got = {(cpu_of[e["tid"]], int(e["ts"] * 1000), int((e["ts"] + e["dur"]) * 1000), e["args"]["pid"])
           for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "sched"}
    print("same %d" % len(want) if want == got else "differ: only in rows %s, only in export %s" % (sorted(want - got)[:3], sorted(got - want)[:3]))


if __name__ == "__main__":
    if sys.argv[1] == "doc":
        check_doc(sys.argv[2])
    else:
        cpu_tracks(*sys.argv[2:6])
