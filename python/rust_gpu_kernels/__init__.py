"""GPU all-pairs shortest paths and SGEMM with kernels written in Rust (rust-cuda).

* :func:`floyd_warshall` -- ``scipy.sparse.csgraph.floyd_warshall`` on the GPU, same
  signature and results (float64 distances, ``inf`` for no path, predecessors, negative
  cycles raise :class:`NegativeCycleError`); without a GPU it runs on the CPU with a
  ``RuntimeWarning``.
* :func:`apsp` / :func:`apsp_file` -- the course's int32 problem (edge list or file).
* :func:`matmul` / :func:`sgemm` -- ``C = alpha*op(A)@op(B) + beta*C`` (float32 C; fp32, tf32,
  3xtf32, bf16 or fp16 inputs) on NumPy arrays (copied to and from the GPU) or on CUDA tensors
  (PyTorch, CuPy, DLPack, ``__cuda_array_interface__``; zero-copy, on the tensors' stream),
  with transposes and strided batches.

Errors carry the library's one sentence: :class:`ValueError` for bad input,
:class:`NoGpuError` when there is no usable GPU, :class:`GpuError` when the GPU fails.
"""
from ._native import GpuError, NoGpuError
from ._errors import NegativeCycleError
from ._apsp import APSP_INF, apsp, apsp_file, floyd_warshall
from ._gemm import matmul, sgemm
from ._device import device_name, gpu_available

__all__ = [
    "APSP_INF",
    "GpuError",
    "NegativeCycleError",
    "NoGpuError",
    "apsp",
    "apsp_file",
    "device_name",
    "floyd_warshall",
    "gpu_available",
    "matmul",
    "sgemm",
]
__version__ = "0.1.0"
