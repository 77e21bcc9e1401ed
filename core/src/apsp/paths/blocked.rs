//! The GPU's path kernels (`gpu_kernels::apsp::FW_PATHS`) restated on the CPU, update for update:
//! the same blocks, the same order, the same choice among ties. Slow (one thread), for tests: a
//! GPU answer must equal it cell for cell, and on this machine it checks that the blocked order
//! of updates gives valid paths (on zero-weight cycles too) without a GPU.
//!
//! Per round r with pivot block K: phase 1 runs the in-place k loop on the pivot block; phase 2
//! takes, for each cell of the pivot row (column) blocks, the minimum over k in K of
//! `P[i][k] + old[k][j]` (`old[i][k] + P[k][j]`) with the blocks' values before the phase;
//! phase 3 the minimum of `A[i][k] + B[k][j]` with the values after phase 2. Among equal
//! candidates the smallest k wins (the kernels' packed minimum), and a cell changes only when
//! the minimum is strictly smaller than its old distance.
use super::PathKind;
use crate::apsp::format::INF;

/// Runs the GPU's blocked algorithm with block factor `b` on a `n x n` matrix (row pitch `n`,
/// `n` a multiple of `b`) of initial distances and `kind` path cells (`super::cpu::init_paths`).
pub fn floyd_warshall_blocked(
    kind: PathKind,
    b: usize,
    dist: &mut [i32],
    paths: &mut [i32],
    n: usize,
) {
    assert!(b > 0 && n.is_multiple_of(b) && dist.len() == n * n && paths.len() == n * n);
    let rounds = n / b;
    let succ = kind == PathKind::Successors;
    for r in 0..rounds {
        let k0 = r * b;
        // Phase 1: in place, one k after the other.
        for k in k0..k0 + b {
            for i in k0..k0 + b {
                for j in k0..k0 + b {
                    let via = dist[i * n + k] + dist[k * n + j];
                    if via < dist[i * n + j] {
                        dist[i * n + j] = via;
                        paths[i * n + j] = if succ {
                            paths[i * n + k]
                        } else {
                            paths[k * n + j]
                        };
                    }
                }
            }
        }
        // Phase 2 reads the pivot row and column blocks as they were before it.
        let (d0, p0) = (dist.to_vec(), paths.to_vec());
        for x in (0..rounds).filter(|&x| x != r) {
            for (bi, bj) in [(r, x), (x, r)] {
                let rows = bi * b..bi * b + b;
                for i in rows {
                    for j in bj * b..bj * b + b {
                        // Row block: P ⊗ own; column block: own ⊗ P; both from d0, p0.
                        update(kind, &d0, &p0, dist, paths, n, (i, j), k0..k0 + b);
                    }
                }
            }
        }
        // Phase 3 reads the pivot row and column after phase 2; they do not change in it.
        let (d1, p1) = (dist.to_vec(), paths.to_vec());
        for bi in (0..rounds).filter(|&x| x != r) {
            for bj in (0..rounds).filter(|&x| x != r) {
                for i in bi * b..bi * b + b {
                    for j in bj * b..bj * b + b {
                        update(kind, &d1, &p1, dist, paths, n, (i, j), k0..k0 + b);
                    }
                }
            }
        }
    }
}

/// Cell `(i, j)` from the minimum over `ks` of `d[i][k] + d[k][j]` (operands from `d`, `p`):
/// the first k with the smallest sum; written only when it is below the cell's old distance.
#[allow(clippy::too_many_arguments)]
fn update(
    kind: PathKind,
    d: &[i32],
    p: &[i32],
    dist: &mut [i32],
    paths: &mut [i32],
    n: usize,
    (i, j): (usize, usize),
    ks: std::ops::Range<usize>,
) {
    let mut best: Option<(i32, usize)> = None;
    for k in ks {
        let (a, c) = (d[i * n + k], d[k * n + j]);
        if a >= INF || c >= INF {
            continue;
        }
        if best.is_none_or(|(s, _)| a + c < s) {
            best = Some((a + c, k));
        }
    }
    if let Some((s, k)) = best
        && s < d[i * n + j]
    {
        dist[i * n + j] = s;
        paths[i * n + j] = match kind {
            PathKind::Successors => p[i * n + k],
            PathKind::Predecessors => p[k * n + j],
        };
    }
}

/// Distances (V x V) and the `kind` path matrix of `graph` as the GPU's path kernels of block
/// factor `b` compute them (V padded to a multiple of `b` with INF and a zero diagonal, as the GPU
/// pads it).
pub fn solve_blocked(
    graph: &crate::apsp::format::Graph,
    kind: PathKind,
    b: usize,
) -> (Vec<i32>, super::PathMatrix) {
    let v = graph.vertices;
    let n = v.div_ceil(b) * b;
    let mut dist = vec![0; n * n];
    crate::apsp::format::fill_distances(graph, n, n, &mut dist);
    let mut paths = vec![0; n * n];
    super::cpu::init_paths(kind, &dist, n, n, &mut paths);
    floyd_warshall_blocked(kind, b, &mut dist, &mut paths, n);
    let d = crate::apsp::Distances::from_pitched(v, n, &dist).into_vec();
    (d, super::PathMatrix::from_pitched(kind, v, n, &paths))
}
