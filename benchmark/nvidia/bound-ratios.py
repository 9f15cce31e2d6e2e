"""Each host call's ratio to its bound, from one `spread.sh` call's folder.

    python3 benchmark/nvidia/bound-ratios.py FOLDER

FOLDER holds link.txt (linkrate), resident.txt (each precision's kernel
resident at 8192) and the host runs (h-ROUND-SPREAD.txt, all-ROUND.txt:
`hopblas bench` at 8192 with HOPBLAS_VERBOSE=3's phase lines).  The bound
of a call is max(kernel resident, host copies, link): host copies are the
median pack + unpack of the run's warm calls of that precision (less the
uploads sent and the queueing done inside them); the link is its bytes up and then down at
linkrate's rates (a complex call's doubled
plane goes up as the caller's complex elements when its phase lines say
that blocks were spread).  Prints a line per run: each precision's time,
its parts and the ratio; then, each warm call against its own bound (its
own host copies, its time from the phase line's total), the median and
the least of those ratios: on a host whose copies move from call to call,
the median time and the median copies come from different calls.
"""
import glob
import os
import re
import statistics
import sys

folder = sys.argv[1]
link_txt = open(os.path.join(folder, "link.txt")).read()
up, down = (float(x) * 1e9 for x in re.search(
    r"host->device ([\d.]+) GB/s, device->host ([\d.]+) GB/s", link_txt).groups())
kernel = {}
for line in open(os.path.join(folder, "resident.txt")):
    m = re.match(r"opencl\s+resident\s+(\w)\s+NN\s+8192\s+8192\s+8192\s+([\d.]+)", line)
    if m:
        kernel[m.group(1)] = float(m.group(2))

N = 8192
REAL = {"s": 4, "d": 8, "c": 4, "z": 8, "h": 2}


def link_ms(dt, spread):
    e = REAL[dt]
    if dt in "cz":  # A' = [Ar Ai], B' doubled (2n x 2n), C' = [Pr Pi]
        a, b, c = N * 2 * N * e, (2 * N) * (2 * N) * e, N * 2 * N * e
        return ((a + (b / 2 if spread else b)) / up + c / down) * 1e3
    return (2 * N * N * e / up + N * N * e / down) * 1e3


def pack_mib(dt, spread):
    e = REAL[dt]
    if dt in "cz":
        return (N * 2 * N * e + (2 * N) * (2 * N) * e // (2 if spread else 1)) / 2**20
    return 2 * N * N * e / 2**20


def host_copies(phase):
    """pack + unpack of one phase line, less the uploads sent and the
    kernels and read-backs queued inside them."""
    inside = re.search(r"\(([\d.]+) of it inside pack\)", phase)
    queued = re.search(r"\(([\d.]+) of it inside pack or unpack\)", phase)
    return (float(re.search(r" pack ([\d.]+)", phase).group(1)) +
            float(re.search(r" unpack ([\d.]+)", phase).group(1)) -
            (float(inside.group(1)) if inside else 0.0) -
            (float(queued.group(1)) if queued else 0.0))


files = sorted(glob.glob(os.path.join(folder, "h-*.txt"))) + sorted(
    glob.glob(os.path.join(folder, "all-*.txt")))
for f in files:
    lines = open(f).read().splitlines()
    times = {}
    for line in lines:
        m = re.match(r"hopblas\s+host\s+(\w)\s+NN\s+8192\s+8192\s+8192\s+([\d.]+)", line)
        if m:
            times[m.group(1)] = float(m.group(2))
    phases = [line for line in lines if "opencl phases" in line]
    parts = []
    for dt in "sdczh":
        if dt not in times:
            continue
        spread = any("spread into planes" in p for p in phases) and dt in "cz"
        shape = "8192x16384x16384" if dt in "cz" else "8192x8192x8192"
        want = "%.1f MiB" % pack_mib(dt, spread)
        calls = [p for p in phases if " %s " % shape in p and "pack" in p and
                 re.search(r" pack [\d.]+ \(%s\)" % re.escape(want), p)][1:]  # the first is cold
        copies = statistics.median(host_copies(p) for p in calls)
        lk = link_ms(dt, spread)
        bound = max(kernel[dt], copies, lk)
        # Each warm call against its own bound: its copies and its time (the phase line's total).
        own = [max(kernel[dt], host_copies(p), lk) /
               float(re.search(r" total ([\d.]+)", p).group(1)) for p in calls]
        parts.append("%s %.2f ms (kernel %.1f, copies %.1f, link %.1f) %.3f (each call %.3f, least %.3f)" %
                     (dt, times[dt], kernel[dt], copies, lk, bound / times[dt],
                      statistics.median(own), min(own)))
    print("%s: %s" % (os.path.basename(f), "; ".join(parts)))
