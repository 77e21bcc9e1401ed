"""GEMM: ``C = alpha * op(A) @ op(B) + beta * C`` on NumPy arrays and CUDA tensors, in float32
(the CUDA cores) or on the tensor cores (TF32, 3xTF32, BF16, FP16), as one strided batch."""
import numpy as np

from . import _native
from ._tensors import device_array, empty_like_device

# The precisions (the library's names, rgk_core::matmul::precision::Precision) and the element
# type each takes for A and B, in one place. C is float32 for every precision.
PRECISIONS = {
    "fp32": "float32",
    "tf32": "float32",
    "3xtf32": "float32",
    "bf16": "bfloat16",
    "fp16": "float16",
}


def _input_dtype(precision):
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    return PRECISIONS[precision]


def _check_dtype(what, dtype, precision):
    want = PRECISIONS[precision]
    if dtype != want:
        raise ValueError(f"precision={precision!r} takes {want} A and B, but {what} is {dtype}")


def _layout(shape, strides):
    """How the last two dimensions (r, c) are stored: (False, ld) row-major with rows ld apart,
    (True, ld) column-major (the transpose of a row-major c x r matrix) with columns ld apart,
    or None (neither, or negative strides). A single row or column is row-major."""
    r, c = shape[-2:]
    s0, s1 = strides[-2:]
    if (s1 == 1 or c == 1) and (r == 1 or s0 >= c):
        return False, (s0 if r > 1 else c)
    if (s0 == 1 or r == 1) and (c == 1 or s1 >= r):
        return True, (s1 if c > 1 else r)
    return None


def _operand(shape, strides, trans, what):
    """X of ``shape`` (2-D or 3-D) and element ``strides`` as the library's operand of op(X):
    (op T?, leading dimension, batch stride, (rows, cols) of op(X)), or None where its layout
    is neither row- nor column-major (or a stride is negative)."""
    if len(shape) not in (2, 3):
        raise ValueError(f"{what} must be a 2-D matrix or a 3-D batch, not of shape {shape}")
    lay = _layout(shape, strides)
    if lay is None or (len(shape) == 3 and shape[0] > 1 and strides[0] < 0):
        return None
    col, ld = lay
    r, c = shape[-2:]
    # X stored column-major is the transpose of a row-major matrix: op T there is op N here.
    op_t = col != bool(trans)
    bstride = strides[0] if len(shape) == 3 and shape[0] > 1 else 0
    return op_t, ld, bstride, ((c, r) if trans else (r, c))


def _problem(sa, sb):
    """(batch or None, m, n, k) of op(A) @ op(B) from their shapes and 3-D-ness: ``sa`` and
    ``sb`` are (ndim, (rows, cols) of op(X), batch size)."""
    (nda, (m, k), ba), (ndb, (k2, n), bb) = sa, sb
    if k != k2:
        raise ValueError(f"op(A) is {m} x {k} but op(B) is {k2} x {n}: the inner dimensions differ")
    if nda == 3 and ndb == 3 and ba != bb and 1 not in (ba, bb):
        raise ValueError(f"A has a batch of {ba} and B of {bb}")
    if nda == 2 and ndb == 2:
        return None, m, n, k
    return max(ba if nda == 3 else 1, bb if ndb == 3 else 1), m, n, k


def _need_out(beta, out):
    if out is None and beta != 0:
        raise ValueError("beta != 0 needs out= (the C that is scaled and added)")


def _host(a, b, alpha, beta, out, trans_a, trans_b, precision):
    a, b = np.asarray(a), np.asarray(b)
    ops = []
    for what, x, t in (("A", a, trans_a), ("B", b, trans_b)):
        _check_dtype(what, np.dtype(x.dtype).name, precision)
        if x.ndim not in (2, 3):
            raise ValueError(f"{what} must be a 2-D matrix or a 3-D batch, not of shape {x.shape}")
        d = _operand(x.shape, tuple(s // x.itemsize for s in x.strides), t, what)
        if d is None or any(s % x.itemsize for s in x.strides):
            # Neither row- nor column-major (or negative strides): one copy makes it so.
            x = np.ascontiguousarray(x)
            d = _operand(x.shape, tuple(s // x.itemsize for s in x.strides), t, what)
        ops.append((x, d))
    (a, da), (b, db) = ops
    batch, m, n, k = _problem((a.ndim, da[3], a.shape[0] if a.ndim == 3 else 1),
                              (b.ndim, db[3], b.shape[0] if b.ndim == 3 else 1))
    shape = (m, n) if batch is None else (batch, m, n)
    _need_out(beta, out)
    if out is None:
        out = np.empty(shape, dtype=np.float32)
    elif not (
        isinstance(out, np.ndarray)
        and out.dtype == np.float32
        and out.shape == shape
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        raise ValueError(f"out must be a writable C-contiguous float32 NumPy array of shape {shape}")
    _native.gemm(a.ctypes.data, b.ctypes.data, out.ctypes.data, (m, n, k), (da[0], db[0]),
                 (da[1], db[1], n), batch or 1, (da[2], db[2], m * n), float(alpha), float(beta),
                 precision, None)
    return out


def _device_operand(x, trans, what, precision):
    _check_dtype(what, x.dtype, precision)
    d = _operand(x.shape, x.strides, trans, what)
    if d is None:
        raise ValueError(
            f"{what} has strides {x.strides}, neither row- nor column-major in its last two "
            "dimensions: pass a contiguous tensor"
        )
    return d


def _device(a, da, db, alpha, beta, out, trans_a, trans_b, precision):
    oa = _device_operand(da, trans_a, "A", precision)
    ob = _device_operand(db, trans_b, "B", precision)
    batch, m, n, k = _problem((len(da.shape), oa[3], da.shape[0]),
                              (len(db.shape), ob[3], db.shape[0]))
    shape = (m, n) if batch is None else (batch, m, n)
    _need_out(beta, out)
    if out is None:
        out = empty_like_device(da.owner, shape)
        if out is None:
            raise ValueError("pass out= (a float32 device array) for tensors of this library")
    dc = device_array(out, "out")
    if dc is None:
        raise ValueError("out must be a device array when A and B are")
    if dc.shape != shape:
        raise ValueError(f"out has shape {dc.shape}, not {shape}")
    if dc.dtype != "float32":
        raise ValueError(f"out must be float32 (every precision writes float32), not {dc.dtype}")
    lay = _layout(dc.shape, dc.strides)
    if lay is None or lay[0] and n > 1:
        raise ValueError(f"out must be row-major (strides {dc.strides} are not)")
    sc = dc.strides[0] if batch is not None and batch > 1 else 0
    _native.gemm(da.ptr, db.ptr, dc.ptr, (m, n, k), (oa[0], ob[0]), (oa[1], ob[1], lay[1]),
                 batch or 1, (oa[2], ob[2], sc), float(alpha), float(beta), precision,
                 (da.stream, da.blocking or db.blocking or dc.blocking))
    return out


def matmul(a, b, *, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, precision="fp32"):
    """``C = alpha * op(A) @ op(B) + beta * C`` on the GPU, C in float32.

    ``a`` and ``b`` are both NumPy arrays (copied to the GPU and the result back) or both CUDA
    tensors (PyTorch, CuPy, anything with ``__cuda_array_interface__`` or DLPack; zero-copy).
    Shapes: (m, k) @ (k, n), or batches (batch, m, k) @ (batch, k, n) with either side possibly
    2-D (or a batch of 1): one matrix for every product. ``op(X)`` is X transposed when
    ``trans_x`` is set; transposed views (``t.T``, column-major strides) and row-strided views
    are read in place. A batch is one strided batched call. ``out`` is C: written in place
    (required when ``beta != 0``), else a new float32 array of A's kind.

    ``precision``: "fp32" (float32 on the CUDA cores, the default), "tf32" or "3xtf32" (float32
    inputs on the tensor cores), "bf16" or "fp16" (bfloat16 / float16 inputs); each
    accumulates and writes float32.

    Ordering on device tensors: the product runs after the work queued so far on the tensors'
    stream (PyTorch's current stream; the stream ``__cuda_array_interface__`` names) and before
    the work queued there afterwards. With "fp32" the call returns without waiting for the
    GPU; with the tensor-core precisions, with a DLPack-only producer or one that names no
    stream, it returns when C is written.

    Raises ValueError for bad shapes, strides, dtypes or a precision the GPU or the operands'
    layout cannot do (one sentence), NoGpuError without a GPU.
    """
    _input_dtype(precision)
    da, db = device_array(a, "A"), device_array(b, "B")
    if (da is None) != (db is None):
        raise ValueError("A and B must both be host (NumPy) arrays or both device tensors")
    if da is None:
        return _host(a, b, alpha, beta, out, trans_a, trans_b, precision)
    return _device(a, da, db, alpha, beta, out, trans_a, trans_b, precision)


def sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, precision="fp32"):
    """BLAS-style name for :func:`matmul`: ``C = alpha * op(A) @ op(B) + beta * C``, ``c`` as
    ``out``."""
    return matmul(a, b, alpha=alpha, beta=beta, out=c, trans_a=trans_a, trans_b=trans_b,
                  precision=precision)
