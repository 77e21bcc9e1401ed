from os import PathLike
from typing import Any, Literal, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

_Device = Literal["auto", "gpu", "cpu"]
_Path = Union[str, "PathLike[str]"]
# fp32: float32 on the CUDA cores; tf32/3xtf32: float32 inputs on the tensor cores; bf16/fp16:
# bfloat16/float16 inputs. Every precision writes float32.
_Precision = Literal["fp32", "tf32", "3xtf32", "bf16", "fp16"]

__version__: str
APSP_INF: int

class NoGpuError(RuntimeError):
    """No usable GPU: no NVIDIA driver, no CUDA device, or one the kernels cannot run on."""

class GpuError(RuntimeError):
    """The GPU or its driver failed while working."""

class NegativeCycleError(Exception):
    """scipy.sparse.csgraph.NegativeCycleError when scipy is installed."""

@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    overwrite: bool = ...,
    *,
    dtype: npt.DTypeLike = ...,
    device: _Device = ...,
) -> npt.NDArray[np.floating[Any]]: ...
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    *,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    dtype: npt.DTypeLike = ...,
    device: _Device = ...,
) -> Tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int32]]: ...
def apsp(edges: npt.ArrayLike, n: int, *, device: _Device = ...) -> npt.NDArray[np.int32]: ...
def apsp_file(input: _Path, output: _Path, *, device: _Device = ...) -> None: ...
def matmul(
    a: Any,
    b: Any,
    *,
    alpha: float = ...,
    beta: float = ...,
    out: Optional[Any] = ...,
    trans_a: bool = ...,
    trans_b: bool = ...,
    precision: _Precision = ...,
) -> Any: ...
def sgemm(
    a: Any,
    b: Any,
    c: Optional[Any] = ...,
    *,
    alpha: float = ...,
    beta: float = ...,
    trans_a: bool = ...,
    trans_b: bool = ...,
    precision: _Precision = ...,
) -> Any: ...
def device_name() -> str: ...
def gpu_available() -> bool: ...
