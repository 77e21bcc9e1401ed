use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// A random graph: `(dense matrix with +inf for no edge and 0 diagonal, CSR of its edges)`.
fn random_graph(n: usize, p: f64, lo: f64, seed: u64) -> (Vec<f64>, Vec<i64>, Vec<i32>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut d = vec![f64::INFINITY; n * n];
    let (mut indptr, mut indices, mut weights) = (vec![0i64], vec![], vec![]);
    for i in 0..n {
        for j in 0..n {
            if i != j && rng.gen_bool(p) {
                let w = rng.gen_range(lo..10.0);
                d[i * n + j] = w;
                indices.push(j as i32);
                weights.push(w);
            }
        }
        d[i * n + i] = 0.0;
        indptr.push(indices.len() as i64);
    }
    (d, indptr, indices, weights)
}

/// Bellman–Ford from every source: an independent reference (edge relaxation, not FW's order).
fn bellman_ford(n: usize, indptr: &[i64], indices: &[i32], weights: &[f64]) -> Vec<f64> {
    let mut out = vec![f64::INFINITY; n * n];
    for s in 0..n {
        let d = &mut out[s * n..(s + 1) * n];
        d[s] = 0.0;
        for _ in 0..n {
            for u in 0..n {
                for e in indptr[u] as usize..indptr[u + 1] as usize {
                    let v = indices[e] as usize;
                    if d[u] + weights[e] < d[v] {
                        d[v] = d[u] + weights[e];
                    }
                }
            }
        }
    }
    out
}

#[test]
fn floyd_warshall_matches_bellman_ford_with_negative_weights_and_gives_valid_predecessors() {
    for (n, p, lo, seed) in [
        (1, 0.5, 0.0, 1),
        (17, 0.2, 0.0, 2),
        (40, 0.1, 0.5, 3),
        (33, 1.0, 0.0, 4),
    ] {
        let (mut d, indptr, indices, weights) = random_graph(n, p, lo, seed);
        // Negative weights without a negative cycle: a potential h gives w + h[u] - h[v] >= 0.
        let h: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
        let mut shifted = weights.clone();
        for u in 0..n {
            for e in indptr[u] as usize..indptr[u + 1] as usize {
                let v = indices[e] as usize;
                shifted[e] = weights[e] - h[u] + h[v];
                d[u * n + v] = shifted[e];
            }
        }
        let negative = floyd_warshall(&mut d, n);
        assert!(negative.is_empty());
        let want = bellman_ford(n, &indptr, &indices, &shifted);
        for (a, b) in d.iter().zip(&want) {
            assert!(a == b || (a - b).abs() < 1e-9, "{a} vs {b}");
        }
        let mut pred = vec![0; n * n];
        let g = Csr {
            indptr: &indptr,
            indices: &indices,
            weights: &shifted,
        };
        predecessors(&d, n, g, &mut pred);
        for i in 0..n {
            for j in 0..n {
                let p = pred[i * n + j];
                if i == j || d[i * n + j] == f64::INFINITY {
                    assert_eq!(p, NO_PREDECESSOR);
                    continue;
                }
                // Walk back to i, adding the edge weights.
                let (mut v, mut len, mut hops) = (j, 0.0, 0);
                while v != i {
                    let u = pred[i * n + v] as usize;
                    let e = (indptr[u] as usize..indptr[u + 1] as usize)
                        .filter(|&e| indices[e] as usize == v)
                        .map(|e| shifted[e])
                        .fold(f64::INFINITY, f64::min);
                    len += e;
                    v = u;
                    hops += 1;
                    assert!(hops <= n, "a cycle in the predecessors of {i}");
                }
                assert!(
                    (len - d[i * n + j]).abs() < 1e-9,
                    "path {i} -> {j}: {len} vs {}",
                    d[i * n + j]
                );
            }
        }
    }
}

#[test]
fn a_negative_cycle_shows_on_the_diagonal() {
    let inf = f32::INFINITY;
    // 0 -> 1 (1), 1 -> 2 (-3), 2 -> 0 (1): the cycle weighs -1; 3 is off it.
    let mut d = vec![
        0.0, 1.0, inf, inf, inf, 0.0, -3.0, inf, 1.0, inf, 0.0, inf, inf, inf, inf, 0.0,
    ];
    assert_eq!(floyd_warshall(&mut d, 4), vec![0, 1, 2]);
}
