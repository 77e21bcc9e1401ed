//! GPU tests for blocked Floyd–Warshall. Without a GPU they print "SKIPPED …" and pass.
use host::{apsp::gpu as agpu, gpu::gpu_for_test};
use rgk_core::apsp::{cpu, format::read_graph, random::generate};

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
    for (v, e, seed) in [
        (1, 0, 1),
        (63, 400, 2),
        (64, 64, 3),
        (65, 2000, 4),
        (1000, 40_000, 5),
        (2500, 20_000, 6),
    ] {
        let graph = generate(v, e, seed).unwrap();
        assert_matches_cpu(&gpu, &graph, &format!("V={v} E={e}"));
    }
}
