"""matmul on torch tensors against torch.matmul in the same process (bench.py runs this): CUDA
events on the current stream around each call, median of REPS after WARMUP warm-ups.

* square FP32 at 4096^2 and 8192^2 (TF32 off, so torch runs true FP32);
* transposes at 4096^2 in FP32 (op(A), op(B) as column-major views ``t.T``, zero-copy on both
  sides) and a strided batch of 512 x 256^3 (plain and with B transposed) against torch.matmul
  (a batched GEMM in cuBLAS);
* the tensor-core precisions at 4096^2 against torch with the same inputs: TF32 (torch with
  ``torch.backends.cuda.matmul.allow_tf32 = True``), BF16 and FP16 (bf16/fp16 tensors; torch
  writes bf16/fp16, ours float32).
"""
import json

import numpy as np

import rust_gpu_kernels as rgk

WARMUP, REPS = 5, 25


def timed(torch, f):
    for _ in range(WARMUP):
        f()
    ms = []
    for _ in range(REPS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        e.synchronize()
        ms.append(s.elapsed_time(e))
    return float(np.median(ms))


def _row(torch, name, a, b, flop, precision="fp32", allow_tf32=False, batch=None):
    """ours (rgk.matmul into a float32 C) against torch.matmul on the same operands."""
    shape = (a.shape[-2], b.shape[-1]) if batch is None else (batch, a.shape[-2], b.shape[-1])
    c = torch.empty(shape, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    try:
        ours = timed(torch, lambda: rgk.matmul(a, b, out=c, precision=precision))
        ref = torch.matmul(a, b)
        theirs = timed(torch, lambda: torch.matmul(a, b, out=ref))
        exact = torch.matmul(a.double(), b.double())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    scale = float(exact.abs().max())
    r = {
        "case": name,
        "precision": precision,
        "shape": list(shape) + [a.shape[-1]],
        "ours_ms": ours,
        "torch_ms": theirs,
        "ours_tflops": flop / ours / 1e9,
        "torch_tflops": flop / theirs / 1e9,
        "ratio_to_torch": theirs / ours,
        "ours_max_rel_err": float((c.double() - exact).abs().max()) / scale,
        "torch_max_rel_err": float((ref.double() - exact).abs().max()) / scale,
    }
    print(json.dumps(r), flush=True)
    return r


def bench_matmul(torch, sizes):
    out = []
    for n in sizes:
        a = torch.rand(n, n, device="cuda") - 0.5
        b = torch.rand(n, n, device="cuda") - 0.5
        r = _row(torch, "square", a, b, 2.0 * n**3)
        out.append({"n": n, **r})
    return out


def bench_matmul_ops(torch, n=4096, batch=512, bn=256):
    out = []
    a = torch.rand(n, n, device="cuda") - 0.5
    b = torch.rand(n, n, device="cuda") - 0.5
    flop = 2.0 * n**3
    for name, x, y in (("A.T @ B", a.T, b), ("A @ B.T", a, b.T), ("A.T @ B.T", a.T, b.T)):
        out.append(_row(torch, name, x, y, flop))
    ab = torch.rand(batch, bn, bn, device="cuda") - 0.5
    bb = torch.rand(batch, bn, bn, device="cuda") - 0.5
    bflop = 2.0 * batch * bn**3
    out.append(_row(torch, f"batch {batch} x {bn}^3", ab, bb, bflop, batch=batch))
    out.append(_row(torch, f"batch {batch} x {bn}^3, B.T", ab, bb.transpose(1, 2), bflop,
                    batch=batch))
    out.append(_row(torch, "tf32", a, b, flop, "tf32", allow_tf32=True))
    for p, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        out.append(_row(torch, p, a.to(dt), b.to(dt), flop, p))
    return out


def markdown(res):
    lines = ["| case | precision | shape (m, n, k) | matmul (ms) | torch.matmul (ms) | ours TFLOP/s "
             "| torch TFLOP/s | ours / torch | max rel. err ours / torch |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in res.get("matmul", []) + res.get("matmul_ops", []):
        lines.append(f"| {r['case']} | {r['precision']} | {tuple(r['shape'])} | {r['ours_ms']:.3f} | "
                     f"{r['torch_ms']:.3f} | {r['ours_tflops']:.1f} | {r['torch_tflops']:.1f} | "
                     f"{r['ratio_to_torch']:.3f} | {r['ours_max_rel_err']:.1e} / "
                     f"{r['torch_max_rel_err']:.1e} |")
    return lines
