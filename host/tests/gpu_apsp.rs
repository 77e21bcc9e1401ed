//! GPU tests for blocked Floyd–Warshall. Without a GPU they print "SKIPPED …" and pass.
use host::{apsp::gpu as agpu, gpu::gpu_for_test};
use rayon::prelude::*;
use rgk_core::apsp::{
    cpu,
    format::{Edge, Graph, read_graph},
    random::generate,
};

fn assert_matches_cpu(gpu: &host::gpu::Gpu, graph: &rgk_core::apsp::format::Graph, what: &str) {
    let v = graph.vertices;
    let (expect, _) = cpu::solve(graph);
    for block in gpu_kernels::apsp::BLOCK_FACTORS {
        let sol = agpu::solve(gpu, graph, block)
            .unwrap_or_else(|e| panic!("{what} block {block}: {e:#}"));
        for i in 0..v {
            let got = &sol.dist[i * sol.pitch..i * sol.pitch + v];
            assert_eq!(
                got,
                &expect[i * v..(i + 1) * v],
                "{what}, block {block}: row {i} differs"
            );
        }
    }
}

#[test]
fn shared_cases_match_cpu() {
    let Some(gpu) = gpu_for_test("shared_cases_match_cpu") else {
        return;
    };
    let Some(dir) = rgk_core::testdata::apsp_cases_for_test("shared_cases_match_cpu") else {
        return;
    };
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "in") {
            let graph = read_graph(&path).unwrap();
            assert_matches_cpu(&gpu, &graph, &path.display().to_string());
            // and the expected file, byte for byte
            let expected = std::fs::read(path.with_extension("out")).unwrap();
            let sol = agpu::solve(&gpu, &graph, 64).unwrap();
            let v = graph.vertices;
            let mut got = Vec::with_capacity(v * v * 4);
            for i in 0..v {
                for x in &sol.dist[i * sol.pitch..i * sol.pitch + v] {
                    got.extend_from_slice(&x.to_le_bytes());
                }
            }
            assert!(
                got == expected,
                "{}: differs from the expected output",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n > 0, "no cases in {}", dir.display());
}

#[test]
fn random_graphs_match_cpu() {
    let Some(gpu) = gpu_for_test("random_graphs_match_cpu") else {
        return;
    };
    // Around every multiple of the block factors (16, 32, 64) and of phase 3's 8 x 8-cell thread
    // tile, and sizes that are multiples of none (129, 200, 1000, 2500 are not multiples of 64).
    for (v, e, seed) in [
        (1, 0, 1),
        (2, 2, 7),
        (63, 400, 2),
        (64, 64, 3),
        (65, 2000, 4),
        (127, 1500, 8),
        (128, 4000, 9),
        (129, 300, 10),
        (200, 8000, 11),
        (1000, 40_000, 5),
        (2500, 20_000, 6),
    ] {
        let graph = generate(v, e, seed).unwrap();
        assert_matches_cpu(&gpu, &graph, &format!("V={v} E={e}"));
    }
}

/// Two components that cannot reach each other, one-way links between them, and isolated
/// vertices: most distances stay INF, and INF + INF must never win a min.
#[test]
fn disconnected_graph_matches_cpu() {
    let Some(gpu) = gpu_for_test("disconnected_graph_matches_cpu") else {
        return;
    };
    let (a, b) = (
        generate(150, 3000, 21).unwrap(),
        generate(110, 900, 22).unwrap(),
    );
    let mut edges = a.edges.clone();
    edges.extend(b.edges.iter().map(|e| Edge {
        src: e.src + 150,
        dst: e.dst + 150,
        w: e.w,
    }));
    // 150..260 reaches 0..150 through one edge, never the other way; 260..300 are isolated.
    edges.push(Edge {
        src: 170,
        dst: 3,
        w: 17,
    });
    let graph = Graph {
        vertices: 300,
        edges,
    };
    assert_matches_cpu(&gpu, &graph, "disconnected V=300");
}

/// A random V = 10000 graph (E = 40V): the GPU path (default block factor) against Dijkstra
/// from every source on the CPU, every byte of the V x V matrix.
#[test]
fn random_10000_matches_dijkstra_everywhere() {
    let Some(gpu) = gpu_for_test("random_10000_matches_dijkstra_everywhere") else {
        return;
    };
    let v = 10_000;
    let graph = generate(v, 40 * v, 10_000).unwrap();
    let sol = agpu::solve(&gpu, &graph, 64).unwrap();
    let adjacency = cpu::Adjacency::new(&graph);
    let bad: Vec<usize> = (0..v)
        .into_par_iter()
        .filter(|&i| {
            cpu::dijkstra(&graph, &adjacency, i)[..] != sol.dist[i * sol.pitch..i * sol.pitch + v]
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} rows differ, first {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn addmin_peak_runs_and_is_plausible() {
    let Some(gpu) = gpu_for_test("addmin_peak_runs_and_is_plausible") else {
        return;
    };
    let p = agpu::addmin_peak(&gpu, 256, 3).unwrap();
    // Far below and far above any GPU this runs on: a broken count or timing, not a slow GPU.
    assert!(
        p.per_sm_per_clock > 4.0 && p.per_sm_per_clock < 1024.0,
        "{p:?}"
    );
}
