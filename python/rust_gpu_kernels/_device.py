"""Whether there is a GPU, and which."""
from . import _native


def device_name() -> str:
    """The name of GPU 0; raises NoGpuError saying why there is none."""
    return _native.device_name()


def gpu_available() -> bool:
    """Whether a usable GPU is present (a driver, a device, compute capability 8.0 or newer)."""
    try:
        _native.device_name()
    except _native.NoGpuError:
        return False
    return True
