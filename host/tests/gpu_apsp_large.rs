//! A graph whose padded matrix exceeds 2^32 cells (V = 70000: 70016 x 70016 = 4.9e9 cells, a
//! 19.6 GB matrix) solved on one GPU, against Dijkstra from sampled sources on the CPU. Ignored by
//! default (each solve takes tens of seconds on an H200 and needs 20 GB of GPU memory); run
//! with `--ignored`, on the GPU machine: `.device/bundle/tests/gpu_apsp_large --ignored
//! --test-threads=1`, here: `cargo test --release -p host --test gpu_apsp_large -- --ignored`.
//! Without a GPU they print "SKIPPED …" and pass; the host test of the kernels' offset
//! arithmetic at such sizes (`gpu_kernels::apsp::offsets`) runs everywhere.
use host::{
    apsp::{
        gpu as agpu,
        multi::{self, gpus_for_test},
        rows::DeviceRows,
    },
    gpu::{Gpu, free_memory, gpu_for_test},
};
use rayon::prelude::*;
use rgk_core::{
    apsp::{
        cpu,
        format::{Edge, Graph},
        random::generate,
    },
    testdata::skip,
};

const V: usize = 70_000;

/// A sparse random graph (E = 40V) whose padded matrix exceeds 2^32 cells at every block factor.
fn graph() -> Graph {
    let g = generate(V, 40 * V, 70_000).unwrap();
    for b in gpu_kernels::apsp::BLOCK_FACTORS {
        let (padded, pitch) = agpu::geometry(V, b);
        assert!((padded * pitch) as u64 > u32::MAX as u64, "B = {b}");
    }
    g
}

/// 16 rows: the first, the last, both sides of the first row whose offset passes 2^32 cells,
/// and others spread between (seeded).
fn sampled_rows(pitch: usize) -> Vec<usize> {
    let past = (1usize << 32).div_ceil(pitch);
    let mut rows = vec![0, 1, V / 2, past - 1, past, past + 1, V - 64, V - 2, V - 1];
    let mut x = 7u64;
    while rows.len() < 16 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        rows.push((x >> 33) as usize % V);
    }
    rows
}

/// Sampled rows of `sol` against Dijkstra from the same sources.
fn assert_rows_match_dijkstra(graph: &Graph, sol: &dyn DeviceRows, pitch: usize, what: &str) {
    let adjacency = cpu::Adjacency::new(graph);
    let rows = sampled_rows(pitch);
    let expect: Vec<Vec<i32>> = rows
        .par_iter()
        .map(|&i| cpu::dijkstra(graph, &adjacency, i))
        .collect();
    let mut got = vec![-1; V];
    for (&i, want) in rows.iter().zip(&expect) {
        sol.copy_rows(i, &mut got).unwrap();
        if let Some(j) = (0..V).find(|&j| got[j] != want[j]) {
            panic!(
                "{what}: row {i} differs from Dijkstra at column {j}: {} instead of {}",
                got[j], want[j]
            );
        }
    }
}

/// The GPU if it has room for the matrix at block factor `block` (an H200 or an 80 GB H100
/// has), else `None` after saying why.
fn gpu_with_room(test: &str, block: u32) -> Option<Gpu> {
    let gpu = gpu_for_test(test)?;
    let (padded, pitch) = agpu::geometry(V, block);
    let needs = padded * pitch * 4 + 40 * V * size_of::<Edge>();
    let free = free_memory().unwrap();
    if free < needs {
        skip(
            test,
            &format!("needs {needs} bytes of GPU memory and {free} are free"),
        );
        return None;
    }
    Some(gpu)
}

fn solve_and_check(gpu: &Gpu, graph: &Graph, block: u32) {
    let sol = agpu::start_on_device(gpu, graph, block)
        .and_then(|r| r.finish())
        .unwrap_or_else(|e| panic!("V = {V}, block {block}: {e:#}"));
    assert_rows_match_dijkstra(graph, &sol, sol.pitch, &format!("block {block}"));
}

/// The default block factor (B = 64, the register-tiled kernels).
#[test]
#[ignore = "V = 70000: 20 GB of GPU memory and tens of seconds; run with --ignored"]
fn beyond_2_32_cells_matches_dijkstra() {
    let Some(gpu) = gpu_with_room("beyond_2_32_cells_matches_dijkstra", 64) else {
        return;
    };
    solve_and_check(&gpu, &graph(), 64);
}

/// B = 16 and 32 (the column-layout kernels), slower than B = 64.
#[test]
#[ignore = "V = 70000 twice: 20 GB of GPU memory and minutes; run with --ignored"]
fn beyond_2_32_cells_small_blocks_match_dijkstra() {
    let test = "beyond_2_32_cells_small_blocks_match_dijkstra";
    let Some(gpu) = gpu_with_room(test, 16) else {
        return;
    };
    let graph = graph();
    for block in [32, 16] {
        solve_and_check(&gpu, &graph, block);
    }
}

/// The multi-GPU kernels with one GPU holding every block row (`--gpus 1`), so that its slice
/// exceeds 2^32 cells.
#[test]
#[ignore = "V = 70000: 20 GB of GPU memory and tens of seconds; run with --ignored"]
fn beyond_2_32_cells_through_the_split_path_matches_dijkstra() {
    let test = "beyond_2_32_cells_through_the_split_path_matches_dijkstra";
    let Some(gpus) = gpus_for_test(test, 1) else {
        return;
    };
    gpus.gpus[0].make_current().unwrap();
    let (padded, pitch) = agpu::geometry(V, 64);
    if free_memory().unwrap() < padded * pitch * 4 + 40 * V * size_of::<Edge>() {
        skip(test, "the GPU has no room for a 20 GB matrix");
        return;
    }
    let graph = graph();
    let sol = multi::solve(&gpus, &graph, 64).unwrap_or_else(|e| panic!("V = {V}: {e:#}"));
    assert_rows_match_dijkstra(&graph, &sol, pitch, "one GPU through the split path");
}
