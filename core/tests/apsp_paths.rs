//! The CPU reference with paths: every reconstructed path is made of edges and is as long as its
//! distance, and the distances are those of the distance-only solver; on random graphs, graphs
//! with zero-weight edges and many ties, and the course cases.
use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::apsp::{
    cpu::solve,
    format::{Edge, Graph, read_graph},
    paths::{
        NO_PREDECESSOR, NO_SUCCESSOR, PathKind,
        blocked::solve_blocked,
        check_paths,
        cpu::solve_paths,
        file::{PathFile, write_path_matrix},
        zero_weight_cycle,
    },
    random::generate,
};

/// Solves `g` with both kinds and checks them against the graph and the distance-only solver.
fn check(g: &Graph, what: &str) {
    let (want, _) = solve(g).unwrap();
    let v = g.vertices;
    for kind in PathKind::ALL {
        let (d, p) = solve_paths(g, kind).unwrap();
        assert_eq!(d.as_slice(), &want[..], "{what}, {kind:?}: distances");
        check_paths(g, &p, 0..v, |i, j| want[i * v + j])
            .unwrap_or_else(|e| panic!("{what}, {kind:?}: {e:#}"));
        // The GPU kernels' order of updates, at block factors small enough for many rounds; on
        // a graph with a cycle of zero-weight edges the GPU refuses --paths.
        if zero_weight_cycle(g).is_some() {
            continue;
        }
        for b in [4, 16, 64] {
            let (bd, bp) = solve_blocked(g, kind, b);
            assert_eq!(bd, want, "{what}, {kind:?}, blocked {b}: distances");
            check_paths(g, &bp, 0..v, |i, j| want[i * v + j])
                .unwrap_or_else(|e| panic!("{what}, {kind:?}, blocked {b}: {e:#}"));
        }
        for i in 0..v {
            let diag = p.get(i, i);
            match kind {
                PathKind::Successors => assert_eq!(diag, i as i32),
                PathKind::Predecessors => assert_eq!(diag, NO_PREDECESSOR),
            }
            for j in 0..v {
                if i != j && d.get(i, j) == rgk_core::apsp::INF {
                    assert_eq!(p.get(i, j), kind.none(), "{what}: ({i}, {j})");
                }
            }
        }
    }
}

/// A graph with weights drawn from `weights` (zero included: ties and zero-weight cycles).
fn graph_with_weights(v: usize, e: usize, weights: &[i32], seed: u64) -> Graph {
    with_weights(v, e, weights, seed, true)
}

/// As [`graph_with_weights`]; without `zero_cycles`, a zero weight only on edges from a lower to
/// a higher vertex (no cycle of zero-weight edges; the others get weight 1).
fn with_weights(v: usize, e: usize, weights: &[i32], seed: u64, zero_cycles: bool) -> Graph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let edges = (0..e)
        .filter_map(|_| {
            let (src, dst) = (rng.gen_range(0..v) as i32, rng.gen_range(0..v) as i32);
            let w = weights[rng.gen_range(0..weights.len())];
            let w = if w == 0 && !zero_cycles && src > dst {
                1
            } else {
                w
            };
            (src != dst).then_some(Edge { src, dst, w })
        })
        .collect();
    Graph::from_edges(v, edges).unwrap()
}

#[test]
fn random_graphs_give_valid_paths() {
    for (v, e, seed) in [
        (1, 0, 1),
        (2, 1, 2),
        (37, 150, 3),
        (64, 600, 4),
        (97, 300, 5),
        (130, 2000, 6),
    ] {
        check(&generate(v, e, seed).unwrap(), &format!("V={v} E={e}"));
    }
}

#[test]
fn zero_weights_and_ties_give_valid_paths() {
    for (v, e, w, seed) in [
        (40, 400, &[0, 1][..], 7),
        (70, 300, &[0][..], 8),
        (90, 900, &[0, 0, 2, 4][..], 9),
        (65, 2000, &[1][..], 10),
    ] {
        check(
            &graph_with_weights(v, e, w, seed),
            &format!("V={v} weights {w:?}"),
        );
    }
    // A zero-weight cycle with a way out: 0 -> 1 -> 2 -> 0 free, 2 -> 3 costs 5.
    let cyc = Graph::from_edges(
        4,
        [(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 3, 5), (1, 3, 5)]
            .map(|(src, dst, w)| Edge { src, dst, w })
            .to_vec(),
    )
    .unwrap();
    check(&cyc, "zero cycle");
}

#[test]
fn unreachable_pairs_have_no_path() {
    let g = Graph::from_edges(
        3,
        vec![Edge {
            src: 0,
            dst: 1,
            w: 4,
        }],
    )
    .unwrap();
    let (_, s) = solve_paths(&g, PathKind::Successors).unwrap();
    assert_eq!(
        (s.get(0, 1), s.get(1, 0), s.get(0, 2)),
        (1, NO_SUCCESSOR, NO_SUCCESSOR)
    );
    assert_eq!(s.path(1, 0).unwrap(), None);
    assert_eq!(s.path(2, 2).unwrap(), Some(vec![2]));
    let e = s.path(0, 3).unwrap_err();
    assert!(e.to_string().contains("target vertex 3 is outside"), "{e}");
}

#[test]
fn the_file_answers_like_the_matrix() {
    let g = graph_with_weights(50, 400, &[0, 1, 3], 11);
    let dir = tempfile::tempdir().unwrap();
    for kind in PathKind::ALL {
        let (_, p) = solve_paths(&g, kind).unwrap();
        let f = dir.path().join(kind.name());
        write_path_matrix(&f, &p).unwrap();
        let file = PathFile::open(&f).unwrap();
        assert_eq!((file.kind, file.vertices), (kind, 50));
        for (u, v) in [(0, 49), (3, 17), (20, 20), (49, 0)] {
            assert_eq!(
                file.path(u, v).unwrap(),
                p.path(u, v).unwrap(),
                "{kind:?} {u} {v}"
            );
        }
    }
}

#[test]
fn a_matrix_with_a_cycle_is_refused_not_looped() {
    let m = rgk_core::apsp::paths::PathMatrix {
        kind: PathKind::Successors,
        vertices: 3,
        cells: vec![0, 1, 1, 0, 1, 0, 0, 0, 2],
    };
    let e = m.path(0, 2).unwrap_err();
    assert!(e.to_string().contains("does not describe a path"), "{e}");
}

#[test]
fn course_cases_give_valid_paths() {
    let Some(dir) = rgk_core::testdata::apsp_cases_for_test("course_cases_give_valid_paths") else {
        return;
    };
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "in"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no *.in files in {}", dir.display());
    for input in &inputs {
        let g = read_graph(input).unwrap();
        check(&g, &input.display().to_string());
    }
}

#[test]
fn the_blocked_order_gives_valid_paths_with_zero_weights_but_no_zero_cycle() {
    for seed in 0..300u64 {
        let v = 5 + (seed as usize * 7) % 40;
        let g = with_weights(v, 4 * v, &[0, 0, 1, 2], 1000 + seed, false);
        assert_eq!(zero_weight_cycle(&g), None);
        let (want, _) = solve(&g).unwrap();
        for kind in PathKind::ALL {
            for b in [2, 4, 8] {
                let (d, p) = solve_blocked(&g, kind, b);
                assert_eq!(d, want, "seed {seed}");
                check_paths(&g, &p, 0..v, |i, j| want[i * v + j])
                    .unwrap_or_else(|e| panic!("seed {seed}, {kind:?}, block {b}: {e:#}"));
            }
        }
    }
}

#[test]
fn zero_weight_cycles_are_found() {
    let e = |src, dst, w| Edge { src, dst, w };
    let cyc = Graph::from_edges(4, vec![e(0, 1, 0), e(1, 2, 0), e(2, 3, 1), e(2, 0, 0)]).unwrap();
    let (u, v) = zero_weight_cycle(&cyc).unwrap();
    assert!([(0, 1), (1, 2), (2, 0)].contains(&(u, v)), "{u} {v}");
    let no = Graph::from_edges(3, vec![e(0, 1, 0), e(1, 2, 0), e(2, 0, 5)]).unwrap();
    assert_eq!(zero_weight_cycle(&no), None);
    for seed in 0..50 {
        let g = graph_with_weights(30, 120, &[0, 1], seed);
        // The independent check: a vertex reaches itself over zero-weight edges of length ≥ 1.
        let zero = Graph {
            vertices: 30,
            edges: g.edges.iter().filter(|e| e.w == 0).copied().collect(),
        };
        let (d, _) = solve(&Graph {
            edges: zero.edges.iter().map(|e| Edge { w: 1, ..*e }).collect(),
            ..zero
        })
        .unwrap();
        let has = (0..30).any(|i| zero_reaches_itself(&g, i, &d));
        assert_eq!(zero_weight_cycle(&g).is_some(), has, "seed {seed}");
    }
}

/// Whether some zero-weight edge `i -> j` has a zero-weight path back (`hops`: distances over
/// the zero-weight edges, each counted 1).
fn zero_reaches_itself(g: &Graph, i: usize, hops: &[i32]) -> bool {
    g.edges.iter().any(|e| {
        e.w == 0 && e.src as usize == i && hops[e.dst as usize * 30 + i] < rgk_core::apsp::INF
    })
}
