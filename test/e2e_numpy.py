"""Debian's numpy (/usr/bin/python3), float32 matmul of strided and
transposed views; prints a checksum per product so that a preloaded run
can be compared exactly with a plain one.  Knows nothing of hopblas."""
import hashlib

import numpy as np

rng = np.random.default_rng(2024)
a = rng.standard_normal((300, 200), dtype=np.float32)
b = rng.standard_normal((200, 150), dtype=np.float32)
big = rng.standard_normal((400, 402), dtype=np.float32)

products = {
    "a @ b": lambda: a @ b,
    "b.T @ a.T": lambda: b.T @ a.T,
    "fortran-order a @ b": lambda: np.asfortranarray(a) @ b,
    "np.dot(a, b)": lambda: np.dot(a, b),
    "row-strided view": lambda: big[::2, :200] @ b,
    "column slice view": lambda: big[:300, 2:202] @ b,
    "transposed slice": lambda: big[:200, :300].T @ b[:, :120],
    "both strided": lambda: big[::2, :400:2] @ big[1::2, 1:401:2],
    "matmul out=": lambda: np.matmul(a, b, out=np.empty((300, 150), dtype=np.float32)),
    "small 7x5x3": lambda: a[:7, :3] @ b[:3, :5],
}
for name, f in products.items():
    r = f()
    assert r.dtype == np.float32
    print(f"{name} {r.shape} {hashlib.sha256(np.ascontiguousarray(r).tobytes()).hexdigest()[:16]}")
