"""Device arrays without importing their libraries: ``__cuda_array_interface__`` (PyTorch,
CuPy, Numba, ...) and DLPack (``__dlpack__``/``__dlpack_device__``), read as raw descriptions."""
import ctypes
from dataclasses import dataclass
from typing import Optional, Tuple

# DLPack's device types: CUDA memory and CUDA managed memory; kDLCPU is 1.
_DL_CUDA = (2, 13)
_DL_CPU = 1
# CU_STREAM_LEGACY: the stream handed to a DLPack producer, then synchronized before the call.
_LEGACY_STREAM = 1


@dataclass
class DeviceArray:
    """A float32 array in GPU memory: address, shape and strides in elements, the stream its
    producer works on, and whatever keeps the memory alive during the call."""

    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    stream: int
    owner: object


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


def _c_strides(shape):
    out, step = [], 1
    for s in reversed(shape):
        out.append(step)
        step *= s
    return tuple(reversed(out))


def _from_cai(x, what) -> DeviceArray:
    cai = x.__cuda_array_interface__
    if cai.get("typestr") not in ("<f4", "=f4", "f4"):
        raise ValueError(f"{what} must be float32, not {cai.get('typestr')}")
    shape = tuple(int(s) for s in cai["shape"])
    st = cai.get("strides")
    if st is None:
        strides = _c_strides(shape)
    else:
        if any(s % 4 for s in st):
            raise ValueError(f"{what} has strides that are not whole float32 elements")
        strides = tuple(int(s) // 4 for s in st)
    stream = cai.get("stream")
    return DeviceArray(int(cai["data"][0]), shape, strides, 0 if stream is None else int(stream), x)


def _capsule_pointer(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, b"dltensor")


def _from_dlpack(x, what) -> DeviceArray:
    capsule = x.__dlpack__(stream=_LEGACY_STREAM)
    t = _DLTensor.from_address(_capsule_pointer(capsule))
    if (t.dtype.code, t.dtype.bits, t.dtype.lanes) != (2, 32, 1):
        raise ValueError(f"{what} must be float32")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else _c_strides(shape)
    ptr = t.data + t.byte_offset
    # The capsule (unconsumed: its destructor frees the tensor) keeps the memory alive.
    return DeviceArray(ptr, shape, strides, _LEGACY_STREAM, (x, capsule))


def device_array(x, what) -> Optional[DeviceArray]:
    """``x`` as a DeviceArray if it lives in GPU memory, else None (a host array)."""
    if hasattr(x, "__cuda_array_interface__"):
        try:
            return _from_cai(x, what)
        except (AttributeError, RuntimeError, TypeError):
            # PyTorch refuses the interface on tensors that require grad; DLPack may serve.
            pass
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        kind, _ = x.__dlpack_device__()
        if int(kind) in _DL_CUDA:
            return _from_dlpack(x, what)
        if int(kind) != _DL_CPU:
            raise ValueError(f"{what} lives on a device of DLPack type {int(kind)}, not CUDA or CPU")
    return None


def empty_like_device(a_owner, shape):
    """A new float32 device array of ``shape`` from the library ``a_owner`` came from (PyTorch
    or CuPy), or None when it is neither."""
    x = a_owner[0] if isinstance(a_owner, tuple) else a_owner
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        import torch

        return torch.empty(shape, dtype=torch.float32, device=x.device)
    if mod == "cupy":
        import cupy

        with x.device:
            return cupy.empty(shape, dtype=cupy.float32)
    return None
