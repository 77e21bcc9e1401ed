"""floyd_warshall against scipy.sparse.csgraph.floyd_warshall (the independent reference)."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycleError
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import rust_gpu_kernels as rgk
from conftest import device, requires_gpu


def fw(*args, **kw):
    return rgk.floyd_warshall(*args, device=device(), **kw)


def random_dense(n, density, seed, negative=False, integer=False):
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 20, (n, n)).astype(float) if integer else rng.uniform(0.1, 10.0, (n, n))
    w[rng.random((n, n)) > density] = 0
    if negative:
        # A DAG part (i < j) may be negative; the back edges are heavy enough for no negative cycle.
        upper = np.triu(np.ones((n, n), bool), 1)
        w = np.where(upper & (w != 0), w - 3.0, w)
        w = np.where(~upper & (w != 0), w + 20.0 * n, w)
        w[w == 0] = 0  # an edge of weight exactly 0 after the shift would vanish in dense input
    return w


def path_lengths_match(graph_dense_w, dist, pred):
    """Every predecessor path's length equals its distance (graph_dense_w: +inf = no edge)."""
    n = dist.shape[0]
    for i in range(n):
        for j in range(n):
            if i == j or np.isinf(dist[i, j]):
                assert pred[i, j] == -9999
                continue
            length, v, hops = 0.0, j, 0
            while v != i:
                u = pred[i, v]
                assert 0 <= u < n
                length += graph_dense_w[u, v]
                v, hops = u, hops + 1
                assert hops <= n
            assert np.isclose(length, dist[i, j], rtol=1e-9, atol=1e-9), (i, j)


def edge_weights(csgraph, directed, unweighted):
    """The graph as +inf/weight matrix by scipy's rules, for walking predecessor paths."""
    if sp.issparse(csgraph):
        from scipy.sparse.csgraph import csgraph_to_dense
        g = csgraph_to_dense(sp.csr_matrix(csgraph).astype(float), null_value=np.inf)
    else:
        g = np.array(csgraph, dtype=float)
        g[(g == 0) | ~np.isfinite(g)] = np.inf
    if unweighted:
        g[np.isfinite(g)] = 1
    if not directed:
        g = np.minimum(g, g.T)
    return g


@pytest.mark.parametrize("n", [1, 2, 7, 40, 65, 130])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("unweighted", [False, True])
def test_dense_matches_scipy(n, directed, unweighted):
    g = random_dense(n, 0.15, seed=n)
    want = scipy_fw(g, directed=directed, unweighted=unweighted)
    got = fw(g, directed=directed, unweighted=unweighted)
    assert got.dtype == np.float64 and got.shape == (n, n)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr"])
@pytest.mark.parametrize("directed", [True, False])
def test_sparse_matches_scipy(fmt, directed):
    """scipy takes csr, csc and lil; every other format is converted (as scipy's csr)."""
    rng = np.random.default_rng(7)
    n = 90
    g = sp.random(n, n, density=0.05, format="coo", random_state=3) * 10
    # Explicit zeros are edges of weight 0 in sparse input; add a few.
    g = sp.coo_matrix((np.r_[g.data, 0.0, 0.0], (np.r_[g.row, 1, 5], np.r_[g.col, 2, 6])), shape=(n, n))
    want = scipy_fw(g.tocsr(), directed=directed)
    got = fw(g.asformat(fmt), directed=directed)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert rng is not None


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("unweighted", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_predecessors_give_shortest_paths(directed, unweighted, sparse):
    g = random_dense(70, 0.08, seed=11)
    if sparse:
        g = sp.csr_matrix(g)
    want = scipy_fw(g, directed=directed, unweighted=unweighted)
    got, pred = fw(g, directed=directed, unweighted=unweighted, return_predecessors=True)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert pred.dtype == np.int32 and pred.shape == got.shape
    path_lengths_match(edge_weights(g, directed, unweighted), got, pred)


def test_negative_weights_without_a_cycle():
    g = random_dense(80, 0.2, seed=5, negative=True, integer=True)
    want = scipy_fw(g)
    got, pred = fw(g, return_predecessors=True)
    np.testing.assert_array_equal(got, want)
    path_lengths_match(edge_weights(g, True, False), got, pred)


def test_scipy_documented_example():
    # The example of scipy's floyd_warshall docstring.
    graph = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    dist, pred = fw(graph, directed=False, return_predecessors=True)
    np.testing.assert_array_equal(
        dist, [[0.0, 1.0, 2.0, 2.0], [1.0, 0.0, 3.0, 1.0], [2.0, 3.0, 0.0, 3.0], [2.0, 1.0, 3.0, 0.0]]
    )
    want_d, want_p = scipy_fw(graph, directed=False, return_predecessors=True)
    np.testing.assert_array_equal(dist, want_d)
    # Ties may be broken differently; here the shortest paths are unique, so pred is too.
    np.testing.assert_array_equal(pred, want_p)


def test_float32_dtype():
    g = random_dense(50, 0.2, seed=9)
    got = fw(g.astype(np.float32), dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, scipy_fw(g.astype(np.float32)), rtol=1e-5)


@requires_gpu
def test_large_signed_float32_is_reweighted():
    # From V = 6144 a signed float32 matrix runs Johnson's reweighting, then the nonneg kernels
    # (docs/python.md, Session 21); its distances agree with the float64 solve within f32
    # rounding. Weights in [1, 100) shifted by potentials p(u) - p(v), p in [0, 50): about 8 %
    # negative, no negative cycle.
    n, rng = 6144, np.random.default_rng(21)
    p = rng.uniform(0.0, 50.0, n)
    g = np.full((n, n), np.inf)
    u = np.repeat(np.arange(n), 40)
    v = rng.integers(0, n, n * 40)
    g[u, v] = rng.uniform(1.0, 100.0, n * 40) + p[u] - p[v]
    np.fill_diagonal(g, 0.0)
    assert (g < 0).sum() > n
    d32 = np.ascontiguousarray(g, dtype=np.float32)
    place, _, negative, _, nonneg = rgk._native.solve_float(d32.ctypes.data, n, "float32", "gpu")
    assert place == "gpu" and not negative and nonneg
    want = fw(g)
    np.testing.assert_allclose(d32, want, rtol=1e-5, atol=1e-4)


def test_overwrite_writes_into_a_float64_c_array():
    g = random_dense(30, 0.2, seed=2)
    want = scipy_fw(g)
    out = fw(g, overwrite=True)
    assert out is g
    np.testing.assert_allclose(g, want, rtol=1e-12)
    h = random_dense(30, 0.2, seed=2).astype(np.float32)
    keep = h.copy()
    fw(h, overwrite=True)  # not float64: copied, the input is left as it was
    np.testing.assert_array_equal(h, keep)


def test_repeated_sparse_entries_take_the_smallest():
    # scipy's rule for repeated entries (csgraph_to_dense), also for COO, which tocsr() would sum.
    g = sp.coo_matrix(([5.0, 2.0, 7.0], ([0, 0, 1], [1, 1, 2])), shape=(3, 3))
    csr = sp.csr_matrix((g.data, g.col, [0, 2, 3, 3]), shape=(3, 3))  # duplicates kept
    np.testing.assert_array_equal(fw(g), scipy_fw(csr))
    assert fw(g)[0, 1] == 2.0


def test_masked_and_list_inputs():
    g = random_dense(20, 0.3, seed=4)
    m = np.ma.masked_array(g, mask=g > 8)
    np.testing.assert_allclose(fw(m), scipy_fw(m), rtol=1e-12)
    np.testing.assert_allclose(fw(g.tolist()), scipy_fw(g.tolist()), rtol=1e-12)


def test_negative_cycle_raises_scipys_error():
    g = np.array([[0, 1, 0], [0, 0, -3], [1, 0, 0]], dtype=float)
    with pytest.raises(ScipyNegativeCycleError) as ours:
        fw(g)
    with pytest.raises(ScipyNegativeCycleError) as theirs:
        scipy_fw(g)
    assert str(ours.value) == str(theirs.value)
    assert rgk.NegativeCycleError is ScipyNegativeCycleError


@pytest.mark.parametrize(
    "bad, exc",
    [
        (np.ones((3, 4)), ValueError),
        (np.ones((2, 2, 2)), ValueError),
        (np.ones(5), ValueError),
        (np.array([["a", "b"], ["c", "d"]]), ValueError),
        (np.ones((2, 2), dtype=complex), ValueError),
        (sp.csr_matrix(np.ones((2, 3))), ValueError),
    ],
)
def test_bad_input_raises(bad, exc):
    with pytest.raises(exc):
        fw(bad)


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="dtype"):
        rgk.floyd_warshall(np.ones((2, 2)), dtype=np.int32)
    with pytest.raises(ValueError, match="device"):
        rgk.floyd_warshall(np.ones((2, 2)), device="tpu")
