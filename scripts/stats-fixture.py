#!/usr/bin/env python3
"""Writes core/tests/data/apsp_stats_networkx.json: small fixed directed graphs with the
statistics networkx computes for them, the independent reference of `host apsp --stats`
(core/tests/apsp_stats_networkx.rs reads it).

usage: python3 -m venv /tmp/nx && /tmp/nx/bin/pip install networkx
       /tmp/nx/bin/python scripts/stats-fixture.py > core/tests/data/apsp_stats_networkx.json

Edge weights are distances (`weight="weight"`, `distance="weight"`). On a strongly connected
graph every value is networkx's own: eccentricity, diameter, radius,
average_shortest_path_length, closeness_centrality (wf_improved=True, incoming distances) and
harmonic_centrality. networkx raises for the first four on other graphs; there the fixture holds
the project's documented extension (docs/apsp.md, "Statistics"), computed here from networkx's
single-source path lengths: eccentricity = largest finite distance, the average over ordered
pairs with a path. closeness and harmonic are networkx's on every graph.
"""
import json
import random
import sys

import networkx as nx


def graph(n, edges):
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(edges)
    return g


def fixed_graphs():
    yield "one vertex", 1, []
    yield "two vertices, one edge", 2, [(0, 1, 7)]
    yield "cycle of 5 with a chord", 5, [(0, 1, 3), (1, 2, 1), (2, 3, 4), (3, 4, 1), (4, 0, 5), (1, 4, 2)]
    # A zero-weight edge: reached at distance 0, no harmonic term, closeness sums may be 0.
    yield "zero-weight edges", 4, [(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 3, 9), (3, 0, 1)]
    yield "path and an isolated vertex", 4, [(0, 1, 2), (1, 2, 3)]
    yield "two strongly connected parts", 6, [(0, 1, 1), (1, 2, 2), (2, 0, 3), (3, 4, 4), (4, 5, 5), (5, 3, 6), (2, 3, 10)]
    rng = random.Random(23)
    for n, extra, name in [(12, 20, "random strongly connected, V=12"), (40, 120, "random strongly connected, V=40"),
                           (30, 45, "random, V=30")]:
        pairs = set()
        if "strongly" in name:  # a Hamiltonian cycle in random order makes it strongly connected
            order = list(range(n))
            rng.shuffle(order)
            pairs |= {(order[i], order[(i + 1) % n]) for i in range(n)}
        while len(pairs) < (n if "strongly" in name else 0) + extra:
            s, d = rng.randrange(n), rng.randrange(n)
            if s != d:
                pairs.add((s, d))
        yield name, n, [(s, d, rng.randint(0, 1000)) for s, d in sorted(pairs)]


def stats(name, n, edges):
    g = graph(n, edges)
    lengths = {u: nx.single_source_dijkstra_path_length(g, u, weight="weight") for u in g}
    strong = nx.is_strongly_connected(g)
    if strong:
        ecc = nx.eccentricity(g, weight="weight")
        diameter = nx.diameter(g, weight="weight")
        radius = nx.radius(g, weight="weight")
        average = nx.average_shortest_path_length(g, weight="weight")
    else:
        ecc = {u: max(lengths[u].values()) for u in g}
        diameter, radius = max(ecc.values()), min(ecc.values())
        pairs = sum(len(lengths[u]) - 1 for u in g)
        average = sum(sum(lengths[u].values()) for u in g) / pairs if pairs else 0.0
    reachable = sum(len(lengths[u]) - 1 for u in g)
    closeness = nx.closeness_centrality(g, distance="weight", wf_improved=True)
    harmonic = nx.harmonic_centrality(g, distance="weight")
    return {
        "name": name,
        "vertices": n,
        "edges": [list(e) for e in edges],
        "strongly_connected": strong,
        "eccentricity": [ecc[u] for u in range(n)],
        "closeness": [closeness[u] for u in range(n)],
        "harmonic": [float(harmonic[u]) for u in range(n)],
        "diameter": diameter,
        "radius": radius,
        "average_shortest_path_length": float(average),
        "unreachable_pairs": n * (n - 1) - reachable,
    }


def main():
    out = {
        "generator": "scripts/stats-fixture.py",
        "networkx": nx.__version__,
        "graphs": [stats(*g) for g in fixed_graphs()],
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
