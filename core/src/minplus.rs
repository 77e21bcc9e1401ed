//! All-pairs shortest paths on float weights (`f32`, `f64`): the CPU reference of the float
//! Floyd–Warshall kernels and the predecessor matrix rebuilt from a solved distance matrix.
//! This is what the Python package's `floyd_warshall` runs without a GPU, and how it gets
//! `scipy.sparse.csgraph`'s predecessors from any solver's distances.
//!
//! Conventions (scipy's): a dense row-major `n x n` matrix, `+inf` for "no edge" and "no path",
//! any finite weight (negative ones too), and a negative cycle shows as a negative diagonal.
use std::ops::Add;

use rayon::prelude::*;

/// "No path" in a predecessor matrix (scipy's `NULL_IDX`).
pub const NO_PREDECESSOR: i32 = -9999;

/// A weight type the float solvers take.
pub trait Weight: Copy + PartialOrd + Add<Output = Self> + Send + Sync + 'static {
    const INF: Self;
    const ZERO: Self;
    /// Relative tolerance under which two sums of the same path's weights, added in different
    /// orders, count as equal (see [`predecessors`]).
    const REL_TOL: f64;
    fn to_f64(self) -> f64;
}

impl Weight for f32 {
    const INF: f32 = f32::INFINITY;
    const ZERO: f32 = 0.0;
    const REL_TOL: f64 = 1e-4;
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Weight for f64 {
    const INF: f64 = f64::INFINITY;
    const ZERO: f64 = 0.0;
    const REL_TOL: f64 = 1e-9;
    fn to_f64(self) -> f64 {
        self
    }
}

/// Floyd–Warshall in place on the `n x n` matrix `d` (`+inf` = no edge; the caller sets the
/// diagonal). Row `k` is read from a copy, so that each step is one parallel pass over rows.
/// Returns the vertices on a negative cycle (a negative diagonal), in order; empty if none.
pub fn floyd_warshall<W: Weight>(d: &mut [W], n: usize) -> Vec<usize> {
    assert_eq!(d.len(), n * n, "a {n} x {n} matrix");
    let mut row_k = vec![W::INF; n];
    for k in 0..n {
        row_k.copy_from_slice(&d[k * n..(k + 1) * n]);
        d.par_chunks_mut(n.max(1)).for_each(|row| {
            let dik = row[k];
            if dik == W::INF {
                return;
            }
            for (c, &b) in row.iter_mut().zip(&row_k) {
                let via = dik + b;
                if via < *c {
                    *c = via;
                }
            }
        });
    }
    negative_diagonal(d, n)
}

/// The vertices whose diagonal entry is negative: each lies on a negative cycle.
pub fn negative_diagonal<W: Weight>(d: &[W], n: usize) -> Vec<usize> {
    (0..n).filter(|&i| d[i * n + i] < W::ZERO).collect()
}

/// A graph's edges in compressed sparse rows: the edges leaving `u` are
/// `indices[indptr[u]..indptr[u + 1]]` with weights `weights[..]` alike.
#[derive(Clone, Copy, Debug)]
pub struct Csr<'a, W> {
    pub indptr: &'a [i64],
    pub indices: &'a [i32],
    pub weights: &'a [W],
}

/// The predecessor matrix of solved distances `dist` (`n x n`, no negative cycle) of the graph
/// `g`: `pred[i][j]` is the vertex before `j` on a shortest path from `i`, [`NO_PREDECESSOR`] on
/// the diagonal and where there is no path.
///
/// Per source `i`, a breadth-first search from `i` over the *tight* edges `u -> v` (those with
/// `dist[i][u] + w == dist[i][v]`, up to a relative [`Weight::REL_TOL`]: the solver added the
/// same weights in another order) gives each reachable vertex its first tight in-edge: a tree,
/// even with zero-weight cycles, whose paths are shortest paths. O(V·E) in all, rows in
/// parallel. Should a rounding leave a reachable vertex without a tight in-edge, the row is
/// searched again with a tolerance 1000 times as large.
pub fn predecessors<W: Weight>(dist: &[W], n: usize, g: Csr<'_, W>, pred: &mut [i32]) {
    assert_eq!(dist.len(), n * n, "a {n} x {n} distance matrix");
    assert_eq!(pred.len(), n * n, "a {n} x {n} predecessor matrix");
    assert_eq!(g.indptr.len(), n + 1, "{} row pointers for V = {n}", n + 1);
    pred.par_chunks_mut(n.max(1))
        .enumerate()
        .for_each_init(Vec::new, |queue, (i, row)| {
            predecessor_row(i, &dist[i * n..(i + 1) * n], g, row, queue)
        });
}

/// Row `src` of [`predecessors`]: `d` is row `src` of the distances, `row` receives the
/// predecessors, `queue` is scratch space. The GPU search (`host::apsp::float_pred`) falls back
/// to this for a row its first tolerance leaves incomplete.
pub fn predecessor_row<W: Weight>(
    src: usize,
    d: &[W],
    g: Csr<'_, W>,
    row: &mut [i32],
    queue: &mut Vec<u32>,
) {
    let mut tol = W::REL_TOL;
    for _ in 0..3 {
        if tree_from(src, d, g, tol, row, queue) {
            break;
        }
        tol *= 1000.0;
    }
}

/// One breadth-first search of [`predecessors`] from `src` with tolerance `tol`; whether every
/// vertex with a finite distance was reached.
fn tree_from<W: Weight>(
    src: usize,
    d: &[W],
    g: Csr<'_, W>,
    tol: f64,
    row: &mut [i32],
    queue: &mut Vec<u32>,
) -> bool {
    row.fill(NO_PREDECESSOR);
    queue.clear();
    queue.push(src as u32);
    // The source is reached but keeps NO_PREDECESSOR; `seen` marks it.
    let mut seen = vec![false; d.len()];
    seen[src] = true;
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head] as usize;
        head += 1;
        let du = d[u].to_f64();
        let (lo, hi) = (g.indptr[u] as usize, g.indptr[u + 1] as usize);
        for (&v, &w) in g.indices[lo..hi].iter().zip(&g.weights[lo..hi]) {
            let v = v as usize;
            if seen[v] {
                continue;
            }
            let (via, dv) = (du + w.to_f64(), d[v].to_f64());
            if (via - dv).abs() <= tol * (du.abs() + w.to_f64().abs() + dv.abs()) {
                seen[v] = true;
                row[v] = u as i32;
                queue.push(v as u32);
            }
        }
    }
    d.iter()
        .zip(&seen)
        .all(|(&dv, &reached)| reached || dv == W::INF)
}

#[cfg(test)]
mod tests;
