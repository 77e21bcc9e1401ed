//! GPU tests of `host apsp --stats`: the statistics the GPU reduces from its matrix equal the
//! CPU reference (`rgk_core::apsp::stats`, checked against networkx in rgk-core) on random
//! graphs — across the tiles kernel's band edges, every block factor's pitch, sparse graphs
//! with unreachable pairs and zero-weight edges — and the file-to-file path with `--stats`
//! alone copies nothing of the matrix back. Without a GPU they print "SKIPPED …" and pass.
mod common;

use common::temp_dir;
use host::{
    apsp::{
        input::GraphFile,
        pipeline::{Outputs, solve_graph_outputs},
        stats::{StatsGeometry, solve_stats, solve_stats_with},
        stream::IoOptions,
    },
    gpu::{Gpu, gpu_for_test},
};
use rgk_core::apsp::{
    cpu,
    format::{Edge, Graph, write_graph},
    random::generate,
    stats::{Stats, sums_cpu},
};

/// Stats from the CPU's Floyd–Warshall.
fn cpu_stats(graph: &Graph) -> Stats {
    let (dist, _) = cpu::solve(graph).unwrap();
    Stats::from_sums(&sums_cpu(&dist, graph.vertices, graph.vertices))
}

/// Equal to the CPU reference: everything exactly (the counts and sums are integers, and
/// closeness and the average are made from them by the same code) except the harmonic sums,
/// added in another order: within 1e-12 relative.
fn assert_equal(got: &Stats, want: &Stats, what: &str) {
    assert_eq!(got.graph, want.graph, "{what}");
    assert_eq!(got.vertices.len(), want.vertices.len(), "{what}");
    for (g, w) in got.vertices.iter().zip(&want.vertices) {
        let h = (g.harmonic - w.harmonic).abs();
        assert!(
            h <= 1e-12 * w.harmonic,
            "{what}: vertex {}: harmonic {} vs {}",
            w.vertex,
            g.harmonic,
            w.harmonic
        );
        let exact = |s: &rgk_core::apsp::stats::VertexStats| {
            let mut s = s.clone();
            s.harmonic = 0.0;
            s
        };
        assert_eq!(exact(g), exact(w), "{what}");
    }
}

fn check(gpu: &Gpu, graph: &Graph, block: u32, what: &str) {
    let got = solve_stats(gpu, graph, block)
        .unwrap_or_else(|e| panic!("{what}, block {block}: {e:#}"))
        .stats;
    assert_equal(&got, &cpu_stats(graph), &format!("{what}, block {block}"));
}

#[test]
fn gpu_stats_equal_the_cpu_reference_on_random_graphs() {
    let Some(gpu) = gpu_for_test("gpu_stats_equal_the_cpu_reference_on_random_graphs") else {
        return;
    };
    // V across the tile edges: one column band (1024) and more, one row band and several,
    // padding to each block factor; dense, sparse (unreachable pairs) and empty.
    for (v, e, seed) in [
        (1, 0, 1),
        (2, 1, 2),
        (31, 200, 3),
        (100, 3000, 4),
        (257, 600, 5),
        (1000, 20_000, 6),
        (1024, 3000, 7),
        (1025, 30_000, 8),
        (2100, 40_000, 9),
        (3000, 4000, 10),
        (500, 0, 11),
    ] {
        let graph = generate(v, e, seed).unwrap();
        for block in gpu_kernels::apsp::BLOCK_FACTORS {
            check(&gpu, &graph, block, &format!("V={v} E={e} seed {seed}"));
        }
    }
}

#[test]
fn gpu_stats_with_zero_weights_and_repeated_edges() {
    let Some(gpu) = gpu_for_test("gpu_stats_with_zero_weights_and_repeated_edges") else {
        return;
    };
    let mut graph = generate(300, 4000, 12).unwrap();
    // Zero-weight edges (distance 0 between distinct vertices: reached, no harmonic term) and
    // a repeated pair whose smaller weight counts.
    for (i, e) in graph.edges.iter_mut().enumerate() {
        if i % 7 == 0 {
            e.w = 0;
        }
    }
    graph.edges.push(Edge {
        src: 1,
        dst: 2,
        w: 0,
    });
    graph.edges.push(Edge {
        src: 1,
        dst: 2,
        w: 900,
    });
    check(&gpu, &graph, 64, "zero weights");
}

#[test]
fn gpu_stats_with_the_smallest_and_largest_tiles() {
    let Some(gpu) = gpu_for_test("gpu_stats_with_the_smallest_and_largest_tiles") else {
        return;
    };
    // Dense enough that every vertex reaches every other: the packed counts of a 1024-row tile
    // reach 1024, their largest.
    let graph = generate(2100, 60_000, 13).unwrap();
    let want = cpu_stats(&graph);
    assert!(want.graph.strongly_connected);
    for rows in [32, 1024] {
        let g = StatsGeometry::with_rows(2100, rows).unwrap();
        assert!(g.col_bands > 1 && g.row_bands > 1, "{g:?}");
        let got = solve_stats_with(&gpu, &graph, 64, g).unwrap().stats;
        assert_equal(&got, &want, &format!("V=2100, {rows} rows per tile"));
    }
}

#[test]
fn stats_alone_copy_nothing_of_the_matrix_back() {
    let Some(gpu) = gpu_for_test("stats_alone_copy_nothing_of_the_matrix_back") else {
        return;
    };
    let dir = temp_dir("stats_alone");
    let input = dir.join("g.in");
    let graph = generate(700, 9000, 14).unwrap();
    write_graph(&input, &graph).unwrap();
    let outputs = Outputs {
        distances: None,
        stats: true,
    };
    let file = GraphFile::read(&input).unwrap();
    let (rep, run) =
        solve_graph_outputs(Some(&gpu), file, outputs, 64, true, IoOptions::default()).unwrap();
    assert_equal(&run.unwrap().stats, &cpu_stats(&graph), "--stats alone");
    // No stream: no copy of the matrix, no write, no file.
    assert_eq!(rep.stream.copy_s, 0.0);
    assert_eq!(rep.split.device_to_host_s, 0.0);
    assert!(rep.verified.is_some());
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(names.len(), 1, "only the input: {names:?}");
    // With a distance file: both, and the file is the CPU's matrix.
    let out = dir.join("g.out");
    let outputs = Outputs {
        distances: Some(&out),
        stats: true,
    };
    let file = GraphFile::read(&input).unwrap();
    let (_, run) =
        solve_graph_outputs(Some(&gpu), file, outputs, 64, false, IoOptions::default()).unwrap();
    assert_equal(&run.unwrap().stats, &cpu_stats(&graph), "--stats -o");
    let (dist, _) = cpu::solve(&graph).unwrap();
    let bytes: Vec<u8> = dist.iter().flat_map(|d| d.to_le_bytes()).collect();
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}
