//! Checks an APSP answer against an independent CPU answer: the whole CPU Floyd–Warshall for
//! small graphs, Dijkstra from random sources for large ones.
use anyhow::{Result, bail};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{
    cpu::{self, Adjacency},
    format::Graph,
};

/// Above this V, verification checks Dijkstra rows instead of a full CPU Floyd–Warshall.
pub const FULL_VERIFY_MAX: usize = 4000;
/// Rows checked with Dijkstra above `FULL_VERIFY_MAX`.
pub const VERIFY_SOURCES: usize = 64;

/// Compares `dist` (rows of `pitch`) with an independent CPU answer: the whole CPU
/// Floyd–Warshall for V ≤ FULL_VERIFY_MAX, else Dijkstra from VERIFY_SOURCES random sources.
pub fn verify_against_cpu(graph: &Graph, dist: &[i32], pitch: usize) -> Result<String> {
    let v = graph.vertices;
    verify_rows(graph, |i| Ok(dist[i * pitch..i * pitch + v].to_vec()))
}

/// [`verify_against_cpu`] for a result that is read a row at a time (`row(i)`: the V distances
/// from `i`), such as one still on the GPU: it asks only for the rows it checks.
pub fn verify_rows(
    graph: &Graph,
    mut row: impl FnMut(usize) -> Result<Vec<i32>>,
) -> Result<String> {
    let v = graph.vertices;
    if v <= FULL_VERIFY_MAX {
        let (expect, _) = cpu::solve(graph)?;
        for i in 0..v {
            let got = row(i)?;
            if let Some(j) = (0..v).find(|&j| got[j] != expect[i * v + j]) {
                bail!(
                    "verification failed: d[{i}][{j}] = {} but the CPU Floyd–Warshall says {}",
                    got[j],
                    expect[i * v + j]
                );
            }
        }
        return Ok(format!("all {v} rows equal the CPU Floyd–Warshall"));
    }
    let adjacency = Adjacency::new(graph);
    let mut rng = ChaCha8Rng::seed_from_u64(v as u64);
    for _ in 0..VERIFY_SOURCES {
        let s = rng.gen_range(0..v);
        let expect = cpu::dijkstra(graph, &adjacency, s);
        let got = row(s)?;
        if let Some(j) = (0..v).find(|&j| got[j] != expect[j]) {
            bail!(
                "verification failed: d[{s}][{j}] = {} but Dijkstra says {}",
                got[j],
                expect[j]
            );
        }
    }
    Ok(format!("{VERIFY_SOURCES} random rows equal Dijkstra"))
}
