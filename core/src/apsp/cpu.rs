//! CPU references: multithreaded Floyd–Warshall on the padded matrix layout the GPU uses, and
//! an independent Dijkstra to cross-check it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::format::{Graph, INF, fill_distances};
use crate::memory;

/// Floyd–Warshall in place on the first `n` rows and columns of a matrix with row pitch `pitch`.
/// Entries must be in `0..=INF` (INF + INF still fits in an i32).
pub fn floyd_warshall(dist: &mut [i32], n: usize, pitch: usize) {
    if n == 0 {
        return;
    }
    assert!(pitch >= n, "pitch {pitch} < n {n}");
    assert!(
        dist.len() >= (n - 1) * pitch + n,
        "distance buffer too small for {n} rows"
    );
    // Keep each task at a few thousand cells so small matrices do not drown in scheduling.
    let min_rows = (8192 / n).max(1);
    let mut row_k = vec![0; n];
    for k in 0..n {
        // Row k does not change in round k (d[k][k] = 0), so a copy lets every row read it
        // while the rows are mutated in parallel.
        row_k.copy_from_slice(&dist[k * pitch..k * pitch + n]);
        let row_k = &row_k[..];
        dist.par_chunks_mut(pitch)
            .take(n)
            .with_min_len(min_rows)
            .for_each(|row| {
                let row = &mut row[..n];
                let d_ik = row[k];
                if d_ik >= INF {
                    return;
                }
                for (d_ij, &d_kj) in row.iter_mut().zip(row_k) {
                    *d_ij = (*d_ij).min(d_ik + d_kj);
                }
            });
    }
}

/// Compressed sparse rows of a graph: the out-edges of `v` are
/// `dst[offsets[v]..offsets[v + 1]]` with weights `w[..]` at the same indices.
#[derive(Clone, Debug)]
pub struct Adjacency {
    pub offsets: Vec<usize>,
    pub dst: Vec<u32>,
    pub w: Vec<i32>,
}

impl Adjacency {
    pub fn new(graph: &Graph) -> Self {
        let n = graph.vertices;
        let mut offsets = vec![0usize; n + 1];
        for e in &graph.edges {
            offsets[e.src as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets[..n].to_vec();
        let mut dst = vec![0u32; graph.edges.len()];
        let mut w = vec![0i32; graph.edges.len()];
        for e in &graph.edges {
            let slot = &mut next[e.src as usize];
            dst[*slot] = e.dst as u32;
            w[*slot] = e.w;
            *slot += 1;
        }
        Adjacency { offsets, dst, w }
    }
}

/// Single-source shortest paths with a binary heap; INF where unreachable. Repeated edges need
/// no special care: relaxing each of them leaves the smallest weight.
pub fn dijkstra(graph: &Graph, adjacency: &Adjacency, src: usize) -> Vec<i32> {
    let n = graph.vertices;
    assert_eq!(
        adjacency.offsets.len(),
        n + 1,
        "adjacency built for another graph"
    );
    assert!(src < n, "source {src} out of range for V = {n}");
    let mut dist = vec![INF; n];
    let mut heap = BinaryHeap::new();
    dist[src] = 0;
    heap.push(Reverse((0i32, src as u32)));
    while let Some(Reverse((d, u))) = heap.pop() {
        let u = u as usize;
        if d > dist[u] {
            continue;
        }
        let edges = adjacency.offsets[u]..adjacency.offsets[u + 1];
        for (&v, &w) in adjacency.dst[edges.clone()].iter().zip(&adjacency.w[edges]) {
            let nd = d + w;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist
}

/// A zeroed V x V matrix for the CPU solver, or one sentence naming the bytes it needs when
/// host memory cannot hold it (checked against the available memory, then allocated fallibly).
pub fn matrix(vertices: usize) -> Result<Vec<i32>> {
    let what = format!("the {vertices} x {vertices} distance matrix");
    let cells = vertices
        .checked_mul(vertices)
        .with_context(|| format!("{what} has more cells than this machine can address"))?;
    memory::zeroed_vec(&what, cells)
}

/// All-pairs distances with pitch = V, and the number of repeated edges; fails only when host
/// memory cannot hold the matrix ([`matrix`]).
pub fn solve(graph: &Graph) -> Result<(Vec<i32>, usize)> {
    let n = graph.vertices;
    let mut dist = matrix(n)?;
    let repeated = fill_distances(graph, n, n, &mut dist);
    floyd_warshall(&mut dist, n, n);
    Ok((dist, repeated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apsp::format::distance_pitch;
    use crate::apsp::random::generate;

    #[test]
    fn padded_layout_matches_dijkstra() {
        let g = generate(45, 120, 7).unwrap();
        let adj = Adjacency::new(&g);
        let padded = 64;
        let pitch = distance_pitch(padded + 1);
        let mut d = vec![0; padded * pitch];
        fill_distances(&g, padded, pitch, &mut d);
        floyd_warshall(&mut d, padded, pitch);
        for i in 0..padded {
            let row = &d[i * pitch..(i + 1) * pitch];
            if i < g.vertices {
                assert_eq!(&row[..g.vertices], &dijkstra(&g, &adj, i)[..], "row {i}");
            }
            for (j, &x) in row.iter().enumerate() {
                if j >= g.vertices || i >= g.vertices {
                    assert_eq!(x, if i == j { 0 } else { INF }, "padding cell ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn adjacency_keeps_every_edge() {
        let g = generate(30, 200, 3).unwrap();
        let adj = Adjacency::new(&g);
        assert_eq!(adj.offsets[g.vertices], g.edges.len());
        let mut from_csr: Vec<(i32, i32, i32)> = (0..g.vertices)
            .flat_map(|u| {
                let adj = &adj;
                (adj.offsets[u]..adj.offsets[u + 1])
                    .map(move |s| (u as i32, adj.dst[s] as i32, adj.w[s]))
            })
            .collect();
        let mut from_graph: Vec<_> = g.edges.iter().map(|e| (e.src, e.dst, e.w)).collect();
        from_csr.sort_unstable();
        from_graph.sort_unstable();
        assert_eq!(from_csr, from_graph);
    }
}
