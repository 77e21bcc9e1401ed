"""SGEMM: ``C = alpha * op(A) @ op(B) + beta * C`` in float32 on NumPy arrays and CUDA tensors."""
import numpy as np

from . import _native
from ._tensors import device_array, empty_like_device


def _check_supported(on_device, trans_a, trans_b):
    """What this build of the library runs, in one place: widen it when the library gains
    op(A)/op(B) and strided batches on device memory. NumPy operands are transposed on the
    host, so only device tensors are limited; batches run one product per matrix."""
    if on_device and (trans_a or trans_b):
        raise ValueError(
            "trans_a/trans_b on device tensors need the library's transposed operands, which "
            "this build lacks; pass the transposed tensor made contiguous instead"
        )


def _shapes(a_shape, b_shape):
    """(batch, m, n, k) of A (..., m, k) times B (..., k, n); one of them may be 2-D (shared by
    every matrix of the other's batch)."""
    if len(a_shape) not in (2, 3) or len(b_shape) not in (2, 3):
        raise ValueError(
            f"A and B must be 2-D matrices or 3-D batches, not of shapes {a_shape} and {b_shape}"
        )
    (m, k), (k2, n) = a_shape[-2:], b_shape[-2:]
    if k != k2:
        raise ValueError(f"A is {m} x {k} but B is {k2} x {n}: the inner dimensions differ")
    ba = a_shape[0] if len(a_shape) == 3 else None
    bb = b_shape[0] if len(b_shape) == 3 else None
    if ba is not None and bb is not None and ba != bb:
        raise ValueError(f"A has a batch of {ba} and B of {bb}")
    return (ba if ba is not None else bb), m, n, k


def _host(a, b, alpha, beta, out, trans_a, trans_b):
    a, b = np.asarray(a), np.asarray(b)
    for what, x in (("A", a), ("B", b)):
        if x.dtype != np.float32:
            raise ValueError(f"{what} must be float32, not {x.dtype}")
    if trans_a:
        a = np.swapaxes(a, -1, -2)
    if trans_b:
        b = np.swapaxes(b, -1, -2)
    batch, m, n, k = _shapes(a.shape, b.shape)
    shape = (m, n) if batch is None else (batch, m, n)
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if out is None:
        if beta != 0:
            raise ValueError("beta != 0 needs out= (the C that is scaled and added)")
        out = np.empty(shape, dtype=np.float32)
    elif not (
        isinstance(out, np.ndarray)
        and out.dtype == np.float32
        and out.shape == shape
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        raise ValueError(f"out must be a writable C-contiguous float32 NumPy array of shape {shape}")
    for i in range(batch or 1):
        ai = a if a.ndim == 2 else a[i]
        bi = b if b.ndim == 2 else b[i]
        ci = out if batch is None else out[i]
        _native.gemm(ai.ctypes.data, bi.ctypes.data, ci.ctypes.data, m, n, k, k, n, n,
                     float(alpha), float(beta), False, 0)
    return out


def _layout(x, what):
    """(batch stride, leading dimension) of a device matrix or batch: rows must be contiguous."""
    rows, cols = x.shape[-2:]
    if x.strides[-1] != 1 and cols > 1:
        _check_supported(True, True, False)  # a transposed view: the library's op(A) case
    ld = x.strides[-2] if rows > 1 else cols
    if ld < cols:
        raise ValueError(f"{what}'s rows overlap (row stride {ld} < {cols} columns)")
    return (x.strides[0] if len(x.shape) == 3 else 0), ld


def _device(a, b, da, db, alpha, beta, out, trans_a, trans_b):
    _check_supported(True, trans_a, trans_b)
    batch, m, n, k = _shapes(da.shape, db.shape)
    shape = (m, n) if batch is None else (batch, m, n)
    if out is None:
        if beta != 0:
            raise ValueError("beta != 0 needs out= (the C that is scaled and added)")
        out = empty_like_device(da.owner, shape)
        if out is None:
            raise ValueError("pass out= (a float32 device array) for tensors of this library")
    dc = device_array(out, "out")
    if dc is None:
        raise ValueError("out must be a device array when A and B are")
    if dc.shape != shape:
        raise ValueError(f"out has shape {dc.shape}, not {shape}")
    (sa, lda), (sb, ldb), (sc, ldc) = _layout(da, "A"), _layout(db, "B"), _layout(dc, "out")
    for i in range(batch or 1):
        _native.gemm(da.ptr + 4 * i * sa, db.ptr + 4 * i * sb, dc.ptr + 4 * i * sc,
                     m, n, k, lda, ldb, ldc, float(alpha), float(beta), True, da.stream)
    return out


def matmul(a, b, *, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False):
    """``C = alpha * op(A) @ op(B) + beta * C`` in float32 on the GPU.

    ``a`` and ``b`` are both NumPy float32 arrays (copied to the GPU and the result back) or
    both float32 CUDA tensors (PyTorch, CuPy, anything with ``__cuda_array_interface__`` or
    DLPack; zero-copy, ordered after the work queued on the tensors' stream, and done when the
    call returns). Shapes: (m, k) @ (k, n), or batches (batch, m, k) @ (batch, k, n) with
    either side possibly 2-D. ``op(X)`` is X transposed when ``trans_x`` is set. ``out`` is C:
    written in place (required when ``beta != 0``), else a new array of A's kind.

    Raises ValueError for bad shapes or dtypes (one sentence), NoGpuError without a GPU.
    """
    da, db = device_array(a, "A"), device_array(b, "B")
    if (da is None) != (db is None):
        raise ValueError("A and B must both be host (NumPy) arrays or both device tensors")
    if da is None:
        return _host(a, b, alpha, beta, out, trans_a, trans_b)
    return _device(a, b, da, db, alpha, beta, out, trans_a, trans_b)


def sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False):
    """BLAS-style name for :func:`matmul`: ``C = alpha * op(A) @ op(B) + beta * C``, ``c`` as
    ``out``."""
    return matmul(a, b, alpha=alpha, beta=beta, out=c, trans_a=trans_a, trans_b=trans_b)
