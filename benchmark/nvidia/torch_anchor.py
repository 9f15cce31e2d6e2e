"""cuBLAS through PyTorch on resident square matrices: the kernel-rate
anchor the nv_* kernels are held against, run in the same device call.

    python3 benchmark/nvidia/torch_anchor.py N [N ...]

Rows: sgemm with TF32 off (cuBLAS's fp32 path), sgemm with TF32 allowed (1xTF32,
not fp32-accurate; the tensor-core rate 3xTF32 trades against), hgemm (fp16
in and out, tensor cores); with --precisions, dgemm, cgemm and zgemm instead
(complex counted as 8 n^3 flops).  Timed with CUDA events, best and median of 20.
"""
import sys

import torch


def bench(name, dtype, n, tf32, reps=20):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)  # complex: both parts random
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    for _ in range(3):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    ms = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end))
    ms.sort()
    flops = (8.0 if dtype.is_complex else 2.0) * n * n * n
    letter = {torch.float16: "h", torch.float32: "s", torch.float64: "d", torch.complex64: "c",
              torch.complex128: "z"}[dtype]
    print(f"{name:<20} {letter:<2} NN {n:5d} {n:5d} {n:5d}"
          f"  best {flops / ms[0] * 1e-9:8.2f}  med {flops / ms[len(ms) // 2] * 1e-9:8.2f} TFLOPS"
          f"  {ms[len(ms) // 2] * 1e3:9.1f} us", flush=True)


def main():
    precisions = "--precisions" in sys.argv[1:]
    sizes = [int(s) for s in sys.argv[1:] if s != "--precisions"] or [1024, 2048, 4096, 8192]
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}", flush=True)
    for n in sizes:
        if precisions:
            bench("cublas-dgemm", torch.float64, n, False)
            bench("cublas-cgemm", torch.complex64, n, False)
            bench("cublas-zgemm", torch.complex128, n, False)
            continue
        bench("cublas-sgemm", torch.float32, n, False)
        bench("cublas-sgemm-tf32", torch.float32, n, True)
        bench("cublas-hgemm", torch.float16, n, False)


if __name__ == "__main__":
    main()
