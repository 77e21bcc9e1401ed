"""matmul/sgemm against NumPy's float64 product (the independent reference), with each
precision's bound as docs/tensor-cores.md derives it ("Verification bound")."""
import math

import numpy as np
import pytest

import rust_gpu_kernels as rgk
from rust_gpu_kernels import _gemm
from conftest import requires_gpu

U32, UTF32 = 2.0**-24, 2.0**-11
# ε_in: the input rounding the reference does not see (BF16/FP16 inputs are what the reference
# reads); τ: 1 on the CUDA cores, 2 on the tensor cores (truncating additions).
EPS_IN = {"fp32": 0.0, "tf32": 4 * UTF32 + 4 * UTF32**2, "3xtf32": 3 * UTF32**2, "bf16": 0.0,
          "fp16": 0.0}
TAU = {"fp32": 1.0, "tf32": 2.0, "3xtf32": 2.0, "bf16": 2.0, "fp16": 2.0}


def check(got, a, b, precision="fp32", alpha=1.0, beta=0.0, c=None):
    """|got - ref| <= rel(p, K)·|alpha|·Σ|a||b| + 1e-6 (+ the f32 rounding of beta·C), cell by
    cell, with ref in float64 from the (already rounded) inputs."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    k = a.shape[-1]
    want = alpha * (a @ b)
    scale = abs(alpha) * (np.abs(a) @ np.abs(b))
    if c is not None:
        c = np.asarray(c, np.float64)
        want = want + beta * c
        scale = scale + 2 * abs(beta) * np.abs(c)
    rel = EPS_IN[precision] + 8 * TAU[precision] * math.sqrt(k) * U32
    err = np.abs(np.asarray(got, np.float64) - want)
    bad = err > rel * scale + 1e-6
    assert not bad.any(), f"{bad.sum()} cells out of bound, worst {float((err - rel * scale).max())}"


def test_bad_input_is_value_error_before_the_gpu():
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="inner dimensions"):
        rgk.matmul(a, np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="float32"):
        rgk.matmul(a, np.ones((4, 2)))
    with pytest.raises(ValueError, match="out="):
        rgk.matmul(a, np.ones((4, 2), np.float32), beta=1.0)
    with pytest.raises(ValueError, match="2-D matrix or a 3-D"):
        rgk.matmul(np.ones(4, np.float32), np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="batch of 3 and B of 2"):
        rgk.matmul(np.ones((3, 4, 4), np.float32), np.ones((2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="precision must be one of"):
        rgk.matmul(a, np.ones((4, 2), np.float32), precision="fp64")
    with pytest.raises(ValueError, match="'fp16' takes float16 A and B, but A is float32"):
        rgk.matmul(a, np.ones((4, 2), np.float16), precision="fp16")
    with pytest.raises(ValueError, match="'fp32' takes float32"):
        rgk.matmul(a.astype(np.float16), np.ones((4, 2), np.float16))


def _as_library_reads(buf, off, op_t, ld, bstride, rows, cols, batch):
    """op(X) of every problem as the library reads it: from the raw element buffer ``buf``, at
    ``off``, the stored matrix row-major with rows ``ld`` apart (transposed when op T)."""
    out = []
    for i in range(batch):
        srows, scols = (cols, rows) if op_t else (rows, cols)
        base = off + i * bstride
        s = np.array([[buf[base + r * ld + c] for c in range(scols)] for r in range(srows)])
        out.append(s.T if op_t else s)
    return np.stack(out)


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("view", ["dense", "T", "rows", "batch", "batch_T", "bcast"])
def test_layout_maps_to_the_librarys_operand(view, trans):
    # Pure Python (no GPU): the (op, ld, stride) the call passes reads the intended op(X).
    buf = np.arange(4 * 9 * 11, dtype=np.float64)
    base = {
        "dense": buf[:35].reshape(5, 7),
        "T": buf[:35].reshape(7, 5).T,
        "rows": buf.reshape(36, 11)[:5, 2:9],
        "batch": buf.reshape(4, 9, 11)[:, 1:6, :7],
        "batch_T": buf.reshape(4, 11, 9)[:, :7, 2:7].transpose(0, 2, 1),
        "bcast": buf.reshape(4, 9, 11)[:1, :5, :7],
    }[view]
    isz = buf.itemsize
    strides = tuple(s // isz for s in base.strides)
    op_t, ld, bstride, (rows, cols) = _gemm._operand(base.shape, strides, trans, "X")
    off = (base.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // isz
    batch = base.shape[0] if base.ndim == 3 else 1
    got = _as_library_reads(buf, off, op_t, ld, bstride, rows, cols, batch)
    want = np.swapaxes(base, -1, -2) if trans else base
    np.testing.assert_array_equal(got, want.reshape(batch, rows, cols))


@pytest.mark.skipif(rgk.gpu_available(), reason="checks the no-GPU error")
def test_no_gpu_raises_no_gpu_error():
    a = np.ones((3, 4), np.float32)
    with pytest.raises(rgk.NoGpuError):
        rgk.matmul(a, a.T.copy())
    with pytest.raises(rgk.NoGpuError):
        rgk.floyd_warshall(np.ones((2, 2)), device="gpu")
    assert issubclass(rgk.NoGpuError, RuntimeError)


@pytest.mark.skipif(rgk.gpu_available(), reason="checks the CPU fallback's warning")
def test_cpu_fallback_warns():
    with pytest.warns(RuntimeWarning, match="ran on the CPU"):
        rgk.floyd_warshall(np.ones((2, 2)))


@requires_gpu
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (64, 64, 64), (100, 77, 129), (513, 300, 1000)])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_numpy_matches_reference(m, n, k, trans_a, trans_b):
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-1, 1, (k, m) if trans_a else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, k) if trans_b else (k, n)).astype(np.float32)
    c = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    c0 = c.copy()
    got = rgk.matmul(a, b, alpha=0.5, beta=2.0, out=c, trans_a=trans_a, trans_b=trans_b)
    assert got is c
    check(got, a.T if trans_a else a, b.T if trans_b else b, "fp32", 0.5, 2.0, c0)


@requires_gpu
def test_numpy_views_batches_and_precisions():
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (3, 40, 56)).astype(np.float32)
    b = rng.uniform(-1, 1, (56, 32)).astype(np.float32)
    check(rgk.sgemm(a, b), a, b)  # one B for every problem (stride 0)
    check(rgk.matmul(a, b.T.copy().T), a, b)  # column-major view
    check(rgk.matmul(a.transpose(0, 2, 1), b, trans_a=True), a, b)
    big = rng.uniform(-1, 1, (3, 50, 64)).astype(np.float32)
    check(rgk.matmul(big[:, 3:43, :56], b), big[:, 3:43, :56], b)  # strides beyond the matrices
    for p in ("tf32", "3xtf32"):
        check(rgk.matmul(a, b, precision=p), a, b, p)
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    check(rgk.matmul(a16, b16, precision="fp16"), a16, b16, "fp16")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("SKIPPED: torch has no CUDA")
    return torch


def _np(t):
    return t.detach().float().cpu().numpy()


TC_DTYPE = {"fp32": "float32", "tf32": "float32", "3xtf32": "float32", "bf16": "bfloat16",
            "fp16": "float16"}


@requires_gpu
@pytest.mark.parametrize("precision", list(TC_DTYPE))
@pytest.mark.parametrize("how", ["flags", "views"])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_torch_transposes_every_precision(precision, how, trans_a, trans_b):
    torch = _torch()
    dtype = getattr(torch, TC_DTYPE[precision])
    g = torch.Generator(device="cuda").manual_seed(7)
    m, n, k = 136, 72, 200  # multiples of 8: 16-byte rows for the tensor cores
    rnd = lambda *s: (torch.rand(*s, device="cuda", generator=g) * 2 - 1).to(dtype)
    a = rnd(k, m) if trans_a else rnd(m, k)
    b = rnd(n, k) if trans_b else rnd(k, n)
    opa, opb = (a.T if trans_a else a), (b.T if trans_b else b)
    c = torch.rand(m, n, device="cuda", generator=g)
    c0 = _np(c)
    if how == "flags":
        got = rgk.matmul(a, b, trans_a=trans_a, trans_b=trans_b, alpha=-1.5, beta=0.5, out=c,
                         precision=precision)
    else:  # the transposed operand as a column-major view: zero-copy op T
        got = rgk.matmul(opa, opb, alpha=-1.5, beta=0.5, out=c, precision=precision)
    assert got is c
    torch.cuda.synchronize()
    check(_np(c), _np(opa), _np(opb), precision, -1.5, 0.5, c0)


@requires_gpu
@pytest.mark.parametrize("precision", ["fp32", "tf32", "bf16"])
def test_torch_strided_batches(precision):
    torch = _torch()
    dtype = getattr(torch, TC_DTYPE[precision])
    g = torch.Generator(device="cuda").manual_seed(3)
    rnd = lambda *s: (torch.rand(*s, device="cuda", generator=g) * 2 - 1).to(dtype)
    # Rows and problems further apart than the matrices: leading dimensions > widths and batch
    # strides > spans, in A, B (transposed view) and C.
    A = rnd(6, 80, 144)[:, 5:69, :104]
    Bt = rnd(6, 56, 120)[:, :40, 8:112]
    C = torch.rand(6, 70, 48, device="cuda", generator=g)
    c = C[:, 2:66, :40]
    c0 = _np(c)
    rgk.matmul(A, Bt.transpose(1, 2), out=c, alpha=2.0, beta=-1.0, precision=precision)
    torch.cuda.synchronize()
    check(_np(c), _np(A), _np(Bt.transpose(1, 2)), precision, 2.0, -1.0, c0)
    # One 2-D B for every problem of A's batch (stride 0), and a batch of 1 beside 6.
    B2 = rnd(104, 48)
    check(_np(rgk.matmul(A, B2, precision=precision)), _np(A), _np(B2)[None], precision)
    A1, B6 = A[:1], rnd(6, 104, 24)
    check(_np(rgk.matmul(A1, B6, precision=precision)), _np(A1), _np(B6), precision)


@requires_gpu
def test_torch_batch_against_bmm_and_broadcast():
    torch = _torch()
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.rand(4, 64, 32, device="cuda", generator=g)
    b = torch.rand(4, 32, 48, device="cuda", generator=g)
    check(_np(rgk.matmul(a, b)), _np(a), _np(b))
    one = torch.rand(1, 64, 32, device="cuda", generator=g)
    check(_np(rgk.matmul(one, b)), _np(one), _np(b))
    check(_np(rgk.matmul(a[0], b)), _np(a[0])[None], _np(b))


@requires_gpu
def test_torch_side_stream_without_synchronising():
    torch = _torch()
    # Once before, on the default stream: the library's first call of a shape loads modules and
    # sizes its workspace, which may wait for the device.
    w = torch.ones(1024, 1024, device="cuda")
    rgk.matmul(w, w)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.empty(1024, 1024, device="cuda")
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time queued before x is filled
        x.fill_(3.0)
        y = rgk.matmul(x, x)  # must read x after the fill, without the host waiting
        busy = not s.query()
        z = y + 1  # queued after the product on the same stream
    assert busy, "the call waited for the stream"
    s.synchronize()
    assert torch.all(z == 9 * 1024 + 1)


@requires_gpu
def test_torch_bad_input():
    torch = _torch()
    a = torch.rand(64, 64, device="cuda")
    with pytest.raises(ValueError, match="'bf16' takes bfloat16"):
        rgk.matmul(a, a, precision="bf16")
    with pytest.raises(ValueError, match="'fp32' takes float32"):
        rgk.matmul(a.half(), a.half())
    with pytest.raises(ValueError, match="batch of 3 and B of 2"):
        rgk.matmul(torch.rand(3, 8, 8, device="cuda"), torch.rand(2, 8, 8, device="cuda"))
    with pytest.raises(ValueError, match="neither row- nor column-major"):
        rgk.matmul(a[:, ::2], a[:32])
    with pytest.raises(ValueError, match="out must be row-major"):
        rgk.matmul(a, a, out=torch.empty(64, 64, device="cuda").T)
    with pytest.raises(ValueError, match="not a multiple of 8"):  # 16-byte rows for BF16
        b = torch.rand(64, 100, device="cuda").bfloat16()
        rgk.matmul(b, b.T, precision="bf16")
    with pytest.raises(ValueError, match="host \\(NumPy\\) arrays or both device"):
        rgk.matmul(a, np.ones((64, 64), np.float32))


@requires_gpu
def test_torch_zero_copy():
    torch = _torch()
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand(300, 200, device="cuda", generator=g) * 2 - 1
    b = torch.rand(200, 100, device="cuda", generator=g) * 2 - 1
    c = torch.rand(300, 100, device="cuda", generator=g)
    c0 = _np(c)
    ptr = c.data_ptr()
    out = rgk.matmul(a, b, alpha=2.0, beta=-1.0, out=c)
    assert out is c and c.data_ptr() == ptr
    check(_np(c), _np(a), _np(b), "fp32", 2.0, -1.0, c0)
    big = torch.rand(300, 256, device="cuda", generator=g)
    view = big[:, :200]
    r = rgk.matmul(view, b)
    assert r.is_cuda and r.dtype == torch.float32
    check(_np(r), _np(view), _np(b))


@requires_gpu
def test_dlpack_only_producer():
    torch = _torch()

    class OnlyDlpack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    a = torch.rand(64, 32, device="cuda")
    b = torch.rand(32, 16, device="cuda")
    c = torch.empty(64, 16, device="cuda")
    rgk.matmul(OnlyDlpack(a), OnlyDlpack(b.T.contiguous().T), out=OnlyDlpack(c))
    check(_np(c), _np(a), _np(b))
    ab, bb = a.bfloat16(), b.bfloat16()
    c.zero_()
    rgk.matmul(OnlyDlpack(ab), OnlyDlpack(bb), out=OnlyDlpack(c), precision="bf16")
    check(_np(c), _np(ab), _np(bb), "bf16")


@requires_gpu
def test_floyd_warshall_runs_on_the_gpu_without_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        d = rgk.floyd_warshall(np.array([[0, 2.0], [1.0, 0]]))
    np.testing.assert_array_equal(d, [[0, 2], [1, 0]])
