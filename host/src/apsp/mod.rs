//! All-pairs shortest paths on the GPU (`gpu`: the blocked Floyd–Warshall runner; `multi`: the
//! same split by block rows over several GPUs, with `nccl` broadcasting the pivot rows; `peak`:
//! the add-min ceiling it is compared with) and file to file with every stage timed
//! (`pipeline`); graph statistics from the matrix on the GPU (`stats`). Formats and CPU
//! references are in `rgk_core::apsp`.
pub mod batch;
pub mod batch_files;
pub mod dist;
pub mod float;
pub mod float_bench;
pub mod float_peak;
pub mod float_pred;
pub mod float_reweight;
pub mod gpu;
pub mod input;
pub mod multi;
pub mod nccl;
pub mod ooc;
pub mod paths;
pub mod peak;
mod phases;
pub mod pipeline;
pub mod round_costs;
pub mod rows;
pub mod small;
pub mod small_floor;
pub mod small_probe;
pub mod stats;
pub mod stream;

use rgk_core::apsp::{
    Distances,
    format::Graph,
    paths::{PathKind, PathMatrix},
    stats::Stats,
};

use crate::{error::Result, gpu::Gpu};

/// All-pairs shortest paths on the GPU: blocked Floyd–Warshall with the default block factor.
/// The graph comes from [`rgk_core::apsp::format::read_graph`] (a course file) or
/// [`Graph::from_edges`] (an edge list in memory); [`rgk_core::apsp::solve_cpu`] is the same
/// on the CPU.
///
/// ```no_run
/// use rgk_core::apsp::format::{Edge, Graph};
/// let gpu = host::Gpu::new(None)?;
/// let g = Graph::from_edges(3, vec![Edge { src: 0, dst: 1, w: 5 }, Edge { src: 1, dst: 2, w: 2 }])?;
/// let d = host::apsp(&gpu, &g)?;
/// assert_eq!(d.get(0, 2), 7);
/// # Ok::<(), host::Error>(())
/// ```
pub fn apsp(gpu: &Gpu, graph: &Graph) -> Result<Distances> {
    let sol = gpu::solve(gpu, graph, gpu::DEFAULT_BLOCK)?;
    Ok(Distances::from_pitched(
        graph.vertices,
        sol.pitch,
        &sol.dist,
    ))
}

/// All-pairs shortest paths of many graphs at once (a launch holds thousands of V ≤ 128, one
/// block each; larger graphs go through [`apsp`]'s solver), in order; byte for byte what
/// [`apsp`] gives for each.
///
/// ```no_run
/// use rgk_core::apsp::format::{Edge, Graph};
/// let gpu = host::Gpu::new(None)?;
/// let g = Graph::from_edges(2, vec![Edge { src: 0, dst: 1, w: 5 }])?;
/// let d = host::apsp_batch(&gpu, &[g.clone(), g])?;
/// assert_eq!((d.len(), d[1].get(0, 1)), (2, 5));
/// # Ok::<(), host::Error>(())
/// ```
pub fn apsp_batch(gpu: &Gpu, graphs: &[Graph]) -> Result<Vec<Distances>> {
    Ok(batch::apsp_batch(gpu, graphs)?)
}

/// All-pairs shortest paths on the GPU with the paths themselves: the distances and a `kind`
/// path matrix (successors, or scipy's predecessors; `rgk_core::apsp::paths`), from which
/// [`PathMatrix::path`] reads the vertices of a shortest path for any pair.
/// [`rgk_core::apsp::paths::cpu::solve_paths`] is the same on the CPU.
///
/// ```no_run
/// use rgk_core::apsp::{format::{Edge, Graph}, paths::PathKind};
/// let gpu = host::Gpu::new(None)?;
/// let g = Graph::from_edges(3, vec![Edge { src: 0, dst: 1, w: 5 }, Edge { src: 1, dst: 2, w: 2 }])?;
/// let (d, p) = host::apsp_with(&gpu, &g, PathKind::Successors)?;
/// assert_eq!((d.get(0, 2), p.path(0, 2)?), (7, Some(vec![0, 1, 2])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apsp_with(gpu: &Gpu, graph: &Graph, kind: PathKind) -> Result<(Distances, PathMatrix)> {
    let (sol, _) = paths::solve_paths_on_device(gpu, graph, gpu::DEFAULT_BLOCK, kind)?;
    let v = graph.vertices;
    let mut dist = vec![0i32; v * v];
    let mut cells = vec![0i32; v * v];
    if v > 0 {
        rows::DeviceRows::copy_rows(&sol.distances, 0, &mut dist)?;
        rows::DeviceRows::copy_rows(&sol.paths, 0, &mut cells)?;
    }
    Ok((
        Distances::from_pitched(v, v, &dist),
        PathMatrix {
            kind,
            vertices: v,
            cells,
        },
    ))
}

/// Graph statistics on the GPU (docs/apsp.md, "Statistics"): eccentricity, closeness and
/// harmonic centrality per vertex, diameter, radius and average shortest-path length, computed
/// where the distances lie; the V x V matrix is never copied to the host.
/// [`rgk_core::apsp::stats::Stats::from_distances`] is the same on the CPU.
///
/// ```no_run
/// use rgk_core::apsp::format::{Edge, Graph};
/// let gpu = host::Gpu::new(None)?;
/// let g = Graph::from_edges(2, vec![Edge { src: 0, dst: 1, w: 5 }, Edge { src: 1, dst: 0, w: 2 }])?;
/// let s = host::apsp_stats(&gpu, &g)?;
/// assert_eq!((s.graph.diameter, s.vertices[1].eccentricity), (5, 2));
/// # Ok::<(), host::Error>(())
/// ```
pub fn apsp_stats(gpu: &Gpu, graph: &Graph) -> Result<Stats> {
    Ok(stats::solve_stats(gpu, graph, gpu::DEFAULT_BLOCK)?.stats)
}
