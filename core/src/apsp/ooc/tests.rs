use super::*;
use crate::apsp::{
    cpu::floyd_warshall,
    format::{Graph, fill_distances},
    random::generate,
};

/// The padded matrix of `graph` for `plan`, as the solvers start from.
fn initial(graph: &Graph, plan: &Plan) -> Vec<i32> {
    let mut d = vec![0; plan.len_of(Buf::Host)];
    fill_distances(graph, plan.padded, plan.pitch, &mut d);
    d
}

#[test]
fn the_schedule_on_the_cpu_equals_in_core_floyd_warshall_byte_for_byte() {
    // (V, E, B, S): odd V, one block per super-block, super-blocks that do not divide the
    // matrix, a single super-block (the cross is everything), no edges.
    let cases = [
        (1, 0, 4, 1),
        (37, 300, 4, 2),
        (61, 0, 4, 3),
        (64, 500, 8, 3),
        (101, 2000, 8, 4),
        (130, 900, 8, 5),
        (130, 900, 8, 17),
        (150, 4000, 16, 2),
        (200, 1500, 8, 1),
    ];
    for (seed, (v, e, b, s)) in cases.into_iter().enumerate() {
        let graph = generate(v, e, seed as u64 + 7).unwrap();
        let plan = Plan::new(v, b, s);
        let mut expected = initial(&graph, &plan);
        floyd_warshall(&mut expected, plan.padded, plan.pitch);
        let mut got = initial(&graph, &plan);
        run_on_cpu(&plan, &mut got).unwrap();
        assert!(
            got == expected,
            "V = {v}, B = {b}, S = {s}: differs from in-core"
        );
    }
}

#[test]
fn every_round_counts_every_block_once_and_the_copies_cover_the_matrix() {
    for (v, b, s) in [(200, 8, 3), (1000, 64, 4), (60000, 64, 100)] {
        let plan = Plan::new(v, b, s);
        let (n, side) = (plan.padded as u64, plan.block as u64);
        let mut updates = 0.0;
        for k in 0..plan.count() {
            let c = plan.round_cost(k);
            let sk = plan.blocks_of(k).len() as u64 * side;
            assert_eq!(c.tiles_in, (n - sk).pow(2) * 4, "{v} {k}");
            assert_eq!(c.tiles_out, c.tiles_in);
            assert_eq!(c.cross_in, (sk * n + (n - sk) * sk) * 4);
            assert_eq!(c.cross_out, c.cross_in);
            updates += c.cross_updates + c.tile_updates;
        }
        // The in-core solver's add-mins: every block, every round.
        assert_eq!(updates, (n as f64).powi(3), "V = {v}");
    }
}

#[test]
fn the_budget_picks_the_largest_super_blocks_that_fit() {
    let v = 60000;
    for gib in [1u64, 4, 8, 16] {
        let budget = gib << 30;
        let plan = Plan::for_budget(v, 64, budget).unwrap();
        assert!(plan.device_bytes() <= budget);
        let bigger = Plan::new(v, 64, plan.s + 1);
        assert!(
            bigger.s == plan.s || bigger.device_bytes() > budget,
            "{gib} GiB"
        );
    }
    let err = Plan::for_budget(v, 64, 1 << 20).unwrap_err().to_string();
    assert!(
        err.contains("V = 60000 out of core needs at least") && err.contains("1.00 MiB"),
        "{err}"
    );
    // The whole matrix plus its edges decides in-core against out-of-core.
    let whole = in_core_bytes(v, 64, 12 << 20);
    assert_eq!(Mode::choose(v, 64, 12 << 20, whole).unwrap(), Mode::InCore);
    assert!(
        matches!(Mode::choose(v, 64, 12 << 20, whole - 1).unwrap(), Mode::OutOfCore(p) if p.s > 1)
    );
}

#[test]
fn at_4_gib_and_60000_vertices_the_link_keeps_up_with_the_kernels() {
    // The model of docs/apsp-scale.md: 53 GB/s pinned each way, 1.58e13 add-mins/s.
    let model = CostModel {
        link_bytes_per_s: 53e9,
        updates_per_s: 1.58e13,
    };
    let plan = Plan::for_budget(60000, 64, 4 << 30).unwrap();
    let total: f64 = (0..plan.count())
        .map(|k| model.round_seconds(&plan.round_cost(k)))
        .sum();
    let in_core = (plan.padded as f64).powi(3) / model.updates_per_s;
    assert!(
        in_core / total > 0.8,
        "modelled {total} s against {in_core} s in core"
    );
}
