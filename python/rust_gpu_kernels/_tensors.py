"""Device arrays without importing their libraries: ``__cuda_array_interface__`` (CuPy,
Numba, ...) and DLPack (``__dlpack__``/``__dlpack_device__``), read as raw descriptions, and
PyTorch tensors read directly (their dtype, strides and current stream)."""
import ctypes
from dataclasses import dataclass
from typing import Optional, Tuple

# DLPack's device types: CUDA memory and CUDA managed memory; kDLCPU is 1.
_DL_CUDA = (2, 13)
_DL_CPU = 1
# CU_STREAM_LEGACY: the stream handed to a DLPack producer (it orders its work before it).
_LEGACY_STREAM = 1


@dataclass
class DeviceArray:
    """An array in GPU memory: address, shape and strides in elements, its element type (a
    NumPy-style name: float32, float16, bfloat16, ...), the CUDA stream its producer orders its
    work on, whether the call must wait for its result before returning (a producer that names
    no stream to order on), and whatever keeps the memory alive during the call."""

    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: str
    stream: int
    blocking: bool
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


# __cuda_array_interface__'s typestr (without the byte order) as a dtype name.
_CAI_TYPES = {"f4": "float32", "f2": "float16", "f8": "float64"}


def _from_cai(x, what) -> DeviceArray:
    cai = x.__cuda_array_interface__
    typestr = str(cai.get("typestr"))  # byte order, kind, bytes: "<f4"
    dtype = _CAI_TYPES.get(typestr[1:], typestr)
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
    shape = tuple(int(s) for s in cai["shape"])
    st = cai.get("strides")
    if st is None:
        strides = _c_strides(shape)
    else:
        if itemsize <= 0 or any(s % itemsize for s in st):
            raise ValueError(f"{what} has strides that are not whole elements")
        strides = tuple(int(s) // itemsize for s in st)
    # Version 3: the stream the producer's work is ordered on; none named (or version 2) means
    # the data is ready for any stream, and the call then waits for its own result.
    stream = cai.get("stream")
    if stream is None:
        return DeviceArray(int(cai["data"][0]), shape, strides, dtype, _LEGACY_STREAM, True, x)
    return DeviceArray(int(cai["data"][0]), shape, strides, dtype, int(stream), False, x)


def _capsule_pointer(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, b"dltensor")


# DLPack's (type code, bits) of the element types the GEMM takes.
_DL_TYPES = {(2, 32): "float32", (2, 16): "float16", (4, 16): "bfloat16", (2, 64): "float64"}


def _from_dlpack(x, what) -> DeviceArray:
    capsule = x.__dlpack__(stream=_LEGACY_STREAM)
    t = _DLTensor.from_address(_capsule_pointer(capsule))
    dtype = _DL_TYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if dtype is None:
        raise ValueError(f"{what} has a DLPack element type the GEMM does not take")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else _c_strides(shape)
    ptr = t.data + t.byte_offset
    # The producer ordered its work before the legacy default stream; its later work on its own
    # stream is not ordered after ours, so the call waits for its result (blocking).
    # The capsule (unconsumed: its destructor frees the tensor) keeps the memory alive.
    return DeviceArray(ptr, shape, strides, dtype, _LEGACY_STREAM, True, (x, capsule))


def _from_torch(x, what) -> Optional[DeviceArray]:
    """A PyTorch tensor read directly (no protocol: CUDA array interface lacks bfloat16, and
    neither protocol names PyTorch's current stream): None for a CPU tensor."""
    if x.device.type != "cuda":
        return None
    if x.device.index not in (None, 0):
        raise ValueError(f"{what} is on {x.device}, but the library runs on cuda:0")
    import torch

    # torch.cuda.current_stream: where PyTorch queued the work that made x, and where it queues
    # what comes next; 0 (its default stream) is the legacy default stream.
    stream = torch.cuda.current_stream(x.device).cuda_stream or _LEGACY_STREAM
    dtype = str(x.dtype).replace("torch.", "")
    return DeviceArray(x.data_ptr(), tuple(x.shape), tuple(x.stride()), dtype, stream, False, x)


def device_array(x, what) -> Optional[DeviceArray]:
    """``x`` as a DeviceArray if it lives in GPU memory, else None (a host array)."""
    if type(x).__module__.split(".")[0] == "torch" and hasattr(x, "data_ptr"):
        return _from_torch(x, what)
    if hasattr(x, "__cuda_array_interface__"):
        try:
            return _from_cai(x, what)
        except (AttributeError, RuntimeError, TypeError):
            # A producer may refuse the interface (as PyTorch does for tensors that require
            # grad); DLPack may serve.
            pass
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        kind, _ = x.__dlpack_device__()
        if int(kind) in _DL_CUDA:
            return _from_dlpack(x, what)
        if int(kind) != _DL_CPU:
            raise ValueError(f"{what} lives on a device of DLPack type {int(kind)}, not CUDA or CPU")
    return None


def empty_like_device(a_owner, shape):
    """A new (uninitialised) float32 device array of ``shape`` from the library ``a_owner``
    came from (PyTorch, on its current stream, or CuPy), or None when it is neither."""
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
