"""The suite runs everywhere: on the CPU path where there is no GPU (RGK_TEST_DEVICE unset:
floyd_warshall warns and runs the CPU reference) and on the GPU with RGK_TEST_DEVICE=gpu
(scripts/gpu-python.sh), where every solver call must run on the GPU."""
import os
import warnings

import pytest

import rust_gpu_kernels as rgk

ON_GPU = os.environ.get("RGK_TEST_DEVICE") == "gpu"


@pytest.fixture(autouse=True)
def _cpu_warning_expected():
    # Without a GPU, floyd_warshall's RuntimeWarning is expected on every call: silence it
    # here (test_no_gpu checks it). On the GPU machine it must never appear.
    with warnings.catch_warnings():
        if ON_GPU:
            warnings.simplefilter("error", RuntimeWarning)
        else:
            warnings.simplefilter("ignore", RuntimeWarning)
        yield


def device():
    """The device argument the tests pass: 'gpu' on the GPU machine (no silent CPU fallback)."""
    return "gpu" if ON_GPU else "auto"


requires_gpu = pytest.mark.skipif(not rgk.gpu_available(), reason="SKIPPED: no GPU")
