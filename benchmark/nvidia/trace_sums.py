#!/usr/bin/env python3
"""A trace's calls and seconds per routine and engine, and their total:

    trace_sums.py TRACE.csv [RUN_SECONDS]

with RUN_SECONDS (the whole run's time), also what the run spent outside
those calls.  Python's csv module: the why column is quoted and holds
commas, which split-by-comma tools cut apart."""
import csv
import sys

by = {}
with open(sys.argv[1]) as f:
    for r in list(csv.reader(f))[1:]:
        calls, secs = by.get((r[1], r[8]), (0, 0.0))
        by[(r[1], r[8])] = (calls + 1, secs + float(r[10]))
for (symbol, engine), (calls, secs) in sorted(by.items()):
    print("    %-8s %-7s %6d calls %8.3f s" % (symbol, engine, calls, secs))
total = sum(secs for calls, secs in by.values())
line = "    level-3 calls %.3f s" % total
if len(sys.argv) > 2:
    line += "; outside them %.3f s" % (float(sys.argv[2]) - total)
print(line)
