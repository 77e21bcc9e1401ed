"""NegativeCycleError: scipy's own class when scipy is installed (so ``except`` clauses written
for scipy catch ours), else a ValueError subclass of the same name."""
try:
    from scipy.sparse.csgraph import NegativeCycleError
except ImportError:  # pragma: no cover - exercised only without scipy

    class NegativeCycleError(ValueError):
        """The graph has a negative cycle: shortest paths are undefined."""
