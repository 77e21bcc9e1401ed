//! GPU tests for blocked Floyd–Warshall. Without a GPU they print "SKIPPED …" and pass.
mod common;

use common::{assert_failed_cleanly, host, host_command, leftovers, temp_dir};
use host::{
    apsp::{
        gpu as agpu,
        pipeline::solve_file_with,
        stream::{IoMode, IoOptions},
    },
    gpu::gpu_for_test,
};
use rayon::prelude::*;
use rgk_core::apsp::{
    cpu,
    format::{Edge, Graph, read_graph, write_graph},
    random::generate,
};

fn assert_matches_cpu(gpu: &host::gpu::Gpu, graph: &rgk_core::apsp::format::Graph, what: &str) {
    let v = graph.vertices;
    let (expect, _) = cpu::solve(graph).unwrap();
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

/// File to file on the GPU path (matrix built on the GPU, rows streamed into the file) against
/// the CPU path's file, byte for byte, through the page cache and with O_DIRECT, at every size
/// around the 64-wide tile and a disconnected graph.
#[test]
fn gpu_files_equal_cpu_files() {
    let Some(gpu) = gpu_for_test("gpu_files_equal_cpu_files") else {
        return;
    };
    let dir = temp_dir("gpu_files");
    let mut graphs: Vec<(String, Graph)> = [
        (1, 0, 1),
        (63, 400, 2),
        (64, 64, 3),
        (65, 2000, 4),
        (127, 1500, 8),
        (128, 4000, 9),
        (129, 300, 10),
        (1000, 40_000, 5),
        (2100, 30_000, 6),
    ]
    .into_iter()
    .map(|(v, e, seed)| (format!("V={v}"), generate(v, e, seed).unwrap()))
    .collect();
    graphs.push(("disconnected".into(), disconnected()));
    for (what, graph) in graphs {
        let input = dir.join("g.in");
        write_graph(&input, &graph).unwrap();
        let io = |mode| IoOptions {
            mode,
            writers: 4,
            chunk_mib: 1,
            prefault: true,
        };
        let cpu_out = dir.join("cpu.out");
        solve_file_with(None, &input, &cpu_out, 64, false, io(IoMode::Buffered)).unwrap();
        let expect = std::fs::read(&cpu_out).unwrap();
        for mode in [IoMode::Buffered, IoMode::Direct] {
            for block in gpu_kernels::apsp::BLOCK_FACTORS {
                let out = dir.join("gpu.out");
                let rep = solve_file_with(Some(&gpu), &input, &out, block, false, io(mode))
                    .unwrap_or_else(|e| panic!("{what} {mode:?} B={block}: {e:#}"));
                assert!(
                    std::fs::read(&out).unwrap() == expect,
                    "{what} {mode:?} B={block}: the GPU file differs from the CPU file"
                );
                assert_eq!(rep.repeated_edges, cpu::solve(&graph).unwrap().1, "{what}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The course cases file to file on the GPU path: byte-identical to their `.out` files.
#[test]
fn shared_cases_file_to_file() {
    let Some(gpu) = gpu_for_test("shared_cases_file_to_file") else {
        return;
    };
    let Some(cases) = rgk_core::testdata::apsp_cases_for_test("shared_cases_file_to_file") else {
        return;
    };
    let dir = temp_dir("gpu_cases");
    let mut n = 0;
    for entry in std::fs::read_dir(&cases).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "in") {
            let out = dir.join("case.out");
            solve_file_with(Some(&gpu), &path, &out, 64, false, IoOptions::default()).unwrap();
            assert!(
                std::fs::read(&out).unwrap() == std::fs::read(path.with_extension("out")).unwrap(),
                "{}: differs from the expected output",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n > 0, "no cases in {}", cases.display());
    let _ = std::fs::remove_dir_all(dir);
}

/// The GPU path on a full disk (RLIMIT_FSIZE below the output size): exit != 0, one
/// sentence, nothing left behind.
#[test]
fn gpu_run_whose_writes_fail_leaves_nothing() {
    if gpu_for_test("gpu_run_whose_writes_fail_leaves_nothing").is_none() {
        return;
    }
    let dir = temp_dir("gpu_full");
    write_graph(&dir.join("g.in"), &generate(2000, 80_000, 3).unwrap()).unwrap();
    // The output is 16 MB; the "disk" holds 4 MB.
    for io in ["buffered", "direct"] {
        let out = host(
            &dir,
            &["apsp", "g.in", "d.out", "--no-peak", "--io", io],
            Some(4 << 20),
        );
        assert_failed_cleanly(&out, &dir, &format!("GPU, full disk, {io}"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Ctrl-C while the output is being prepared and written: exit 130 and nothing left behind.
/// The temporary output exists from the start of the compute until the rename, so the signal
/// is sent as soon as it appears.
#[test]
fn ctrl_c_leaves_nothing() {
    if gpu_for_test("ctrl_c_leaves_nothing").is_none() {
        return;
    }
    let dir = temp_dir("gpu_ctrl_c");
    let v = 16_000;
    write_graph(&dir.join("g.in"), &generate(v, 40 * v, 4).unwrap()).unwrap();
    let mut child = host_command(&dir, &["apsp", "g.in", "d.out", "--no-peak"], None)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while leftovers(&dir).is_empty() {
        assert!(
            start.elapsed().as_secs() < 60,
            "no temporary output appeared"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the signal"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left = leftovers(&dir);
    assert!(left.is_empty(), "left behind {left:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Two components that cannot reach each other, one-way links between them, and isolated
/// vertices: most distances stay INF, and INF + INF must never win a min.
#[test]
fn disconnected_graph_matches_cpu() {
    let Some(gpu) = gpu_for_test("disconnected_graph_matches_cpu") else {
        return;
    };
    assert_matches_cpu(&gpu, &disconnected(), "disconnected V=300");
}

/// 150..260 reaches 0..150 through one edge, never the other way; 260..300 are isolated.
fn disconnected() -> Graph {
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
    edges.push(Edge {
        src: 170,
        dst: 3,
        w: 17,
    });
    Graph {
        vertices: 300,
        edges,
    }
}

/// A random V = 10000 graph (E = 40V) file to file on the GPU path (default options: the
/// matrix built on the GPU, rows streamed into the file) against Dijkstra from every source on
/// the CPU, every byte of the V x V file.
#[test]
fn random_10000_file_matches_dijkstra_everywhere() {
    let Some(gpu) = gpu_for_test("random_10000_file_matches_dijkstra_everywhere") else {
        return;
    };
    let v = 10_000;
    let graph = generate(v, 40 * v, 10_000).unwrap();
    let dir = temp_dir("gpu_10000");
    let (input, output) = (dir.join("g.in"), dir.join("g.out"));
    write_graph(&input, &graph).unwrap();
    solve_file_with(Some(&gpu), &input, &output, 64, false, IoOptions::default()).unwrap();
    let file = std::fs::read(&output).unwrap();
    assert_eq!(file.len(), 4 * v * v);
    let adjacency = cpu::Adjacency::new(&graph);
    let bad: Vec<usize> = (0..v)
        .into_par_iter()
        .filter(|&i| {
            let row: Vec<u8> = cpu::dijkstra(&graph, &adjacency, i)
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect();
            row[..] != file[4 * i * v..4 * (i + 1) * v]
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} rows differ, first {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn addmin_peak_runs_and_is_plausible() {
    let Some(gpu) = gpu_for_test("addmin_peak_runs_and_is_plausible") else {
        return;
    };
    let p = host::apsp::peak::addmin_peak(&gpu, 256, 3).unwrap();
    // Far below and far above any GPU this runs on: a broken count or timing, not a slow GPU.
    assert!(
        p.per_sm_per_clock > 4.0 && p.per_sm_per_clock < 1024.0,
        "{p:?}"
    );
}
