//! All-pairs shortest paths of an in-memory graph with the library API: on the GPU when there
//! is one, on the CPU otherwise, and the two compared when both run.
//!
//! `cargo run -p host --release --example apsp`
use std::process::ExitCode;

use rgk_core::apsp::{
    INF,
    format::{Edge, Graph},
    solve_cpu,
};

fn main() -> ExitCode {
    // A ring 0 → 1 → … → 9 → 0 with weight 3, one shortcut 0 → 5, and an isolated vertex 10.
    let mut edges: Vec<Edge> = (0..10)
        .map(|i| Edge {
            src: i,
            dst: (i + 1) % 10,
            w: 3,
        })
        .collect();
    edges.push(Edge {
        src: 0,
        dst: 5,
        w: 4,
    });
    let graph = match Graph::from_edges(11, edges) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };

    let cpu = match solve_cpu(&graph) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "CPU: d(0,9) = {}, d(9,5) = {}, 10 reachable from 0: {}",
        cpu.get(0, 9),
        cpu.get(9, 5),
        cpu.get(0, 10) != INF
    );
    match host::Gpu::new(None).and_then(|gpu| host::apsp(&gpu, &graph)) {
        Ok(gpu) => {
            println!(
                "GPU: d(0,9) = {}, same matrix as the CPU: {}",
                gpu.get(0, 9),
                gpu == cpu
            );
            if gpu != cpu {
                return ExitCode::FAILURE;
            }
        }
        Err(host::Error::NoGpu(why)) => println!("GPU: skipped ({why})"),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
