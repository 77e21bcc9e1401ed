//! Seeded random graphs that obey every rule of the file format.

use std::collections::HashSet;

use anyhow::{Context, Result, ensure};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use super::format::{Edge, Graph, MAX_WEIGHT};
use crate::memory;

/// Host bytes per entry of a `HashSet<u64>` at its worst load factor (8 of data, 1 of control,
/// capacity up to twice the entries).
const PAIR_SET_BYTES: u128 = 18;

/// A graph with `vertices` vertices and `edges` distinct `(src, dst)` pairs (no self-loops),
/// weights uniform in `0..=MAX_WEIGHT`, in random order. The same seed gives the same graph.
pub fn generate(vertices: usize, edges: usize, seed: u64) -> Result<Graph> {
    ensure!(
        vertices >= 1,
        "a graph needs at least 1 vertex, got V = {vertices}"
    );
    ensure!(
        i32::try_from(vertices).is_ok(),
        "V = {vertices} does not fit in the int32 file header"
    );
    let max_edges = vertices as u64 * (vertices as u64 - 1);
    ensure!(
        edges as u64 <= max_edges,
        "E = {edges} exceeds V*(V-1) = {max_edges}, the most distinct edges without self-loops \
         for V = {vertices}"
    );
    ensure!(
        i32::try_from(edges).is_ok(),
        "E = {edges} does not fit in the int32 file header"
    );

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = vertices as u64;
    // A uniformly random ordered pair with src != dst, encoded as src * V + dst.
    let random_pair = |rng: &mut ChaCha8Rng| {
        let src = rng.gen_range(0..n);
        let mut dst = rng.gen_range(0..n - 1);
        if dst >= src {
            dst += 1;
        }
        src * n + dst
    };
    let edge = |pair: u64, rng: &mut ChaCha8Rng| Edge {
        src: (pair / n) as i32,
        dst: (pair % n) as i32,
        w: rng.gen_range(0..=MAX_WEIGHT),
    };

    let sparse = edges as u64 * 2 <= max_edges;
    // The edge list and the set of pairs drawn (or left out) live together: checked as one.
    let pairs = if sparse {
        edges
    } else {
        (max_edges - edges as u64) as usize
    };
    memory::ensure_available(
        &format!("generating {edges} edges on {vertices} vertices"),
        edges as u128 * size_of::<Edge>() as u128 + pairs as u128 * PAIR_SET_BYTES,
    )?;
    let mut list = Vec::new();
    list.try_reserve_exact(edges)
        .with_context(|| format!("cannot allocate the list of {edges} edges"))?;
    let mut set = HashSet::new();
    set.try_reserve(pairs)
        .with_context(|| format!("cannot allocate a set of {pairs} vertex pairs"))?;
    if sparse {
        // Sparse: rejection sampling needs at most ~2 draws per edge.
        let mut seen = set;
        while list.len() < edges {
            let pair = random_pair(&mut rng);
            if seen.insert(pair) {
                list.push(edge(pair, &mut rng));
            }
        }
    } else {
        // Dense: sample the pairs to leave out, keep the rest, then shuffle the order.
        let (skip_count, mut skip) = (pairs, set);
        while skip.len() < skip_count {
            skip.insert(random_pair(&mut rng));
        }
        for src in 0..n {
            for dst in (0..n).filter(|&dst| dst != src) {
                let pair = src * n + dst;
                if !skip.contains(&pair) {
                    list.push(edge(pair, &mut rng));
                }
            }
        }
        list.shuffle(&mut rng);
    }
    Ok(Graph {
        vertices,
        edges: list,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_rules(g: &Graph, edges: usize) {
        assert_eq!(g.edges.len(), edges);
        let mut pairs = HashSet::new();
        for e in &g.edges {
            assert!(
                (0..g.vertices as i32).contains(&e.src) && (0..g.vertices as i32).contains(&e.dst)
            );
            assert_ne!(e.src, e.dst);
            assert!((0..=MAX_WEIGHT).contains(&e.w));
            assert!(pairs.insert((e.src, e.dst)), "repeated pair {e:?}");
        }
    }

    #[test]
    fn sparse_dense_and_full() {
        for (v, e) in [
            (1, 0),
            (2, 1),
            (2, 2),
            (10, 45),
            (10, 46),
            (10, 89),
            (10, 90),
            (50, 1000),
        ] {
            let g = generate(v, e, 11).unwrap();
            assert_eq!(g.vertices, v);
            check_rules(&g, e);
            assert_eq!(g, generate(v, e, 11).unwrap());
        }
    }

    #[test]
    fn rejects_impossible_requests() {
        assert!(generate(0, 0, 1).is_err());
        assert!(generate(1, 1, 1).is_err());
        assert!(
            generate(10, 91, 1)
                .unwrap_err()
                .to_string()
                .contains("V*(V-1)")
        );
    }
}
