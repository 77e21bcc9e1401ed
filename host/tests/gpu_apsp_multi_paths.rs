//! Floyd–Warshall with paths split over GPUs (`host apsp --gpus N --paths`,
//! `host::apsp::multi::solve_paths`): the path matrix equals the CPU restatement of the
//! kernels' order of updates (`rgk_core::apsp::paths::blocked`), so it is the one GPU's matrix
//! cell for cell, the distances equal the CPU's, and every path is valid. One GPU runs the split
//! path too (its own kernels, no broadcast); several GPUs only where present (else "SKIPPED …").
mod common;

use common::{graphs::weighted, host, temp_dir};
use host::{
    apsp::{
        multi::{self, MultiGpu, gpus_for_test},
        rows::DeviceRows,
    },
    gpu::device_count,
};
use rgk_core::apsp::{
    cpu,
    format::write_graph,
    paths::{PathKind, blocked::solve_blocked, check_paths},
    random::generate,
};

/// Solves each graph with both kinds on `gpus` through the split and checks it.
fn check_split(gpus: &MultiGpu) {
    let n = gpus.len();
    // V = 1 and 64 leave later GPUs without rows; 130 and 600 are not multiples of 64.
    for (g, what) in [
        (generate(1, 0, 1).unwrap(), "V = 1"),
        (generate(64, 500, 2).unwrap(), "V = 64"),
        (weighted(130, 1500, &[0, 1], 3), "zero weights and ties"),
        (generate(600, 12_000, 4).unwrap(), "random"),
    ] {
        let v = g.vertices;
        let (want_d, _) = cpu::solve(&g).unwrap();
        for kind in PathKind::ALL {
            let what = format!("{what}, {kind:?}, {n} GPU(s)");
            let sol =
                multi::solve_paths(gpus, &g, 64, kind).unwrap_or_else(|e| panic!("{what}: {e:#}"));
            let rows = sol.paths().expect("solved with paths");
            let (mut d, mut p) = (vec![-1; v * v], vec![-1; v * v]);
            sol.copy_rows(0, &mut d).unwrap();
            rows.copy_rows(0, &mut p).unwrap();
            assert!(
                d == want_d.as_slice(),
                "{what}: distances differ from the CPU"
            );
            let (_, want_p) = solve_blocked(&g, kind, 64);
            if let Some(at) = (0..v * v).find(|&x| p[x] != want_p.cells[x]) {
                panic!(
                    "{what}: path cell ({}, {}) is {} on the GPUs, {} in the restatement",
                    at / v,
                    at % v,
                    p[at],
                    want_p.cells[at]
                );
            }
            let m = rgk_core::apsp::paths::PathMatrix {
                kind,
                vertices: v,
                cells: p,
            };
            check_paths(&g, &m, 0..v, |i, j| want_d[i * v + j])
                .unwrap_or_else(|e| panic!("{what}: {e:#}"));
        }
    }
}

#[test]
fn one_gpu_through_the_split_path_gives_the_kernels_paths() {
    let test = "one_gpu_through_the_split_path_gives_the_kernels_paths";
    if let Some(gpus) = gpus_for_test(test, 1) {
        check_split(&gpus);
    }
}

#[test]
fn several_gpus_give_the_kernels_paths() {
    let present = device_count().unwrap_or(0).max(2);
    for n in 2..=present {
        if let Some(gpus) = gpus_for_test("several_gpus_give_the_kernels_paths", n) {
            check_split(&gpus);
        }
    }
}

#[test]
fn cli_paths_on_two_gpus_equal_one_gpu_byte_for_byte() {
    let test = "cli_paths_on_two_gpus_equal_one_gpu_byte_for_byte";
    let Some(_gpus) = gpus_for_test(test, 2) else {
        return;
    };
    let dir = temp_dir("gpu_multi_paths_cli");
    let input = dir.join("g.in");
    write_graph(&input, &weighted(700, 9000, &[0, 2, 9], 5)).unwrap();
    let i = input.to_str().unwrap().to_string();
    for kind in PathKind::ALL {
        let mut files = Vec::new();
        for gpus in ["1", "2"] {
            let (o, p) = (format!("d{gpus}.out"), format!("p{gpus}.paths"));
            let (o, p) = (dir.join(o), dir.join(p));
            let [o, p] = [&o, &p].map(|x| x.to_str().unwrap().to_string());
            let args = [
                "apsp",
                &i,
                "-o",
                &o,
                "--paths",
                &p,
                "--path-kind",
                kind.name(),
                "--gpus",
                gpus,
                "--verify",
            ];
            let r = host(&dir, &args, None);
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            files.push((std::fs::read(&o).unwrap(), std::fs::read(&p).unwrap()));
        }
        assert!(files[0].0 == files[1].0, "{kind:?}: distance files differ");
        assert!(files[0].1 == files[1].1, "{kind:?}: path files differ");
    }
}
