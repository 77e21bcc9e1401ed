//! GPU tests of the small-graph paths: every schedule of the one-graph solver
//! (`apsp::small::Schedule`) and every batch graph equal the CPU reference and each other, byte
//! for byte. Without a GPU they print "SKIPPED …" and pass.
mod common;

use common::{Scratch, reference_output};
use gpu_kernels::apsp::{SMALL_PROBES, SmallProbeKind};
use host::{
    apsp::{
        batch::{solve_batch, solve_batch_with},
        gpu as agpu,
        rows::DeviceRows,
        small::Schedule,
        small_probe::{probe_items, trace},
    },
    gpu::gpu_for_test,
};
use rgk_core::apsp::{
    Distances, cpu,
    format::{Edge, Graph, write_graph},
    random::generate,
};

/// V x V distances of `g` under `schedule` at block factor `block`.
fn solve_with(gpu: &host::Gpu, g: &Graph, block: u32, schedule: Schedule) -> Vec<i32> {
    let sol = agpu::start_on_device_with(gpu, g, block, schedule)
        .and_then(|r| r.finish())
        .unwrap_or_else(|e| panic!("{schedule:?} at V = {}: {e:#}", g.vertices));
    let mut d = vec![0; g.vertices * g.vertices];
    sol.copy_rows(0, &mut d).unwrap();
    d
}

#[test]
fn every_schedule_equals_the_cpu_at_small_and_awkward_sizes() {
    let Some(gpu) = gpu_for_test("every_schedule_equals_the_cpu_at_small_and_awkward_sizes") else {
        return;
    };
    for (i, v) in [1usize, 31, 64, 65, 200, 500, 1000, 2100]
        .into_iter()
        .enumerate()
    {
        let g = generate(v, (v * 6).min(v * (v - 1)), 40 + i as u64).unwrap();
        let (expect, _) = cpu::solve(&g).unwrap();
        for block in [32, 64] {
            for s in Schedule::ALL.into_iter().filter(|s| s.fits(block)) {
                assert!(
                    solve_with(&gpu, &g, block, s) == expect,
                    "V = {v}, B = {block}, {s:?}"
                );
            }
        }
    }
}

#[test]
fn zero_weights_and_disconnected_parts_under_the_persistent_kernels() {
    let Some(gpu) =
        gpu_for_test("zero_weights_and_disconnected_parts_under_the_persistent_kernels")
    else {
        return;
    };
    // A zero-weight chain through every block, and vertices nothing reaches.
    let v = 300;
    let edges: Vec<Edge> = (0..v as i32 - 50)
        .map(|s| Edge {
            src: s,
            dst: s + 1,
            w: (s % 3 == 0) as i32 * 7,
        })
        .collect();
    let g = Graph::from_edges(v, edges).unwrap();
    let (expect, _) = cpu::solve(&g).unwrap();
    for s in Schedule::ALL {
        assert!(solve_with(&gpu, &g, 64, s) == expect, "{s:?}");
    }
}

#[test]
fn schedule_probes_close_like_the_cpu_and_traced_solves_equal_it() {
    let Some(gpu) = gpu_for_test("schedule_probes_close_like_the_cpu_and_traced_solves_equal_it")
    else {
        return;
    };
    // A dense 64-vertex block with zero weights and ties (the probes close the first 64
    // vertices), then sizes with one, several and many rounds.
    let zero = Graph::from_edges(
        64,
        (0..64 * 63)
            .map(|e: i32| Edge {
                src: e / 63,
                dst: (e / 63 + 1 + e % 63) % 64,
                w: (e * 7919) % 5,
            })
            .collect(),
    )
    .unwrap();
    let graphs = [
        zero,
        generate(200, 1200, 4).unwrap(),
        generate(1000, 6000, 5).unwrap(),
    ];
    for g in &graphs {
        let v = g.vertices;
        let (expect, _) = cpu::solve(g).unwrap();
        for p in probe_items(&gpu, g, 2).unwrap() {
            assert!(
                p.correct && p.closure_cycles > 0.0,
                "{} at V = {v}",
                p.kernel
            );
        }
        for cfg in SMALL_PROBES.iter().filter(|c| {
            matches!(
                c.kind,
                SmallProbeKind::Trace | SmallProbeKind::StripTrace { .. }
            )
        }) {
            let t = trace(&gpu, g, cfg, &expect, 1).unwrap();
            assert!(t.identical, "{} at V = {v}", cfg.kernel);
            // Item 0 and one closing item per later round (of a strip kernel, the strip that
            // closed), each found in the trace.
            assert_eq!(
                t.close_items.items,
                v.div_ceil(64),
                "{} at V = {v}",
                cfg.kernel
            );
        }
    }
}

#[test]
fn a_held_stream_gives_the_same_distances() {
    let Some(gpu) = gpu_for_test("a_held_stream_gives_the_same_distances") else {
        return;
    };
    // The hold kernel before the start event (`host apsp-small --hold-us`) changes the timing
    // only.
    let g = generate(777, 777 * 6, 9).unwrap();
    let (expect, _) = cpu::solve(&g).unwrap();
    for s in [
        Schedule::Launches,
        Schedule::Flow64,
        Schedule::Pull64x8,
        Schedule::Pull32,
        Schedule::Strips4,
    ] {
        let sol = agpu::start_on_device_held(&gpu, &g, 64, s, 300_000)
            .and_then(|r| r.finish())
            .unwrap_or_else(|e| panic!("{s:?}: {e:#}"));
        let mut d = vec![0; g.vertices * g.vertices];
        sol.copy_rows(0, &mut d).unwrap();
        assert!(d == expect, "{s:?}");
    }
}

#[test]
fn every_batch_graph_equals_the_one_graph_solver_and_the_cpu() {
    let Some(gpu) = gpu_for_test("every_batch_graph_equals_the_one_graph_solver_and_the_cpu")
    else {
        return;
    };
    // Every size class, its edges, the batched blocked classes and graphs for the one-graph
    // solver above them.
    let sizes = [
        1usize, 2, 5, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 300, 512, 7, 128, 192, 193, 256,
        511, 513, 700, 200,
    ];
    let graphs: Vec<Graph> = sizes
        .iter()
        .enumerate()
        .map(|(i, &v)| generate(v, (v * 5).min(v * (v - 1)), i as u64).unwrap())
        .collect();
    let (got, times) = solve_batch(&gpu, &graphs).unwrap();
    assert_eq!(got.len(), graphs.len());
    assert!(times.launches >= 3 && times.single == 2, "{times:?}");
    // Classes 192, 256, 320, 512: 3, 4, 5 and 8 rounds of 3 launches.
    assert_eq!(times.blocked_launches, 3 * (3 + 4 + 5 + 8), "{times:?}");
    for (g, d) in graphs.iter().zip(&got) {
        let one = agpu::solve(&gpu, g, 64).unwrap();
        let one = Distances::from_pitched(g.vertices, one.pitch, &one.dist);
        assert!(
            d.as_slice() == one.as_slice(),
            "V = {}: batch vs one graph",
            g.vertices
        );
        let (cpu, _) = cpu::solve(g).unwrap();
        assert!(d.as_slice() == &cpu[..], "V = {}: batch vs CPU", g.vertices);
    }
    // Thousands per launch.
    let many: Vec<Graph> = (0..3000)
        .map(|i| generate(128, 600, 1000 + i).unwrap())
        .collect();
    let (got, times) = solve_batch(&gpu, &many).unwrap();
    assert_eq!((times.launches, times.single), (2, 0));
    for i in [0, 1, 2047, 2048, 2999] {
        let (cpu, _) = cpu::solve(&many[i]).unwrap();
        assert!(got[i].as_slice() == &cpu[..], "graph {i}");
    }
    // Thousands per launch of the blocked algorithm, graphs of different V in one class.
    let many: Vec<Graph> = (0..2100)
        .map(|i| generate(257 + i % 63, 1500, 5000 + i as u64).unwrap())
        .collect();
    let (got, times) = solve_batch(&gpu, &many).unwrap();
    assert_eq!(
        (times.launches, times.blocked_launches, times.single),
        (0, 30, 0)
    );
    for i in [0, 1, 62, 2047, 2048, 2099] {
        let (cpu, _) = cpu::solve(&many[i]).unwrap();
        assert!(got[i].as_slice() == &cpu[..], "blocked graph {i}");
    }
}

#[test]
fn every_batch_kernel_variant_equals_the_cpu() {
    let Some(gpu) = gpu_for_test("every_batch_kernel_variant_equals_the_cpu") else {
        return;
    };
    for c in gpu_kernels::apsp::BATCH_KERNELS {
        let n = c.n as usize;
        // The class's edges and a zero-weight chain with unreachable vertices.
        let mut graphs: Vec<Graph> = [n / 2 + 1, n - 3, n]
            .into_iter()
            .enumerate()
            .map(|(i, v)| generate(v, v * 5, 77 + i as u64).unwrap())
            .collect();
        let chain = (0..n as i32 - 9)
            .map(|s| Edge {
                src: s,
                dst: s + 1,
                w: (s % 4 == 0) as i32 * 3,
            })
            .collect();
        graphs.push(Graph::from_edges(n, chain).unwrap());
        let (got, times) = solve_batch_with(&gpu, &graphs, Some(c)).unwrap();
        assert_eq!((times.launches, times.single), (1, 0), "{}", c.kernel);
        for (g, d) in graphs.iter().zip(&got) {
            let (cpu, _) = cpu::solve(g).unwrap();
            assert!(
                d.as_slice() == &cpu[..],
                "{} at V = {}",
                c.kernel,
                g.vertices
            );
        }
    }
}

#[test]
fn apsp_batch_files_on_the_gpu_equal_the_reference() {
    let Some(_gpu) = gpu_for_test("apsp_batch_files_on_the_gpu_equal_the_reference") else {
        return;
    };
    let s = Scratch::new();
    std::fs::create_dir(s.path("in")).unwrap();
    for (i, v) in [5usize, 64, 100, 128, 200, 600].into_iter().enumerate() {
        write_graph(
            &s.path(&format!("in/g{i}.in")),
            &generate(v, v * 4, i as u64).unwrap(),
        )
        .unwrap();
    }
    s.host(&["apsp-batch", "in", "-o", "out", "--quiet"])
        .expect(0);
    for i in 0..6 {
        let got = std::fs::read(s.path(&format!("out/g{i}.out"))).unwrap();
        assert!(
            got == reference_output(&s.path(&format!("in/g{i}.in"))),
            "g{i}"
        );
    }
}
