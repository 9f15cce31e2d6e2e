"""Tables (markdown) and a plot from one `h200.sh run` output folder.

    python3 benchmark/nvidia/h200-report.py OUTDIR        -> OUTDIR/report.md, OUTDIR/h200.png

OUTDIR is the call's $OUT as fetched, or a run kept in benchmark/results/.

Every figure comes from that one device call: hopblas (bench CSVs), tuned
and default CLBlast (clblast.txt), cuBLAS through PyTorch (cublas.txt),
OpenBLAS and NVBLAS (bench-host.csv).  Ratios are computed here.
"""
import csv
import os
import re
import subprocess
import sys

out = sys.argv[1]


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r.get("skipped", "0") == "0"]


def tflops(r):
    return float(r["gflops"]) / 1000.0


def anchor(name, pattern):
    """{n: TFLOPS} from an anchor file's lines matching pattern (n and best TFLOPS)."""
    res = {}
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return res
    for line in open(path):
        m = re.match(pattern, line)
        if m:
            res[int(m.group(1))] = float(m.group(2))
    return res


cublas_s = anchor("cublas.txt", r"cublas-sgemm\s+s\s+NN\s+(\d+)\s+\d+\s+\d+\s+best\s+([\d.]+)")
cublas_h = anchor("cublas.txt", r"cublas-hgemm\s+h\s+NN\s+(\d+)\s+\d+\s+\d+\s+best\s+([\d.]+)")
clb_tuned = anchor("clblast.txt", r"clblast-tuned\s+s\s+NN\s+(\d+)\s+\d+\s+\d+\s+best\s+([\d.]+)")
clb_default = anchor("clblast.txt", r"clblast-default\s+s\s+NN\s+(\d+)\s+\d+\s+\d+\s+best\s+([\d.]+)")

res = {}  # (family, dtype, n) -> TFLOPS, resident; "nosplit": nvidia with HOPBLAS_OPENCL_NV_SPLITK=off
for fam in ("generic", "nvidia", "3xtf32", "nosplit", "f16x2"):
    for r in rows(f"bench-resident-{fam}.csv"):
        # half accumulation (f16x2) is beyond the contract's float bound by design: its error is
        # reported from the contract run at (k + 2) half units instead
        if r["within"] == "1" or fam == "f16x2":
            res[(fam, r["dtype"], int(r["m"]))] = tflops(r)

lines = []
w = lines.append
w("### sgemm, operands resident on the device (TFLOPS)\n")
w("| n | hopblas generic | hopblas nvidia (FMA) | same, split-k off | hopblas 3xTF32 (opt-in) | CLBlast tuned | CLBlast default | cuBLAS | nvidia / tuned CLBlast | nvidia / cuBLAS |")
w("|---|---|---|---|---|---|---|---|---|---|")
sizes = (256, 512, 1024, 1536, 2048, 4096, 8192)
for n in sizes:
    g, v, x = res.get(("generic", "s", n)), res.get(("nvidia", "s", n)), res.get(("3xtf32", "s", n))
    o = res.get(("nosplit", "s", n))
    t, d, c = clb_tuned.get(n), clb_default.get(n), cublas_s.get(n)
    f = lambda x: f"{x:.1f}" if x else "-"
    ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"
    w(f"| {n} | {f(g)} | {f(v)} | {f(o)} | {f(x)} | {f(t)} | {f(d)} | {f(c)} | {ratio(v, t)} | {ratio(v, c)} |")

w("\n### hgemm (fp16 in and out), resident (TFLOPS)\n")
w("| n | hopblas generic | hopblas nvidia (mma.sync) | same, split-k off | fma.rn.f16x2 (opt-in) | cuBLAS hgemm | nvidia / cuBLAS |")
w("|---|---|---|---|---|---|---|")
for n in sizes:
    g, v, c = res.get(("generic", "h", n)), res.get(("nvidia", "h", n)), cublas_h.get(n)
    o, x = res.get(("nosplit", "h", n)), res.get(("f16x2", "h", n))
    f = lambda x: f"{x:.1f}" if x else "-"
    w(f"| {n} | {f(g)} | {f(v)} | {f(o)} | {f(x)} | {f(c)} | {f'{v / c:.2f}x' if v and c else '-'} |")

host = {}
for r in rows("bench-host.csv") + rows("bench-host-16384.csv"):
    if r["within"] == "1":
        host[(r["engine"], int(r["m"]))] = tflops(r)
forced = {int(r["m"]): tflops(r) for r in rows("bench-host-forced.csv") if r["within"] == "1"}
w("\n### sgemm from host memory through the public API (TFLOPS, transfers included)\n")
w("| n | hopblas (auto) | hopblas, GPU forced | OpenBLAS | NVBLAS | hopblas / NVBLAS | hopblas / better of the two |")
w("|---|---|---|---|---|---|---|")
for n in sorted({k[1] for k in host}):
    h, o, nv = host.get(("hopblas", n)), host.get(("openblas", n)), host.get(("nvblas", n))
    best = max(x for x in (o, nv, 0) if x is not None)
    f = lambda x: f"{x:.3f}" if x else "-"
    w(f"| {n} | {f(h)} | {f(forced.get(n))} | {f(o)} | {f(nv)} | {f'{h / nv:.2f}x' if h and nv else '-'} | "
      f"{f'{h / best:.2f}x' if h and best else '-'} |")

for stat in ("median", "best"):
    small = {}
    for first in ("openblas", "hopblas"):
        for r in rows(f"bench-host-small-{stat}-{first}-first.csv"):
            if r["within"] == "1":
                small[(first, r["engine"], int(r["m"]))] = float(r["seconds"]) * 1e3
    if not small:
        continue
    what = "median" if stat == "median" else "fastest call"
    w(f"\n### Small calls from host memory, 50 calls, two runs in either order ({what}, ms)\n")
    w("| n | OpenBLAS (run 1) | hopblas (run 1) | hopblas (run 2) | OpenBLAS (run 2) | OpenBLAS time / hopblas time, runs 1 and 2 |")
    w("|---|---|---|---|---|---|")
    for n in sorted({k[2] for k in small}):
        o1, h1 = small.get(("openblas", "openblas", n)), small.get(("openblas", "hopblas", n))
        h2, o2 = small.get(("hopblas", "hopblas", n)), small.get(("hopblas", "openblas", n))
        f = lambda x: f"{x:.4f}" if x else "-"
        sp = lambda o, h: f"{o / h:.2f}" if o and h else "-"
        w(f"| {n} | {f(o1)} | {f(h1)} | {f(h2)} | {f(o2)} | {sp(o1, h1)}, {sp(o2, h2)} |")

w("\n### The kernel families side by side, sgemm (TFLOPS)\n")
w("| family | mode | n = 1024 | n = 4096 |")
w("|---|---|---|---|")
fams = {}
for fam, name in (("adreno", "bench-adreno.csv"), ("mali", "bench-mali.csv"),
                  ("generic", "bench-host-generic.csv")):
    for r in rows(name):
        if r["within"] == "1":
            fams[(fam, r["mode"], int(r["m"]))] = tflops(r)
for fam in ("generic", "nvidia"):
    for n in (1024, 4096):
        if (fam, "s", n) in res:
            fams[(fam, "resident", n)] = res[(fam, "s", n)]
for fam in ("generic", "adreno", "mali", "nvidia"):
    for mode in ("resident", "host"):
        a, b = fams.get((fam, mode, 1024)), fams.get((fam, mode, 4096))
        if a or b:
            w(f"| {fam} | {mode} | {a or 0:.2f} | {b or 0:.2f} |")

w("\n### Shapes and transposes, nvidia family, resident (TFLOPS)\n")
w("| m x n x k | NN | NT | TN | TT | NN, split-k off | NN / the square of equal flops |")
w("|---|---|---|---|---|---|---|")
shapes = {}
for name, tag in (("bench-shapes.csv", ""), ("bench-shapes-nosplit.csv", "off")):
    for r in rows(name):
        if r["within"] == "1":
            shapes[(r["m"] + "x" + r["n"] + "x" + r["k"], r["trans"] + tag)] = tflops(r)
for s in sorted({k[0] for k in shapes}, key=lambda x: [int(v) for v in x.split("x")]):
    m, n, k = (int(v) for v in s.split("x"))
    side = (m * n * k) ** (1 / 3)  # the square measured nearest to it (1624^3 for 8192 x 64 x 8192)
    near = [q for q in {k[0] for k in shapes} if len(set(q.split("x"))) == 1 and
            abs(int(q.split("x")[0]) - side) <= 0.01 * side]
    square = shapes.get((near[0], "NN")) if near else None
    eq = f"{shapes.get((s, 'NN'), 0) / square:.2f}" if square and not m == n == k else "-"
    w("| " + s + " | " + " | ".join(f"{shapes.get((s, t), 0):.1f}" for t in ("NN", "NT", "TN", "TT", "NNoff"))
      + f" | {eq} |")

report = "\n".join(lines) + "\n"
open(os.path.join(out, "report.md"), "w").write(report)
print(report)

# The plot: resident sgemm and hgemm, host sgemm, against n.
dat = os.path.join(out, "plot.dat")
with open(dat, "w") as f:
    for n in sizes:
        vals = [res.get(("nvidia", "s", n)), clb_tuned.get(n), cublas_s.get(n), res.get(("nvidia", "h", n)),
                cublas_h.get(n), host.get(("hopblas", n)), host.get(("openblas", n)), host.get(("nvblas", n))]
        f.write(f"{n} " + " ".join(f"{v:.4f}" if v else "NaN" for v in vals) + "\n")
gp = f"""set terminal pngcairo size 1100,500
set output '{os.path.join(out, "h200.png")}'
set multiplot layout 1,2
set logscale xy 2
set xlabel 'n'
set ylabel 'TFLOPS'
set key left top
set title 'resident (kernel rate), H200'
plot '{dat}' u 1:2 w lp t 'hopblas sgemm (nvidia)', '' u 1:3 w lp t 'CLBlast tuned', '' u 1:4 w lp t 'cuBLAS sgemm', \\
     '' u 1:5 w lp t 'hopblas hgemm (mma.sync)', '' u 1:6 w lp t 'cuBLAS hgemm'
set title 'sgemm from host memory (public API)'
plot '{dat}' u 1:7 w lp t 'hopblas', '' u 1:8 w lp t 'OpenBLAS (16 cores)', '' u 1:9 w lp t 'NVBLAS'
unset multiplot
"""
try:
    subprocess.run(["gnuplot"], input=gp.encode(), check=True)
except (OSError, subprocess.CalledProcessError) as e:
    print(f"no plot: {e}", file=sys.stderr)
