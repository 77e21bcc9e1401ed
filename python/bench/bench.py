"""Benchmarks of the Python package on the GPU machine (scripts/gpu-python.sh runs this):

* floyd_warshall against scipy.sparse.csgraph.floyd_warshall, end to end from the Python call,
  on random graphs of V vertices and 40 edges per vertex (weights uniform in [1, 100)), V = 1000,
  2000, 5000; ours best of 3 after a warm-up, scipy once; the results compared;
* matmul on torch tensors against torch.matmul (bench_matmul.py): FP32 at 4096^2 and 8192^2,
  transposes and a strided batch, TF32/BF16/FP16 at 4096^2 (CUDA events, median of 25 after 5
  warm-ups, same process);
* the float32 and float64 Floyd-Warshall kernels at V = 30000 against their own add-min ceilings.
"""
import argparse
import json
import platform
import sys
import time

import numpy as np

import rust_gpu_kernels as rgk
from rust_gpu_kernels import _native

import bench_matmul


def random_graph(n, per_vertex, seed):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), per_vertex)
    cols = rng.integers(0, n, n * per_vertex)
    w = rng.uniform(1.0, 100.0, n * per_vertex)
    keep = rows != cols
    return sp.csr_matrix((w[keep], (rows[keep], cols[keep])), shape=(n, n))


def bench_fw(sizes):
    from scipy.sparse.csgraph import floyd_warshall as scipy_fw

    out = []
    for n in sizes:
        g = random_graph(n, 40, seed=n)
        rgk.floyd_warshall(g, device="gpu")  # warm-up: module load, allocation
        ours = []
        for _ in range(3):
            t = time.perf_counter()
            d = rgk.floyd_warshall(g, device="gpu")
            ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        want = scipy_fw(g)
        theirs = time.perf_counter() - t
        # Predecessors: the whole call with them, and the predecessor search alone on the GPU
        # and on the CPU (the same dense graph and distances; best of 3 each).
        from rust_gpu_kernels._apsp import _dense, _predecessors

        with_pred = []
        for _ in range(3):
            t = time.perf_counter()
            _, pred = rgk.floyd_warshall(g, device="gpu", return_predecessors=True)
            with_pred.append(time.perf_counter() - t)
        graph, _ = _dense(g, np.float64, False)
        np.fill_diagonal(graph, 0)
        search = {}
        for where in ("gpu", "cpu"):
            times = []
            for _ in range(3):
                t = time.perf_counter()
                _predecessors(graph, d, n, where)
                times.append(time.perf_counter() - t)
            search[where] = min(times)
        r = {
            "V": n,
            "edges": int(g.nnz),
            "ours_s": min(ours),
            "ours_all_s": ours,
            "scipy_s": theirs,
            "speedup": theirs / min(ours),
            "equal_to_scipy": bool(np.allclose(d, want, rtol=1e-12, atol=0)),
            "ours_with_predecessors_s": min(with_pred),
            "predecessors_gpu_s": search["gpu"],
            "predecessors_cpu_s": search["cpu"],
        }
        print(json.dumps(r), flush=True)
        out.append(r)
    return out


def bench_kernels(n):
    out = []
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        rng = np.random.default_rng(1)
        d = np.full((n, n), np.inf, dtype=dtype)
        rows = np.repeat(np.arange(n), 40)
        d[rows, rng.integers(0, n, n * 40)] = rng.uniform(1.0, 100.0, n * 40).astype(dtype)
        np.fill_diagonal(d, 0)
        place, _, negative, compute_s, nonneg = _native.solve_float(d.ctypes.data, n, name, "gpu")
        # Against the ceiling of the kernels that ran (weights in [1, 100): the nonneg ones
        # where the type has them).
        peak = _native.float_peak(name, 16384, 5, nonneg)
        padded = -(-n // 64) * 64
        rate = padded**3 / compute_s
        r = {
            "dtype": name,
            "V": n,
            "padded": padded,
            "compute_s": compute_s,
            "updates_per_s": rate,
            "ceiling_updates_per_s": peak,
            "percent_of_ceiling": 100.0 * rate / peak,
            "nonneg_kernels": bool(nonneg),
            "negative_cycle": bool(negative),
            "ran_on": place,
        }
        print(json.dumps(r), flush=True)
        out.append(r)
        del d
    return out


def markdown(res):
    """The tables of the sections that ran."""
    lines = []
    if "floyd_warshall" in res:
        lines += ["| V | edges | rust_gpu_kernels (s) | scipy (s) | speed-up | with predecessors (s) "
                  "| predecessor search GPU / CPU (s) |", "|---|---|---|---|---|---|---|"]
        for r in res["floyd_warshall"]:
            lines.append(f"| {r['V']} | {r['edges']} | {r['ours_s']:.4f} | {r['scipy_s']:.2f} | "
                         f"{r['speedup']:.0f}x | {r['ours_with_predecessors_s']:.4f} | "
                         f"{r['predecessors_gpu_s']:.4f} / {r['predecessors_cpu_s']:.4f} |")
        lines.append("")
    lines += bench_matmul.markdown(res)
    if "kernels" in res:
        lines += ["", "| kernels | V | compute (s) | add-mins/s | ceiling | % of ceiling |",
                  "|---|---|---|---|---|---|"]
        for r in res["kernels"]:
            lines.append(f"| {r['dtype']} | {r['V']} | {r['compute_s']:.3f} | {r['updates_per_s']:.3e} | "
                         f"{r['ceiling_updates_per_s']:.3e} | {r['percent_of_ceiling']:.1f} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", nargs="?", default="full", choices=["full", "quick", "matmul"],
                   help="matmul: the matmul rows only")
    p.add_argument("--json")
    p.add_argument("--md")
    a = p.parse_args()
    quick = a.mode == "quick"
    res = {
        "device": rgk.device_name(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if a.mode != "matmul":
        res["floyd_warshall"] = bench_fw([1000, 2000] if quick else [1000, 2000, 5000])
    import torch

    res["matmul"] = bench_matmul.bench_matmul(torch, [4096] if quick else [4096, 8192])
    res["matmul_ops"] = bench_matmul.bench_matmul_ops(torch)
    if a.mode != "matmul":
        res["kernels"] = bench_kernels(5000 if quick else 30000)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    table = markdown(res)
    print(table)
    if a.md:
        with open(a.md, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
