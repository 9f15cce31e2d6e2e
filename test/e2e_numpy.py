"""Debian's numpy (/usr/bin/python3): float32, float64 and complex128
matmul of strided and transposed views; prints a checksum per product so
that a preloaded run can be compared exactly with a plain one.  Knows
nothing of hopblas."""
import hashlib

import numpy as np

rng = np.random.default_rng(2024)


def operands(dtype):
    def draw(shape):
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    return draw((300, 200)), draw((200, 150)), draw((400, 402))


for dtype in (np.float32, np.float64, np.complex128):
    a, b, big = operands(dtype)
    products = {
        "a @ b": lambda: a @ b,
        "b.T @ a.T": lambda: b.T @ a.T,
        "fortran-order a @ b": lambda: np.asfortranarray(a) @ b,
        "np.dot(a, b)": lambda: np.dot(a, b),
        "row-strided view": lambda: big[::2, :200] @ b,
        "column slice view": lambda: big[:300, 2:202] @ b,
        "transposed slice": lambda: big[:200, :300].T @ b[:, :120],
        "both strided": lambda: big[::2, :400:2] @ big[1::2, 1:401:2],
        "conjugate transpose": lambda: a.conj().T @ a[:, :40],
        "matmul out=": lambda: np.matmul(a, b, out=np.empty((300, 150), dtype=dtype)),
        "small 7x5x3": lambda: a[:7, :3] @ b[:3, :5],
    }
    for name, f in products.items():
        r = f()
        assert r.dtype == dtype
        digest = hashlib.sha256(np.ascontiguousarray(r).tobytes()).hexdigest()[:16]
        print(f"{np.dtype(dtype).name} {name} {r.shape} {digest}")
