"""Compare a run's results with OpenBLAS's and show where each call went.

Usage: demo_report.py OPENBLAS.npz RUN.npz TRACE.csv
Exits 1 if any result is outside the GEMM error bound
|C - C_ref| <= 2 k eps (|A||B|) (elementwise), the contract's tolerance.
"""
import csv
import sys

import numpy as np

ref, run, trace = np.load(sys.argv[1]), np.load(sys.argv[2]), sys.argv[3]
eps = np.finfo(np.float32).eps
bad = 0
print(f"  {'call':<18} {'max |C - OpenBLAS|':>20} {'bound':>10}  verdict")
for name in ref.files:
    if name.startswith("__op__"):
        continue
    a, b = (ref["__op__" + name + f"/{i}"].astype(np.float64) for i in (0, 1))
    bound = 2 * a.shape[1] * eps * (np.abs(a) @ np.abs(b))
    err = np.abs(run[name].astype(np.float64) - ref[name])
    ok = bool(np.all(err <= bound))
    bad += not ok
    print(f"  {name:<18} {err.max():>20.3g} {bound.max():>10.3g}  {'matches' if ok else 'DIFFERS'}")

print("\n  where each call went (HOPBLAS_TRACE):")
print(f"  {'symbol':<12} {'m':>5} {'n':>5} {'k':>5} {'op':<3} {'engine':<8} {'GFLOPS':>8}  why")
with open(trace) as f:
    for row in csv.DictReader(f):
        print(f"  {row['symbol']:<12} {row['m']:>5} {row['n']:>5} {row['k']:>5} "
              f"{row['transa'] + row['transb']:<3} {row['engine']:<8} {float(row['gflops']):>8.1f}  {row['why']}")
sys.exit(1 if bad else 0)
