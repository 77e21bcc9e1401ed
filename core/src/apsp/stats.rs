//! Graph statistics from all-pairs distances (`host apsp --stats`), as networkx defines them
//! for directed graphs with edge weights as distances:
//!
//! - eccentricity of u: the largest d(u, v), outgoing (`networkx.eccentricity`);
//! - closeness of u: `(n−1)/Σ d(v, u) · (n−1)/(N−1)` over the n − 1 vertices v that reach u,
//!   incoming distances, with the Wasserman–Faust scaling (`closeness_centrality`,
//!   `wf_improved=True`); 0 when that sum is 0 (no vertex reaches u, or only over zero-weight
//!   paths) or N = 1, as networkx;
//! - harmonic centrality of u: Σ 1/d(v, u) over v with 0 < d(v, u) < ∞, incoming
//!   (`harmonic_centrality`, which also skips d = 0);
//! - diameter and radius: the largest and smallest eccentricity; average shortest-path
//!   length: Σ d(u, v) / (N(N − 1)) over ordered pairs u ≠ v (`average_shortest_path_length`).
//!
//! networkx raises on eccentricity, diameter, radius and the average when the graph is not
//! strongly connected. Here they are taken over the pairs with a path instead: eccentricity
//! is the largest *finite* distance from u, the average divides by the number of ordered pairs
//! with a path, and `unreachable_pairs` (0 exactly when the graph is strongly connected) says
//! how many pairs were left out. On a strongly connected graph every value is networkx's.
//!
//! Computing goes in two steps: per-vertex sums ([`VertexSums`]: exact integer counts and sums,
//! and the f64 sum of reciprocals) from the matrix — [`sums_cpu`] here, `apsp_stats_*` on the
//! GPU — then [`Stats::from_sums`], shared by both.
use std::{io::Write, path::Path};

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::{INF, format::write_atomically};

/// What the statistics need of the distances, per vertex u (counts include u itself, whose
/// distance 0 adds nothing to the sums).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VertexSums {
    /// max d(u, v) over the v that u reaches.
    pub out_max: u32,
    /// Vertices u reaches.
    pub out_count: u32,
    /// Σ d(u, v) over the v that u reaches.
    pub out_sum: u64,
    /// Vertices that reach u.
    pub in_count: u32,
    /// Σ d(v, u) over the v that reach u.
    pub in_sum: u64,
    /// Σ 1/d(v, u) over the v that reach u at a distance above 0.
    pub in_harmonic: f64,
}

/// The CPU reference of the per-vertex sums, from the first `v` rows and columns of a matrix
/// with row pitch `pitch`: rows in parallel for the outgoing side; the incoming side walks the
/// rows in order and adds each into per-column accumulators (harmonic terms in f64, each
/// `1/d` rounded once).
pub fn sums_cpu(dist: &[i32], v: usize, pitch: usize) -> Vec<VertexSums> {
    assert!(pitch >= v && dist.len() >= v.saturating_sub(1) * pitch + v);
    let row = |i: usize| &dist[i * pitch..i * pitch + v];
    let mut sums: Vec<VertexSums> = (0..v)
        .into_par_iter()
        .map(|i| {
            let mut s = VertexSums::default();
            for &d in row(i).iter().filter(|&&d| d < INF) {
                s.out_max = s.out_max.max(d as u32);
                s.out_count += 1;
                s.out_sum += d as u64;
            }
            s
        })
        .collect();
    // Incoming: columns split between threads, each walking every row of its columns.
    let cols = (v / rayon::current_num_threads().max(1)).clamp(1, 4096);
    sums.par_chunks_mut(cols)
        .enumerate()
        .for_each(|(c, chunk)| {
            let columns = c * cols..c * cols + chunk.len();
            for i in 0..v {
                for (s, &d) in chunk.iter_mut().zip(&row(i)[columns.clone()]) {
                    if d < INF {
                        s.in_count += 1;
                        s.in_sum += d as u64;
                        if d > 0 {
                            s.in_harmonic += 1.0 / d as f64;
                        }
                    }
                }
            }
        });
    sums
}

/// One vertex's statistics: a row of the CSV.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexStats {
    pub vertex: usize,
    /// The largest finite distance from the vertex (networkx's eccentricity when it reaches
    /// every vertex).
    pub eccentricity: u32,
    /// Vertices other than itself that the vertex reaches.
    pub reachable: u32,
    /// Vertices other than itself that reach the vertex.
    pub reached_by: u32,
    pub closeness: f64,
    pub harmonic: f64,
}

/// The graph's statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    pub vertices: usize,
    /// The largest eccentricity.
    pub diameter: u32,
    /// The smallest eccentricity.
    pub radius: u32,
    /// Σ d(u, v) / (ordered pairs u ≠ v with a path); 0 when there are none.
    pub average_shortest_path_length: f64,
    /// Ordered pairs u ≠ v with a path from u to v.
    pub reachable_pairs: u64,
    /// Ordered pairs u ≠ v without one: N(N − 1) − `reachable_pairs`.
    pub unreachable_pairs: u64,
    /// Every vertex reaches every other (`unreachable_pairs == 0`): then every value is
    /// networkx's.
    pub strongly_connected: bool,
}

/// The statistics of a graph and of each of its vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub graph: GraphStats,
    pub vertices: Vec<VertexStats>,
}

impl Stats {
    /// The statistics from the per-vertex sums of a graph on `sums.len()` vertices.
    pub fn from_sums(sums: &[VertexSums]) -> Stats {
        let n = sums.len();
        let vertices: Vec<VertexStats> = sums
            .iter()
            .enumerate()
            .map(|(u, s)| VertexStats {
                vertex: u,
                eccentricity: s.out_max,
                reachable: s.out_count.saturating_sub(1),
                reached_by: s.in_count.saturating_sub(1),
                closeness: closeness(s.in_count.saturating_sub(1), s.in_sum, n),
                harmonic: s.in_harmonic,
            })
            .collect();
        let reachable_pairs: u64 = vertices.iter().map(|s| s.reachable as u64).sum();
        let total: u128 = sums.iter().map(|s| s.out_sum as u128).sum();
        let pairs = n as u64 * (n as u64).saturating_sub(1);
        let graph = GraphStats {
            vertices: n,
            diameter: vertices.iter().map(|s| s.eccentricity).max().unwrap_or(0),
            radius: vertices.iter().map(|s| s.eccentricity).min().unwrap_or(0),
            average_shortest_path_length: match reachable_pairs {
                0 => 0.0,
                p => total as f64 / p as f64,
            },
            reachable_pairs,
            unreachable_pairs: pairs - reachable_pairs,
            strongly_connected: reachable_pairs == pairs,
        };
        Stats { graph, vertices }
    }

    /// The statistics of the first `v` rows and columns of a matrix with row pitch `pitch`,
    /// on the CPU.
    pub fn from_distances(dist: &[i32], v: usize, pitch: usize) -> Stats {
        Stats::from_sums(&sums_cpu(dist, v, pitch))
    }

    /// Writes the per-vertex statistics as CSV (header line, one row per vertex; floats in the
    /// shortest form that reads back to the same f64), through a temporary file and a rename.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        write_atomically(path, |w| self.csv(w))
    }

    /// The CSV of [`Stats::write_csv`].
    pub fn csv(&self, w: &mut dyn Write) -> Result<()> {
        writeln!(w, "{CSV_HEADER}")?;
        for s in &self.vertices {
            writeln!(
                w,
                "{},{},{},{},{},{}",
                s.vertex, s.eccentricity, s.reachable, s.reached_by, s.closeness, s.harmonic
            )?;
        }
        Ok(())
    }
}

/// The header of the per-vertex CSV.
pub const CSV_HEADER: &str = "vertex,eccentricity,reachable,reached_by,closeness,harmonic";

/// networkx's closeness with `wf_improved=True`, in its order of operations (so that the f64
/// result is the same): `r` vertices reach u at distances summing to `sum`, of `n` in all.
fn closeness(r: u32, sum: u64, n: usize) -> f64 {
    if sum == 0 || n <= 1 {
        return 0.0;
    }
    let r = r as f64;
    (r / sum as f64) * (r / (n - 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apsp::{
        cpu,
        format::{Edge, Graph},
        random::generate,
    };

    /// Sums straight from the definitions, one vertex at a time.
    fn naive(dist: &[i32], v: usize) -> Vec<VertexSums> {
        (0..v)
            .map(|u| {
                let out: Vec<i32> = (0..v)
                    .map(|j| dist[u * v + j])
                    .filter(|&d| d < INF)
                    .collect();
                let inc: Vec<i32> = (0..v)
                    .map(|i| dist[i * v + u])
                    .filter(|&d| d < INF)
                    .collect();
                VertexSums {
                    out_max: out.iter().copied().max().unwrap_or(0) as u32,
                    out_count: out.len() as u32,
                    out_sum: out.iter().map(|&d| d as u64).sum(),
                    in_count: inc.len() as u32,
                    in_sum: inc.iter().map(|&d| d as u64).sum(),
                    in_harmonic: inc
                        .iter()
                        .filter(|&&d| d > 0)
                        .map(|&d| 1.0 / d as f64)
                        .sum(),
                }
            })
            .collect()
    }

    #[test]
    fn sums_equal_the_definitions_on_random_graphs() {
        for (v, e, seed) in [
            (1, 0, 1),
            (7, 10, 2),
            (60, 400, 3),
            (300, 900, 4),
            (130, 0, 5),
        ] {
            let g = generate(v, e, seed).unwrap();
            let (dist, _) = cpu::solve(&g).unwrap();
            let got = sums_cpu(&dist, v, v);
            let want = naive(&dist, v);
            for (u, (a, b)) in got.iter().zip(&want).enumerate() {
                let h = (a.in_harmonic - b.in_harmonic).abs();
                assert!(h <= 1e-12 * b.in_harmonic, "V={v} vertex {u}: {a:?} {b:?}");
                let exact = |s: &VertexSums| VertexSums {
                    in_harmonic: 0.0,
                    ..*s
                };
                assert_eq!(exact(a), exact(b), "V={v} vertex {u}");
            }
        }
    }

    #[test]
    fn pitched_rows_give_the_same_sums() {
        let g = generate(50, 300, 9).unwrap();
        let (dist, _) = cpu::solve(&g).unwrap();
        let pitch = 64;
        let mut padded = vec![INF; 50 * pitch];
        for i in 0..50 {
            padded[i * pitch..i * pitch + 50].copy_from_slice(&dist[i * 50..(i + 1) * 50]);
        }
        assert_eq!(sums_cpu(&padded, 50, pitch), sums_cpu(&dist, 50, 50));
    }

    #[test]
    fn a_graph_that_is_not_strongly_connected() {
        // 0 -> 1 -> 2, and 3 alone.
        let e = |src, dst, w| Edge { src, dst, w };
        let g = Graph::from_edges(4, vec![e(0, 1, 2), e(1, 2, 3)]).unwrap();
        let (dist, _) = cpu::solve(&g).unwrap();
        let s = Stats::from_distances(&dist, 4, 4);
        let ecc: Vec<u32> = s.vertices.iter().map(|v| v.eccentricity).collect();
        assert_eq!(ecc, [5, 3, 0, 0]);
        assert_eq!((s.graph.diameter, s.graph.radius), (5, 0));
        assert_eq!((s.graph.reachable_pairs, s.graph.unreachable_pairs), (3, 9));
        assert!(!s.graph.strongly_connected);
        assert_eq!(
            s.graph.average_shortest_path_length,
            (2 + 5 + 3) as f64 / 3.0
        );
        // Vertex 2 is reached by 0 (5) and 1 (3): (2/8)·(2/3).
        assert_eq!(s.vertices[2].closeness, (2.0 / 8.0) * (2.0 / 3.0));
        assert_eq!(s.vertices[2].harmonic, 1.0 / 5.0 + 1.0 / 3.0);
        assert_eq!(
            (s.vertices[0].closeness, s.vertices[3].harmonic),
            (0.0, 0.0)
        );
        let mut csv = Vec::new();
        s.csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert_eq!(csv.lines().count(), 5);
        assert_eq!(csv.lines().nth(1), Some("0,5,2,0,0,0"));
    }

    #[test]
    fn zero_weight_paths_count_as_reached_but_add_no_harmonic_term() {
        let e = |src, dst, w| Edge { src, dst, w };
        let g = Graph::from_edges(2, vec![e(0, 1, 0), e(1, 0, 0)]).unwrap();
        let (dist, _) = cpu::solve(&g).unwrap();
        let s = Stats::from_distances(&dist, 2, 2);
        assert_eq!(s.vertices[0].reached_by, 1);
        assert_eq!(
            (s.vertices[0].closeness, s.vertices[0].harmonic),
            (0.0, 0.0)
        );
        assert!(s.graph.strongly_connected);
        assert_eq!(s.graph.average_shortest_path_length, 0.0);
    }
}
