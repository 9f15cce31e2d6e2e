"""pip's numpy and scipy through hopblas (test/pip_numpy.test runs this).

    pip_numpy.py ref FILE     compute every case without hopblas; save results and bounds
    pip_numpy.py check FILE   compute them again (hopblas preloaded), compare; prints TAP

pip's numpy calls its bundled OpenBLAS by scipy-openblas's ILP64 names
(scipy_cblas_dgemm64_), pip's scipy by the LP64 ones (scipy_dgemm_):
matmul in each precision on views and transposes, and scipy.linalg.blas's
?gemm with alpha, beta and op(A), op(B).  A result passes when each part of
every element is within the contract's bound of the reference,
    |C - R| <= 2 k eps (|alpha| (|A||B|)_ij + |beta| |C0_ij|) + tiny,
|x| = |re| + |im|, with |A||B| formed in ref mode, where hopblas is not loaded.
"""
import sys

import numpy as np
import scipy.linalg.blas as sblas

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def rand(rng, shape, dt):
    x = rng.uniform(-1.0, 1.0, shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * rng.uniform(-1.0, 1.0, shape)
    return x.astype(dt)


def cases(dt):
    """(name, op(A), op(B), alpha, beta, C0, the computation) of one dtype."""
    rng = np.random.default_rng(20261124 + DTYPES.index(dt))
    a, b, c = rand(rng, (300, 220), dt), rand(rng, (220, 260), dt), rand(rng, (300, 260), dt)
    bt, c2 = rand(rng, (260, 220), dt), rand(rng, (220, 260), dt)
    cx = np.issubdtype(dt, np.complexfloating)
    alpha, beta = ((0.75 - 0.5j), (-1.25 + 0.25j)) if cx else (0.75, -1.25)
    herm = 2 if cx else 1  # scipy's trans: 1 transposes, 2 conjugates too
    gemm = sblas.get_blas_funcs("gemm", dtype=dt)
    av, bv = a[7:290, 11:211], b[13:213, 5:250]  # views: an offset, ld beyond the rows
    return [
        ("A @ B", a, b, 1, 0, None, lambda: a @ b),
        ("view @ view", av, bv, 1, 0, None, lambda: av @ bv),
        ("A.T @ C", a.T, c, 1, 0, None, lambda: a.T @ c),
        ("A @ Bt.T", a, bt.T, 1, 0, None, lambda: a @ bt.T),
        ("scipy gemm alpha, beta", a, b, alpha, beta, c,
         lambda: gemm(alpha, a, b, beta=beta, c=np.asfortranarray(c))),
        ("scipy gemm op(A)", a.T, c, alpha, beta, c2,
         lambda: gemm(alpha, a, c, beta=beta, c=np.asfortranarray(c2), trans_a=herm)),
        ("scipy gemm op(B)", a, bt.T, alpha, 0, None, lambda: gemm(alpha, a, bt, trans_b=herm)),
    ]


def magnitude(x):
    x = np.asarray(x)
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def run(mode, path):
    results, terms = {}, {}
    for dt in DTYPES:
        for name, opa, opb, alpha, beta, c0, fn in cases(dt):
            key = f"{np.dtype(dt).name}: {name}"
            results[key] = np.asarray(fn())
            if mode == "ref":
                t = magnitude(alpha) * (magnitude(opa).astype(np.float64) @
                                        magnitude(opb).astype(np.float64))
                if c0 is not None:
                    t += magnitude(beta) * magnitude(c0)
                terms[key] = (t, opa.shape[1])
    if mode == "ref":
        save = {}
        for key, r in results.items():
            t, k = terms[key]
            eps = np.finfo(r.dtype).eps
            save[key + "/r"], save[key + "/b"] = r, 2.0 * k * eps * t + 1e-300
        np.savez(path, **save)
        return 0
    ref = np.load(path)
    n = bad = 0
    for key, r in results.items():
        n += 1
        want, bound = ref[key + "/r"], ref[key + "/b"]
        ok = r.shape == want.shape and r.dtype == want.dtype
        if ok:
            err = np.maximum(np.abs(r.real - want.real), np.abs(r.imag - want.imag))
            ok = bool(np.all(err <= bound))
        print(f"{'ok' if ok else 'not ok'} {n} - {key} {r.shape}: within the bound of numpy's "
              f"own OpenBLAS")
        if not ok:
            bad += 1
            if r.shape == want.shape:
                i = np.unravel_index(np.argmax(err - bound), err.shape)
                print(f"#   at {i}: {r[i]} vs {want[i]} (bound {bound[i]:.3g})")
    print(f"1..{n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2]))
