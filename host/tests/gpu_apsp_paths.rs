//! GPU Floyd–Warshall with paths (`host apsp --paths`, `host::apsp_with`): distances equal to
//! the distance-only solver's, every path made of edges and as long as its distance, on random
//! graphs of odd sizes, zero weights and ties, the course cases; the CLI end to end. Without a
//! GPU the tests print "SKIPPED …" and pass.
mod common;

use common::{graphs::weighted, host, temp_dir};
use host::{
    apsp::{gpu as agpu, paths::solve_paths_on_device, rows::DeviceRows},
    gpu::{Gpu, gpu_for_test},
};
use rgk_core::apsp::{
    format::{Graph, read_graph, write_graph},
    paths::{
        PathKind, PathMatrix, blocked::solve_blocked, check_paths, file::PathFile,
        zero_weight_cycle,
    },
    random::generate,
};

/// Solves `g` with both kinds on the GPU and checks them: distances equal to the distance-only
/// kernels' at every block factor that has path kernels, every path valid.
fn check(gpu: &Gpu, g: &Graph, what: &str) {
    let v = g.vertices;
    if let Some((a, b)) = zero_weight_cycle(g) {
        // Refused by --paths on the GPU (docs/apsp.md); the CLI test covers the refusal.
        eprintln!(
            "{what}: not solved with paths on the GPU, a zero-weight cycle through {a} -> {b}"
        );
        return;
    }
    for c in gpu_kernels::apsp::FW_PATHS {
        let plain = agpu::solve(gpu, g, c.block).unwrap();
        let want: Vec<i32> = (0..v)
            .flat_map(|i| plain.dist[i * plain.pitch..i * plain.pitch + v].to_vec())
            .collect();
        for kind in PathKind::ALL {
            let (sol, _) = solve_paths_on_device(gpu, g, c.block, kind)
                .unwrap_or_else(|e| panic!("{what}, {kind:?}: {e:#}"));
            let (mut d, mut p) = (vec![0; v * v], vec![0; v * v]);
            sol.distances.copy_rows(0, &mut d).unwrap();
            sol.paths.copy_rows(0, &mut p).unwrap();
            assert!(
                d == want,
                "{what}, {kind:?}, block {}: distances differ",
                c.block
            );
            let m = PathMatrix {
                kind,
                vertices: v,
                cells: p,
            };
            check_paths(g, &m, 0..v, |i, j| want[i * v + j])
                .unwrap_or_else(|e| panic!("{what}, {kind:?}, block {}: {e:#}", c.block));
        }
    }
}

#[test]
fn gpu_paths_are_valid_on_random_graphs() {
    let Some(gpu) = gpu_for_test("gpu_paths_are_valid_on_random_graphs") else {
        return;
    };
    for (v, e, seed) in [
        (1, 0, 1),
        (63, 300, 2),
        (65, 700, 3),
        (200, 3000, 4),
        (333, 2000, 5),
        (777, 20_000, 6),
    ] {
        check(
            &gpu,
            &generate(v, e, seed).unwrap(),
            &format!("V={v} E={e}"),
        );
    }
}

#[test]
fn gpu_paths_are_valid_with_zero_weights_and_ties() {
    let Some(gpu) = gpu_for_test("gpu_paths_are_valid_with_zero_weights_and_ties") else {
        return;
    };
    for (v, e, w, seed) in [
        (129, 1500, &[0, 1][..], 7),
        (300, 1200, &[0][..], 8),
        (257, 5000, &[0, 0, 2, 4][..], 9),
        (200, 8000, &[1][..], 10),
    ] {
        check(
            &gpu,
            &weighted(v, e, w, seed),
            &format!("V={v} weights {w:?}"),
        );
    }
}

#[test]
fn gpu_paths_are_valid_on_the_course_cases() {
    let test = "gpu_paths_are_valid_on_the_course_cases";
    let Some(gpu) = gpu_for_test(test) else {
        return;
    };
    let Some(dir) = rgk_core::testdata::apsp_cases_for_test(test) else {
        return;
    };
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "in") {
            check(
                &gpu,
                &read_graph(&path).unwrap(),
                &path.display().to_string(),
            );
            n += 1;
        }
    }
    assert!(n > 0, "no *.in in {}", dir.display());
}

#[test]
fn library_and_cli_give_the_same_paths() {
    let Some(gpu) = gpu_for_test("library_and_cli_give_the_same_paths") else {
        return;
    };
    let g = weighted(150, 2000, &[0, 3, 7], 12);
    let dir = temp_dir("gpu_paths_cli");
    let input = dir.join("g.in");
    write_graph(&input, &g).unwrap();
    for kind in PathKind::ALL {
        let (d, m) = host::apsp_with(&gpu, &g, kind).unwrap();
        let (out, paths) = (dir.join("g.out"), dir.join("g.paths"));
        let [i, o, p] = [&input, &out, &paths].map(|x| x.to_str().unwrap().to_string());
        let r = host(
            &dir,
            &[
                "apsp",
                &i,
                "-o",
                &o,
                "--paths",
                &p,
                "--path-kind",
                kind.name(),
                "--verify",
            ],
            None,
        );
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let file = PathFile::open(&paths).unwrap();
        for u in [0, 17, 149] {
            for v in [0, 5, 77, 149] {
                assert_eq!(
                    file.path(u, v).unwrap(),
                    m.path(u, v).unwrap(),
                    "{kind:?} {u} {v}"
                );
            }
        }
        let r = host(
            &dir,
            &["path", &p, "17", "77", "--distances", &o, "--json"],
            None,
        );
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(j["results"]["length"], d.get(17, 77), "{j}");
    }
}

#[test]
fn gpu_path_matrix_equals_the_cpu_restatement_of_the_kernels() {
    let test = "gpu_path_matrix_equals_the_cpu_restatement_of_the_kernels";
    let Some(gpu) = gpu_for_test(test) else {
        return;
    };
    for (g, what) in [
        (generate(200, 3000, 13).unwrap(), "random"),
        (weighted(150, 1500, &[0, 1], 14), "zero weights and ties"),
    ] {
        let v = g.vertices;
        for c in gpu_kernels::apsp::FW_PATHS {
            for kind in PathKind::ALL {
                let (sol, _) = solve_paths_on_device(&gpu, &g, c.block, kind).unwrap();
                let mut p = vec![0; v * v];
                sol.paths.copy_rows(0, &mut p).unwrap();
                let (_, want) = solve_blocked(&g, kind, c.block as usize);
                if let Some(at) = (0..v * v).find(|&x| p[x] != want.cells[x]) {
                    panic!(
                        "{what}, {kind:?}, block {}: cell ({}, {}) is {} on the GPU, {} in the restatement",
                        c.block,
                        at / v,
                        at % v,
                        p[at],
                        want.cells[at]
                    );
                }
            }
        }
    }
}
