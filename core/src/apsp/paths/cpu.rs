//! The CPU reference with paths: multithreaded Floyd–Warshall carrying a successor or
//! predecessor matrix beside the distances, in the padded layout the GPU uses.
use anyhow::Result;
use rayon::prelude::*;

use super::{PathKind, PathMatrix};
use crate::apsp::{
    Distances, cpu,
    format::{Graph, INF, fill_distances},
};

/// The path matrix before any relaxation, from the initial distances (edges' smallest weights,
/// zero diagonal, INF elsewhere): the diagonal's cell, the edge's cell where `dist` is finite,
/// "none" elsewhere. The GPU's `apsp_init_paths` applies the same rule.
pub fn init_paths(kind: PathKind, dist: &[i32], n: usize, pitch: usize, paths: &mut [i32]) {
    paths
        .par_chunks_mut(pitch)
        .zip(dist.par_chunks(pitch))
        .take(n)
        .enumerate()
        .for_each(|(i, (p, d))| {
            for j in 0..n {
                p[j] = if i == j {
                    kind.diagonal(i)
                } else if d[j] < INF {
                    kind.edge(i, j)
                } else {
                    kind.none()
                };
            }
        });
}

/// Floyd–Warshall in place on the first `n` rows and columns of `dist` and `paths` (row pitch
/// `pitch`, `paths` from [`init_paths`]): when `d[i][k] + d[k][j] < d[i][j]`, successors take
/// `paths[i][k]`, predecessors `paths[k][j]`.
pub fn floyd_warshall_paths(
    kind: PathKind,
    dist: &mut [i32],
    paths: &mut [i32],
    n: usize,
    pitch: usize,
) {
    if n == 0 {
        return;
    }
    assert!(pitch >= n && dist.len() >= (n - 1) * pitch + n && paths.len() == dist.len());
    let min_rows = (8192 / n).max(1);
    let (mut dk, mut pk) = (vec![0; n], vec![0; n]);
    for k in 0..n {
        // Row k (distances and paths) does not change in step k: d[k][k] = 0 and no weight is
        // negative, so no cell of it improves strictly.
        dk.copy_from_slice(&dist[k * pitch..k * pitch + n]);
        pk.copy_from_slice(&paths[k * pitch..k * pitch + n]);
        let (dk, pk) = (&dk[..], &pk[..]);
        dist.par_chunks_mut(pitch)
            .zip(paths.par_chunks_mut(pitch))
            .take(n)
            .with_min_len(min_rows)
            .for_each(|(d, p)| {
                let d_ik = d[k];
                if d_ik >= INF {
                    return;
                }
                let p_ik = p[k];
                for j in 0..n {
                    let via = d_ik + dk[j];
                    if via < d[j] {
                        d[j] = via;
                        p[j] = match kind {
                            PathKind::Successors => p_ik,
                            PathKind::Predecessors => pk[j],
                        };
                    }
                }
            });
    }
}

/// All-pairs distances and a `kind` path matrix on the CPU.
///
/// ```
/// use rgk_core::apsp::{format::{Edge, Graph}, paths::{PathKind, cpu::solve_paths}};
/// let g = Graph::from_edges(3, vec![Edge { src: 0, dst: 1, w: 5 }, Edge { src: 1, dst: 2, w: 2 }])?;
/// let (d, p) = solve_paths(&g, PathKind::Successors)?;
/// assert_eq!((d.get(0, 2), p.path(0, 2)?), (7, Some(vec![0, 1, 2])));
/// # Ok::<(), anyhow::Error>(())
/// ```
pub fn solve_paths(graph: &Graph, kind: PathKind) -> Result<(Distances, PathMatrix)> {
    let n = graph.vertices;
    let mut dist = cpu::matrix(n)?;
    fill_distances(graph, n, n, &mut dist);
    let mut cells = cpu::matrix(n)?;
    init_paths(kind, &dist, n, n, &mut cells);
    floyd_warshall_paths(kind, &mut dist, &mut cells, n, n);
    let paths = PathMatrix {
        kind,
        vertices: n,
        cells,
    };
    Ok((Distances::from_pitched(n, n, &dist), paths))
}
