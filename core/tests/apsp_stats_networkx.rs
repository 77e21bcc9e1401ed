//! The CPU statistics (`rgk_core::apsp::stats`) against networkx's values for small fixed
//! graphs, committed in tests/data/apsp_stats_networkx.json by scripts/stats-fixture.py.
//! closeness and harmonic are networkx's on every graph; eccentricity, diameter, radius and
//! the average are networkx's on the strongly connected ones and the documented extension
//! (over pairs with a path, computed from networkx's path lengths) on the others.
use rgk_core::apsp::{
    cpu,
    format::{Edge, Graph},
    stats::Stats,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Fixture {
    networkx: String,
    graphs: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    vertices: usize,
    edges: Vec<[i32; 3]>,
    strongly_connected: bool,
    eccentricity: Vec<u32>,
    closeness: Vec<f64>,
    harmonic: Vec<f64>,
    diameter: u32,
    radius: u32,
    average_shortest_path_length: f64,
    unreachable_pairs: u64,
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

#[test]
fn cpu_statistics_equal_networkx() {
    let text = include_str!("data/apsp_stats_networkx.json");
    let fixture: Fixture = serde_json::from_str(text).unwrap();
    assert!(fixture.graphs.len() >= 8, "networkx {}", fixture.networkx);
    assert!(fixture.graphs.iter().any(|c| !c.strongly_connected));
    for case in &fixture.graphs {
        let edges = case
            .edges
            .iter()
            .map(|&[src, dst, w]| Edge { src, dst, w })
            .collect();
        let graph = Graph::from_edges(case.vertices, edges).unwrap();
        let (dist, _) = cpu::solve(&graph).unwrap();
        let s = Stats::from_distances(&dist, case.vertices, case.vertices);
        let name = &case.name;
        let g = &s.graph;
        assert_eq!(g.strongly_connected, case.strongly_connected, "{name}");
        assert_eq!(g.unreachable_pairs, case.unreachable_pairs, "{name}");
        assert_eq!(
            (g.diameter, g.radius),
            (case.diameter, case.radius),
            "{name}"
        );
        assert!(
            close(
                g.average_shortest_path_length,
                case.average_shortest_path_length
            ),
            "{name}: average {} vs networkx {}",
            g.average_shortest_path_length,
            case.average_shortest_path_length
        );
        for (u, v) in s.vertices.iter().enumerate() {
            assert_eq!(v.eccentricity, case.eccentricity[u], "{name}: vertex {u}");
            assert!(
                close(v.closeness, case.closeness[u]),
                "{name}: closeness of {u}: {} vs networkx {}",
                v.closeness,
                case.closeness[u]
            );
            assert!(
                close(v.harmonic, case.harmonic[u]),
                "{name}: harmonic of {u}: {} vs networkx {}",
                v.harmonic,
                case.harmonic[u]
            );
        }
    }
}
