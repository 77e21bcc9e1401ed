//! Out-of-core Floyd–Warshall (`host apsp --device-memory-limit`) against the in-core solver:
//! byte-identical matrices on random graphs and odd V, with several super-blocks per side.
//! Without a GPU the tests print "SKIPPED …" and pass.
mod common;

use common::Scratch;
use host::{
    apsp::{gpu as agpu, ooc},
    gpu::gpu_for_test,
};
use rgk_core::apsp::{
    format::write_graph,
    ooc::{Mode, Plan},
    random::generate,
};

#[test]
fn out_of_core_equals_in_core_byte_for_byte() {
    let Some(gpu) = gpu_for_test("out_of_core_equals_in_core_byte_for_byte") else {
        return;
    };
    // (V, E, S): odd V, super-blocks that do not divide the matrix, one block each, no edges.
    for (seed, (v, e, s)) in [
        (1001, 30_000, 3),
        (517, 4000, 1),
        (1500, 0, 4),
        (2049, 90_000, 5),
    ]
    .into_iter()
    .enumerate()
    {
        let graph = generate(v, e, seed as u64 + 3).unwrap();
        let inc = agpu::solve(&gpu, &graph, 64).unwrap();
        let plan = Plan::new(v, 64, s);
        assert!(plan.count() >= 3, "V = {v}: several super-blocks per side");
        let sol = ooc::solve(&gpu, &graph, plan).unwrap_or_else(|e| panic!("V = {v}: {e:#}"));
        assert_eq!((inc.padded, inc.pitch), (plan.padded, plan.pitch));
        let host = sol.matrix();
        if let Some(i) = (0..v).find(|&i| {
            let r = i * plan.pitch..i * plan.pitch + plan.padded;
            host[r.clone()] != inc.dist[r]
        }) {
            panic!("V = {v}, S = {s}: row {i} differs from in-core");
        }
    }
}

#[test]
fn a_tiny_limit_chooses_out_of_core_and_the_files_are_identical() {
    let test = "a_tiny_limit_chooses_out_of_core_and_the_files_are_identical";
    let Some(gpu) = gpu_for_test(test) else {
        return;
    };
    let graph = generate(777, 20_000, 5).unwrap();
    // The 832 x 832 padded matrix (2.6 MiB) fits in 64 MiB, not in 1 MiB.
    assert_eq!(
        ooc::choose(&graph, 64, Some(64 << 20)).unwrap(),
        Mode::InCore
    );
    let Mode::OutOfCore(plan) = ooc::choose(&graph, 64, Some(1 << 20)).unwrap() else {
        panic!("1 MiB holds no 832 x 832 matrix");
    };
    assert!(plan.count() >= 2, "{plan:?}");
    drop(gpu);
    let s = Scratch::new();
    let input = s.path("g.bin");
    write_graph(&input, &graph).unwrap();
    let (a, b) = (s.path("in.out"), s.path("ooc.out"));
    let (ia, ib) = (input.to_str().unwrap(), a.to_str().unwrap());
    s.host(&["apsp", ia, "-o", ib, "--no-peak"]).expect(0);
    let run = s
        .host(&[
            "apsp",
            ia,
            "-o",
            b.to_str().unwrap(),
            "--no-peak",
            "--json",
            "--device-memory-limit",
            "1MiB",
        ])
        .expect(0);
    let json = run.json();
    let ooc = &json["results"]["out_of_core"];
    assert!(ooc["rounds"].as_u64().unwrap() >= 2, "{json}");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}
