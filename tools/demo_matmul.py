"""The unmodified program of the main job: float32 matmuls in numpy.

numpy's float32 `@` calls cblas_sgemm from whatever BLAS the process has,
so hopblas sees them when it is preloaded.  Run with /usr/bin/python3
(Debian's numpy; PyPI wheels carry their own renamed OpenBLAS).
Usage: demo_matmul.py OUT.npz
"""
import sys

import numpy as np

rng = np.random.default_rng(2026)


def mat(rows, cols):
    return rng.standard_normal((rows, cols), dtype=np.float32)


big = mat(1200, 1100)
cases = {
    "small 16x16": (mat(16, 16), mat(16, 16)),
    "square 256": (mat(256, 256), mat(256, 256)),
    "square 1024": (mat(1024, 1024), mat(1024, 1024)),
    "transposed view": (mat(700, 500).T, mat(700, 600)),
    "submatrix views": (big[100:900, 50:850], big[200:1000, 100:600]),  # lda = 1100
    "tall skinny": (mat(4000, 64), mat(64, 48)),
}
results = {name: a @ b for name, (a, b) in cases.items()}
operands = {f"{name}/{i}": m for name, pair in cases.items() for i, m in enumerate(pair)}
np.savez(sys.argv[1], **results, **{"__op__" + k: v for k, v in operands.items()})
