"""All-pairs shortest paths: scipy's floyd_warshall, and the course's int32 problem."""
import os
import warnings

import numpy as np

from . import _native
from ._errors import NegativeCycleError

#: "No path" in the int32 matrices of :func:`apsp` and in the files of :func:`apsp_file`.
APSP_INF = _native.APSP_INF

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _warn_cpu(what, why):
    if why:
        warnings.warn(
            f"{what} ran on the CPU: {why}", RuntimeWarning, stacklevel=3
        )


def _issparse(x):
    try:
        from scipy.sparse import issparse
    except ImportError:
        return False
    return issparse(x)


def _square(shape):
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(
            f"csgraph must be a square 2-D matrix (N x N), not one of shape {tuple(shape)}"
        )
    return shape[0]


def _dense(csgraph, dtype, overwrite):
    """The graph as a C-contiguous N x N array of ``dtype`` with +inf for "no edge", by scipy's
    rules: a sparse matrix's stored entries are edges (explicit zeros too; repeated entries: the
    smallest), the rest none; in a dense or masked array, 0, NaN, +-inf and masked entries are
    not edges."""
    if _issparse(csgraph):
        from scipy.sparse.csgraph import csgraph_to_dense

        n = _square(csgraph.shape)
        if csgraph.format == "coo":
            # tocsr() would add up repeated entries; scipy's rule is their minimum, which
            # csgraph_to_dense applies to a CSR that keeps them.
            order = np.lexsort((csgraph.col, csgraph.row))
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.bincount(csgraph.row, minlength=n), out=indptr[1:])
            g = type(csgraph.tocsr())(
                (csgraph.data[order], csgraph.col[order], indptr), shape=csgraph.shape
            )
        else:
            g = csgraph.tocsr()
        if not (np.issubdtype(g.dtype, np.number) or g.dtype == np.bool_) or np.issubdtype(
            g.dtype, np.complexfloating
        ):
            raise ValueError(f"csgraph must hold real numbers, not {g.dtype}")
        g = g.astype(np.float64)
        return np.ascontiguousarray(csgraph_to_dense(g, null_value=np.inf), dtype=dtype), n
    masked = np.ma.isMaskedArray(csgraph)
    arr = csgraph.data if masked else np.asarray(csgraph)
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_) or np.issubdtype(
        arr.dtype, np.complexfloating
    ):
        raise ValueError(f"csgraph must hold real numbers, not {arr.dtype}")
    n = _square(arr.shape)
    in_place = (
        overwrite
        and not masked
        and isinstance(csgraph, np.ndarray)
        and arr.dtype == dtype
        and arr.flags.c_contiguous
        and arr.flags.writeable
    )
    d = arr if in_place else np.array(arr, dtype=dtype, order="C", copy=True)
    none = (d == 0) | ~np.isfinite(d)
    if masked:
        none |= np.ma.getmaskarray(csgraph)
    d[none] = np.inf
    return d, n


def _predecessors(graph, dist, n, device):
    """scipy's predecessor matrix for the solved ``dist`` of ``graph`` (the N x N initial
    matrix): ``_native.predecessors`` searches the shortest-path trees of every source at once
    on the GPU (``host::apsp::float_pred``) where ``device`` allows, else on the CPU
    (``rgk_core::minplus::predecessors``)."""
    edge = np.isfinite(graph)
    np.fill_diagonal(edge, False)
    rows, cols = np.nonzero(edge)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    indices = np.ascontiguousarray(cols, dtype=np.int32)
    weights = np.ascontiguousarray(graph[rows, cols], dtype=dist.dtype)
    pred = np.empty((n, n), dtype=np.int32)
    _native.predecessors(
        dist.ctypes.data, n, dist.dtype.name, indptr.ctypes.data, indices.ctypes.data,
        weights.ctypes.data, len(indices), pred.ctypes.data, device,
    )
    return pred


def floyd_warshall(
    csgraph,
    directed=True,
    return_predecessors=False,
    unweighted=False,
    overwrite=False,
    *,
    dtype=np.float64,
    device="auto",
):
    """Shortest path lengths between all pairs of vertices, as
    ``scipy.sparse.csgraph.floyd_warshall`` computes them, on the GPU.

    Parameters
    ----------
    csgraph : array_like or scipy.sparse matrix, (N, N)
        The graph. Sparse: every stored entry is an edge (explicit zeros too). Dense or masked:
        entries that are 0, NaN, +-inf or masked are not edges. Negative weights are allowed.
    directed : bool
        If False, an edge may be walked both ways (the smaller weight of ``[i, j]`` and
        ``[j, i]`` counts).
    return_predecessors : bool
        Also return the (N, N) int32 predecessor matrix: ``pred[i, j]`` is the vertex before
        ``j`` on a shortest path from ``i``; -9999 on the diagonal and where there is no path.
    unweighted : bool
        Count edges instead of adding weights.
    overwrite : bool
        Write the result into ``csgraph`` when it is a dense, C-ordered, writable array of the
        result's dtype.
    dtype : numpy.float64 or numpy.float32, keyword-only
        The precision of the computation and of the result. float64 (scipy's) by default;
        float32 halves the memory and runs the faster kernels, with float32 rounding.
    device : 'auto', 'gpu' or 'cpu', keyword-only
        'auto' runs on the GPU and, without one, on the CPU with a RuntimeWarning; 'gpu'
        raises NoGpuError instead; 'cpu' runs the CPU reference.

    Returns
    -------
    dist_matrix : ndarray (N, N) of ``dtype``
        ``dist_matrix[i, j]``: the length of a shortest path from i to j; ``inf`` if none.
    predecessors : ndarray (N, N) of int32
        Only with ``return_predecessors``.

    Raises
    ------
    NegativeCycleError
        The graph has a negative cycle (scipy's class when scipy is installed).
    ValueError
        Not a square matrix, not real numbers, or a bad ``dtype``/``device``.
    NoGpuError
        ``device='gpu'`` without a usable GPU.
    """
    dt = np.dtype(dtype)
    if dt not in _FLOATS:
        raise ValueError(f"dtype must be float32 or float64, not {dt}")
    dist, n = _dense(csgraph, dt, overwrite)
    if unweighted:
        dist[np.isfinite(dist)] = 1
    np.fill_diagonal(dist, 0)
    if not directed:
        np.minimum(dist, dist.T.copy(), out=dist)
    graph = dist.copy() if return_predecessors else None
    place, why, negative, _, _ = _native.solve_float(dist.ctypes.data, n, dt.name, device)
    _warn_cpu("floyd_warshall", why)
    if negative:
        raise NegativeCycleError("Negative cycle in nodes %s" % np.asarray(negative))
    if return_predecessors:
        # Where the distances ran: the GPU again, or the CPU without one (warned above).
        return dist, _predecessors(graph, dist, n, place)
    return dist


def apsp(edges, n, *, device="auto"):
    """All-pairs shortest paths of the course's problem: ``n`` vertices and directed ``edges``
    ``(src, dst, w)`` (an (E, 3) integer array; 0 <= w <= 1000, no self-loops; the smallest
    weight of repeated pairs counts). Returns the (n, n) int32 distance matrix, with
    :data:`APSP_INF` where there is no path. ``device`` as for :func:`floyd_warshall`."""
    e = np.asarray(edges)
    if e.size == 0:
        e = e.reshape(0, 3)
    if e.ndim != 2 or e.shape[1] != 3:
        raise ValueError(f"edges must be an (E, 3) array of (src, dst, w), not shape {e.shape}")
    if not np.issubdtype(e.dtype, np.integer):
        raise ValueError(f"edges must hold integers, not {e.dtype}")
    if e.size and (e.min() < np.iinfo(np.int32).min or e.max() > np.iinfo(np.int32).max):
        raise ValueError("edges hold values outside int32")
    e = np.ascontiguousarray(e, dtype=np.int32)
    n = int(n)
    if n < 1:
        raise ValueError(f"a graph needs at least one vertex (n = {n})")
    out = np.empty((n, n), dtype=np.int32)
    _, why = _native.apsp_edges(e.ctypes.data, len(e), n, out.ctypes.data, device)
    _warn_cpu("apsp", why)
    return out


def apsp_file(input, output, *, device="auto"):
    """Solves the course-format graph file ``input`` into the distance file ``output`` (what
    ``host apsp INPUT -o OUTPUT`` does). ``device`` as for :func:`floyd_warshall`."""
    _, why = _native.apsp_file(os.fspath(input), os.fspath(output), device)
    _warn_cpu("apsp_file", why)
