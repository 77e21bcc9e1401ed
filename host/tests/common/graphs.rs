//! Graphs the path tests share (`gpu_apsp_paths`, `gpu_apsp_multi_paths`).
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::apsp::format::{Edge, Graph};

/// A graph of `v` vertices and up to `e` edges with weights from `weights`, zero ones only on
/// edges to a higher vertex: no cycle of zero-weight edges, which `--paths` on the GPU refuses.
pub fn weighted(v: usize, e: usize, weights: &[i32], seed: u64) -> Graph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let edges = (0..e)
        .filter_map(|_| {
            let (src, dst) = (rng.gen_range(0..v) as i32, rng.gen_range(0..v) as i32);
            let w = weights[rng.gen_range(0..weights.len())];
            let w = if w == 0 && src > dst { 1 } else { w };
            (src != dst).then_some(Edge { src, dst, w })
        })
        .collect();
    Graph::from_edges(v, edges).unwrap()
}
