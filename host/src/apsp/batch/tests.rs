//! The planning of a batch, on the CPU: which kernel each size gets and how graphs are grouped
//! into launches. (The kernels themselves: `tests/gpu_apsp_batch.rs`.)
use gpu_kernels::apsp::{BATCH_KERNELS, BATCH_MAX_VERTICES};

use super::*;

#[test]
fn every_size_up_to_the_blocked_limit_has_a_class_that_holds_it() {
    let max = BATCH_BLOCKED.max_vertices as usize;
    for v in 1..=max {
        match class_with(v, None).unwrap() {
            BatchClass::Register(c) => {
                assert!(v <= c.n as usize && v <= BATCH_MAX_VERTICES as usize && c.default);
                // The smallest class that holds it.
                assert!(
                    BATCH_KERNELS
                        .iter()
                        .all(|o| !o.default || o.n == c.n || (o.n as usize) < v || o.n > c.n)
                );
            }
            BatchClass::Blocked { n } => {
                let (n, b) = (n as usize, BATCH_BLOCKED.block as usize);
                assert!(v > BATCH_MAX_VERTICES as usize, "V = {v}");
                assert!(
                    n >= v && n - v < b && n.is_multiple_of(b),
                    "V = {v}: n = {n}"
                );
            }
        }
    }
    assert!(class_with(max + 1, None).is_none());
    assert!(class_with(100_000, None).is_none());
    assert_eq!(
        class_with(33, None),
        Some(BatchClass::Register(batch_config_of(64)))
    );
    assert_eq!(class_with(129, None), Some(BatchClass::Blocked { n: 192 }));
    assert_eq!(class_with(512, None), Some(BatchClass::Blocked { n: 512 }));
}

/// The default kernel of class `n`.
fn batch_config_of(n: u32) -> BatchConfig {
    *BATCH_KERNELS
        .iter()
        .find(|c| c.n == n && c.default)
        .unwrap()
}

#[test]
fn a_variant_replaces_its_own_class_only() {
    let v128 = variant("apsp_batch_n128_c4").unwrap();
    assert_eq!(
        class_with(100, Some(v128)),
        Some(BatchClass::Register(v128))
    );
    assert_eq!(
        class_with(50, Some(v128)),
        Some(BatchClass::Register(batch_config_of(64)))
    );
    assert_eq!(
        class_with(200, Some(v128)),
        Some(BatchClass::Blocked { n: 256 })
    );
    let e = variant("apsp_batch_n999").unwrap_err().to_string();
    assert!(
        e.contains("apsp_batch_n999") && e.contains("apsp_batch_n128"),
        "{e}"
    );
}

#[test]
fn every_variant_is_a_distinct_kernel_of_a_class() {
    for c in BATCH_KERNELS {
        assert_eq!(variant(c.kernel).unwrap(), c);
        assert!(BATCH_KERNELS.iter().any(|d| d.default && d.n == c.n));
    }
}

#[test]
fn a_plan_covers_every_graph_once_in_runs_of_one_class() {
    // Mixed sizes in a scrambled order, with more graphs of one class than a chunk.
    let mut sizes: Vec<usize> = (0..700).map(|i| 1 + (i * 37) % 520).collect();
    sizes.extend(std::iter::repeat_n(128, 300));
    sizes.extend([600, 3000, 129]);
    for chunk in [1, 7, 256, BATCH_CHUNK, 10 * BATCH_CHUNK] {
        let runs = plan(&sizes, chunk, None);
        let mut seen = vec![0; sizes.len()];
        for (class, run) in &runs {
            assert!(!run.is_empty() && run.len() <= chunk.min(BATCH_CHUNK));
            assert!(run.windows(2).all(|w| w[0] < w[1]), "in input order");
            for &i in run {
                seen[i] += 1;
                assert_eq!(class_with(sizes[i], None), *class, "graph {i}");
            }
            if class.is_none() {
                assert_eq!(run.len(), 1, "one graph per one-graph solve");
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "chunk {chunk}");
        // Runs fill up: at most one partial run per class.
        let mut classes: Vec<BatchClass> = runs.iter().filter_map(|(c, _)| *c).collect();
        classes.dedup();
        for c in &classes {
            let partial = runs
                .iter()
                .filter(|(k, r)| k == &Some(*c) && r.len() < chunk.min(BATCH_CHUNK))
                .count();
            assert!(partial <= 1, "{c:?} at chunk {chunk}");
        }
    }
}

#[test]
fn blocked_launches_stay_inside_the_grid_limits() {
    // Graphs in grid z (≤ 65535), blocks of one graph in x and y; a matrix of n x n cells with
    // n ≤ max_vertices and the largest chunk of them addressed in 64 bits on the device.
    const {
        let c = BATCH_BLOCKED;
        assert!(BATCH_CHUNK <= 65535);
        let n = c.max_vertices as u64;
        assert!(n * c.block as u64 <= u32::MAX as u64);
        assert!(BATCH_CHUNK as u64 * n * n * 4 <= 4 << 30);
    }
}
