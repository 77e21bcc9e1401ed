"""apsp and apsp_file: the course's int32 problem, against scipy on the same graph."""
import struct

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import rust_gpu_kernels as rgk
from conftest import device


def random_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = (src + rng.integers(1, n, m)) % n  # no self-loops
    w = rng.integers(0, 1001, m)
    return np.stack([src, dst, w], axis=1).astype(np.int32)


def reference(edges, n):
    """scipy on the same graph; repeated pairs: the smallest weight (scipy's dense keeps the
    minimum of duplicates); zero weights as explicit sparse entries."""
    best = {}
    for s, d, w in edges.tolist():
        best[(s, d)] = min(w, best.get((s, d), w))
    if best:
        (r, c), w = zip(*best.keys()), list(best.values())
    else:
        r, c, w = [], [], []
    g = coo_matrix((np.array(w, float), (np.array(r, int), np.array(c, int))), shape=(n, n)).tocsr()
    d = scipy_fw(g)
    return np.where(np.isinf(d), rgk.APSP_INF, d).astype(np.int32)


@pytest.mark.parametrize("n, m", [(1, 0), (5, 12), (100, 900), (130, 4000)])
def test_apsp_matches_scipy(n, m):
    e = random_edges(n, m, seed=n) if m else np.zeros((0, 3), np.int32)
    got = rgk.apsp(e, n, device=device())
    assert got.dtype == np.int32 and got.shape == (n, n)
    np.testing.assert_array_equal(got, reference(e, n))


def test_apsp_file_round_trip(tmp_path):
    n, e = 60, random_edges(60, 500, seed=3)
    src = tmp_path / "g.in"
    src.write_bytes(struct.pack("<ii", n, len(e)) + e.astype("<i4").tobytes())
    rgk.apsp_file(src, tmp_path / "g.out", device=device())
    out = np.frombuffer((tmp_path / "g.out").read_bytes(), dtype="<i4").reshape(n, n)
    np.testing.assert_array_equal(out, reference(e, n))


@pytest.mark.parametrize(
    "edges, n, match",
    [
        (np.array([[0, 1]]), 2, "E, 3"),
        (np.array([[0.0, 1.0, 2.0]]), 2, "integers"),
        (np.array([[0, 5, 1]]), 2, "edge 0"),
        (np.array([[0, 1, -1]]), 2, "edge 0"),
        (np.array([[0, 1, 1]]), 0, "vertex"),
    ],
)
def test_apsp_bad_input(edges, n, match):
    with pytest.raises(ValueError, match=match):
        rgk.apsp(edges, n, device=device())


def test_apsp_file_missing_input(tmp_path):
    # The library's sentence names the file; it counts a missing input as bad input.
    with pytest.raises(ValueError, match="nope.in"):
        rgk.apsp_file(tmp_path / "nope.in", tmp_path / "x.out", device=device())
