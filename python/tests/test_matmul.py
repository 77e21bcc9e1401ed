"""matmul/sgemm against NumPy's float64 product (the independent reference)."""
import numpy as np
import pytest

import rust_gpu_kernels as rgk
from conftest import requires_gpu


def ref(a, b, alpha=1.0, beta=0.0, c=None):
    r = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    return r if c is None else r + beta * c.astype(np.float64)


def close(got, want, k):
    # float32 accumulation over k terms of products of values in [-1, 1].
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * k + 1e-5)


def test_bad_input_is_value_error_before_the_gpu():
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="inner dimensions"):
        rgk.matmul(a, np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="float32"):
        rgk.matmul(a, np.ones((4, 2)))
    with pytest.raises(ValueError, match="out="):
        rgk.matmul(a, np.ones((4, 2), np.float32), beta=1.0)
    with pytest.raises(ValueError, match="2-D matrices or 3-D"):
        rgk.matmul(np.ones(4, np.float32), np.ones((4, 2), np.float32))


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
    want = ref(a.T if trans_a else a, b.T if trans_b else b, 0.5, 2.0, c)
    got = rgk.matmul(a, b, alpha=0.5, beta=2.0, out=c, trans_a=trans_a, trans_b=trans_b)
    assert got is c
    close(got, want, k)


@requires_gpu
def test_numpy_batches():
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (3, 40, 50)).astype(np.float32)
    b = rng.uniform(-1, 1, (50, 30)).astype(np.float32)
    got = rgk.sgemm(a, b)
    close(got, np.stack([ref(x, b) for x in a]), 50)


@requires_gpu
def test_torch_zero_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("SKIPPED: torch has no CUDA")
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand(300, 200, device="cuda", generator=g) * 2 - 1
    b = torch.rand(200, 100, device="cuda", generator=g) * 2 - 1
    c = torch.rand(300, 100, device="cuda", generator=g)
    c0 = c.clone()
    ptr = c.data_ptr()
    out = rgk.matmul(a, b, alpha=2.0, beta=-1.0, out=c)
    assert out is c and c.data_ptr() == ptr
    want = 2.0 * (a.double() @ b.double()) - c0.double()
    assert torch.allclose(c.double(), want, atol=1e-3)
    # A new output tensor, a row-sliced view (leading dimension > width), and batches.
    big = torch.rand(300, 256, device="cuda", generator=g)
    view = big[:, :200]
    r = rgk.matmul(view, b)
    assert r.is_cuda and torch.allclose(r.double(), view.double() @ b.double(), atol=1e-3)
    ab = torch.rand(4, 64, 32, device="cuda", generator=g)
    bb = torch.rand(4, 32, 48, device="cuda", generator=g)
    assert torch.allclose(rgk.matmul(ab, bb), torch.bmm(ab, bb), atol=1e-4)
    # On a side stream: ordered after the work queued there.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.ones(512, 512, device="cuda") * 3
        y = rgk.matmul(x, x)
    torch.cuda.synchronize()
    assert torch.all(y == 9 * 512)
    with pytest.raises(ValueError, match="trans"):
        rgk.matmul(a.t(), a)


@requires_gpu
def test_dlpack_only_producer():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("SKIPPED: torch has no CUDA")

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
    rgk.matmul(OnlyDlpack(a), OnlyDlpack(b), out=OnlyDlpack(c))
    assert torch.allclose(c, a @ b, atol=1e-4)


@requires_gpu
def test_floyd_warshall_runs_on_the_gpu_without_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        d = rgk.floyd_warshall(np.array([[0, 2.0], [1.0, 0]]))
    np.testing.assert_array_equal(d, [[0, 2], [1, 0]])
