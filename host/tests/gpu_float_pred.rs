//! GPU tests of the predecessor search (`host::apsp::float_pred`) against an independent check:
//! every predecessor chain walks back to its source over edges of the graph and adds up to the
//! distance the CPU reference (`rgk_core::minplus::floyd_warshall`) computed, and exactly the
//! cells the CPU form (`rgk_core::minplus::predecessors`) leaves without a predecessor are left
//! without one. Without a GPU they print "SKIPPED …" and pass.
use host::{apsp::float::GpuWeight, apsp::float_pred::predecessors, gpu::gpu_for_test};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::minplus::{self, Csr, NO_PREDECESSOR, Weight, floyd_warshall};

/// A graph as CSR plus its dense matrix (`+inf` = no edge, 0 diagonal).
struct TestGraph<W> {
    indptr: Vec<i64>,
    indices: Vec<i32>,
    weights: Vec<W>,
    dense: Vec<W>,
}

/// Which weights a test graph gets; neither makes a negative cycle.
#[derive(Clone, Copy, Debug)]
enum Weights {
    /// Forward edges (u < v) `-2..=9`, back edges `2n + 0..=9`: negative weights, no cycle
    /// below 0 (a forward path weighs at least -2n).
    Negative,
    /// Every edge `0..=9`, a third of them 0: zero-weight cycles, many ties.
    Zeros,
}

fn graph<W: Weight + From<f32>>(
    n: usize,
    p: f64,
    kind: Weights,
    frac: bool,
    seed: u64,
) -> TestGraph<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut indptr, mut indices, mut weights) = (vec![0i64], vec![], vec![]);
    let mut dense = vec![W::INF; n * n];
    for u in 0..n {
        dense[u * n + u] = W::ZERO;
        for v in 0..n {
            if u == v || !rng.gen_bool(p) {
                continue;
            }
            let mut w = match kind {
                Weights::Negative if u < v => rng.gen_range(-2..=9) as f32,
                Weights::Negative => (rng.gen_range(0..=9) + 2 * n as i32) as f32,
                Weights::Zeros if rng.gen_bool(1.0 / 3.0) => 0.0,
                Weights::Zeros => rng.gen_range(1..=9) as f32,
            };
            // A fraction makes sums round differently in the solver and in the check.
            if frac && w != 0.0 {
                w += rng.gen_range(0.0..1.0f32);
            }
            indices.push(v as i32);
            weights.push(W::from(w));
            dense[u * n + v] = W::from(w);
        }
        indptr.push(indices.len() as i64);
    }
    TestGraph {
        indptr,
        indices,
        weights,
        dense,
    }
}

fn check<W: GpuWeight + From<f32> + std::fmt::Debug>(gpu: &host::Gpu) {
    use Weights::{Negative, Zeros};
    for (n, p, kind, frac, seed) in [
        (1, 0.5, Negative, false, 1),
        (2, 1.0, Zeros, false, 2),
        (50, 0.1, Negative, false, 3),
        (130, 0.05, Zeros, false, 4),
        (257, 0.02, Negative, true, 5),
        (300, 0.5, Zeros, true, 6),
        (300, 0.3, Negative, true, 7),
        (400, 0.01, Zeros, false, 8),
    ] {
        let g = graph::<W>(n, p, kind, frac, seed);
        let mut d = g.dense.clone();
        assert!(
            floyd_warshall(&mut d, n).is_empty(),
            "{kind:?} has no negative cycle"
        );
        let csr = Csr {
            indptr: &g.indptr,
            indices: &g.indices,
            weights: &g.weights,
        };
        let mut got = vec![0i32; n * n];
        let report = predecessors(gpu, &d, n, csr, &mut got)
            .unwrap_or_else(|e| panic!("{} n = {n}: {e}", W::NAME));
        let mut cpu = vec![0i32; n * n];
        minplus::predecessors(&d, n, csr, &mut cpu);
        for i in 0..n {
            for j in 0..n {
                let at = i * n + j;
                assert_eq!(
                    got[at] == NO_PREDECESSOR,
                    cpu[at] == NO_PREDECESSOR,
                    "{} n = {n}: ({i}, {j}) reachability",
                    W::NAME
                );
                if got[at] == NO_PREDECESSOR {
                    continue;
                }
                // Walk back to i, adding the edges' weights in f64.
                let (mut v, mut len, mut hops) = (j, 0f64, 0);
                while v != i {
                    let u = got[i * n + v];
                    assert!(u >= 0 && hops < n, "{} n = {n}: ({i}, {j}) loops", W::NAME);
                    let w = g.dense[u as usize * n + v];
                    assert!(
                        w != W::INF && u as usize != v,
                        "({i}, {j}): {u} -> {v} no edge"
                    );
                    len += w.to_f64();
                    (v, hops) = (u as usize, hops + 1);
                }
                let want = d[at].to_f64();
                let tol = W::REL_TOL * 1e3 * (1.0 + want.abs() + hops as f64 * 20.0);
                assert!(
                    (len - want).abs() <= tol,
                    "{} n = {n}: ({i}, {j}) path {len} vs distance {want}",
                    W::NAME
                );
            }
        }
        assert!(report.levels >= 1, "{report:?}");
    }
}

#[test]
fn gpu_predecessors_are_shortest_path_trees() {
    let Some(gpu) = gpu_for_test("gpu_predecessors_are_shortest_path_trees") else {
        return;
    };
    check::<f32>(&gpu);
    check::<f64>(&gpu);
}

#[test]
fn a_bad_graph_is_one_sentence() {
    let Some(gpu) = gpu_for_test("a_bad_graph_is_one_sentence") else {
        return;
    };
    let d = vec![0f64; 4];
    let mut pred = vec![0i32; 4];
    let csr = Csr {
        indptr: &[0, 1, 2],
        indices: &[1, 5],
        weights: &[1.0, 1.0],
    };
    let e = predecessors(&gpu, &d, 2, csr, &mut pred).unwrap_err();
    assert!(
        e.to_string().contains("not a compressed sparse row graph"),
        "{e}"
    );
}
