//! Many small graphs on one GPU, thousands per launch, by size class
//! ([`gpu_kernels::apsp::batch_class`]): graphs of V ≤ `BATCH_MAX_VERTICES` through the
//! register kernels (`BATCH_KERNELS`, one block per graph), graphs of V ≤
//! `BATCH_BLOCKED.max_vertices` through the batched blocked algorithm (the one-graph solver's
//! phase kernels with the graph in the grid's last dimension: one launch per phase and round for
//! the whole class), larger ones through the one-graph solver ([`super::gpu`]), one at a time.
//! Results are byte for byte those of the one-graph solver: the same (min, +) closure of the
//! same integers.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, GridSize},
    launch,
    memory::{CopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::{BATCH_BLOCKED, BatchClass, BatchConfig, batch_class, batch_kernel};
use rayon::prelude::*;
use rgk_core::apsp::{
    Distances,
    batch::chunks_by_class,
    format::{Graph, fill_distances},
};
use serde::Serialize;

use super::gpu::{self as agpu, DEFAULT_BLOCK};
use super::phases::prefer_shared_memory;
use crate::gpu::{Gpu, check_free_memory};

/// Graphs per launch of a batch kernel at most (and per chunk of a streamed batch): bounds the
/// host and device buffers (128 MiB of matrices at V ≤ 128, 2 GiB at V ≤ 512) and stays below
/// the grid's 65535 in y and z.
pub const BATCH_CHUNK: usize = 2048;

/// Where the time of a batch went.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct BatchTimes {
    /// Kernel time (CUDA events) of the batch kernels and the one-graph solves.
    pub compute_s: f64,
    /// Σ V³ over the graphs: the updates Floyd–Warshall does on the real vertices.
    pub updates: f64,
    /// Launches of the register batch kernels, of the batched blocked kernels (one per phase
    /// and round), and graphs solved one at a time.
    pub launches: usize,
    pub blocked_launches: usize,
    pub single: usize,
}

/// All-pairs shortest paths of every graph, in order: [`crate::apsp()`] for many graphs at
/// once. The same as solving each on its own, byte for byte.
pub fn apsp_batch(gpu: &Gpu, graphs: &[Graph]) -> Result<Vec<Distances>> {
    Ok(solve_batch(gpu, graphs)?.0)
}

/// [`apsp_batch`] with its times.
pub fn solve_batch(gpu: &Gpu, graphs: &[Graph]) -> Result<(Vec<Distances>, BatchTimes)> {
    solve_batch_with(gpu, graphs, None)
}

/// The register kernel named `name` (`BATCH_KERNELS`), for [`solve_batch_with`]; one sentence
/// naming the choices if there is none.
pub fn variant(name: &str) -> Result<BatchConfig> {
    match batch_kernel(name) {
        Some(c) => Ok(c),
        None => {
            let names: Vec<&str> = gpu_kernels::apsp::BATCH_KERNELS
                .iter()
                .map(|c| c.kernel)
                .collect();
            rgk_core::bad_input(format!(
                "no batch kernel {name} (the batch kernels are {})",
                names.join(", ")
            ))
        }
    }
}

/// How `vertices` is solved: its [`batch_class`], with the register class of `variant`'s size
/// run by `variant` instead of the default kernel (for measurement).
pub fn class_with(vertices: usize, variant: Option<BatchConfig>) -> Option<BatchClass> {
    let class = batch_class(u32::try_from(vertices).ok()?)?;
    Some(match (class, variant) {
        (BatchClass::Register(c), Some(v)) if c.n == v.n => BatchClass::Register(v),
        _ => class,
    })
}

/// The launches of a batch: runs of graph indices of one class each (at most `chunk`, see
/// [`chunks_by_class`]), `None` for a graph the one-graph solver takes alone.
pub fn plan(
    sizes: &[usize],
    chunk: usize,
    variant: Option<BatchConfig>,
) -> Vec<(Option<BatchClass>, Vec<usize>)> {
    let class = |v| class_with(v, variant);
    chunks_by_class(sizes, chunk.clamp(1, BATCH_CHUNK), class)
        .into_iter()
        .map(|run| (class(sizes[run[0]]), run))
        .collect()
}

/// [`solve_batch`] with the register class of `variant`'s size run by `variant`.
pub fn solve_batch_with(
    gpu: &Gpu,
    graphs: &[Graph],
    variant: Option<BatchConfig>,
) -> Result<(Vec<Distances>, BatchTimes)> {
    let sizes: Vec<usize> = graphs.iter().map(|g| g.vertices).collect();
    let mut out: Vec<Option<Distances>> = (0..graphs.len()).map(|_| None).collect();
    let mut times = BatchTimes::default();
    for (class, run) in plan(&sizes, BATCH_CHUNK, variant) {
        let members: Vec<&Graph> = run.iter().map(|&i| &graphs[i]).collect();
        let solved = match class {
            Some(BatchClass::Register(cfg)) => {
                times.launches += 1;
                solve_register(gpu, cfg, &members, &mut times)?
            }
            Some(BatchClass::Blocked { n }) => solve_blocked(gpu, n, &members, &mut times)?,
            None => {
                times.single += 1;
                let sol = agpu::solve(gpu, members[0], DEFAULT_BLOCK)?;
                times.compute_s += sol.times.compute_s;
                let v = members[0].vertices;
                vec![Distances::from_pitched(v, sol.pitch, &sol.dist)]
            }
        };
        for (i, d) in run.into_iter().zip(solved) {
            out[i] = Some(d);
        }
    }
    times.updates = sizes.iter().map(|&v| (v as f64).powi(3)).sum();
    Ok((
        out.into_iter()
            .map(|d| d.expect("every graph solved"))
            .collect(),
        times,
    ))
}

/// The padded `n x n` matrices of `graphs` one after another (INF, zero diagonal, smallest
/// weight per edge), on the GPU.
fn upload(graphs: &[&Graph], n: usize) -> Result<(Vec<i32>, DeviceBuffer<i32>)> {
    let cells = n * n;
    let mut host = vec![0i32; cells * graphs.len()];
    host.par_chunks_mut(cells)
        .zip(graphs.par_iter())
        .for_each(|(m, g)| {
            fill_distances(g, n, n, m);
        });
    check_free_memory(
        host.len() * size_of::<i32>(),
        format_args!("a batch of {} graphs of V ≤ {n}", graphs.len()),
    )?;
    let d = DeviceBuffer::from_slice(&host).context("copying the batch's matrices to the GPU")?;
    Ok((host, d))
}

/// The solved matrices back, each cut to its graph's V.
fn download(
    graphs: &[&Graph],
    n: usize,
    mut host: Vec<i32>,
    d: &DeviceBuffer<i32>,
) -> Result<Vec<Distances>> {
    d.copy_to(&mut host[..])
        .context("copying the batch's distances back")?;
    let cells = n * n;
    Ok(graphs
        .par_iter()
        .enumerate()
        .map(|(i, g)| Distances::from_pitched(g.vertices, n, &host[i * cells..(i + 1) * cells]))
        .collect())
}

/// Times what `queue` puts on the GPU's stream with CUDA events, waits for it, adds the
/// seconds to `times`.
fn timed(gpu: &Gpu, times: &mut BatchTimes, queue: impl FnOnce() -> Result<()>) -> Result<()> {
    let (start, stop) = (
        Event::new(EventFlags::DEFAULT)?,
        Event::new(EventFlags::DEFAULT)?,
    );
    start.record(&gpu.stream)?;
    queue()?;
    stop.record(&gpu.stream)?;
    stop.synchronize().context("a batch kernel failed")?;
    times.compute_s += stop.elapsed_time_f32(&start)? as f64 / 1e3;
    Ok(())
}

/// One launch of register kernel `cfg` for `graphs`, all of its size class: solved in place.
fn solve_register(
    gpu: &Gpu,
    cfg: BatchConfig,
    graphs: &[&Graph],
    times: &mut BatchTimes,
) -> Result<Vec<Distances>> {
    let n = cfg.n as usize;
    let (host, d) = upload(graphs, n)?;
    let vertices: Vec<u32> = graphs.iter().map(|g| g.vertices as u32).collect();
    let dv = DeviceBuffer::from_slice(&vertices)?;
    let f = gpu.function(cfg.kernel)?;
    let stream = &gpu.stream;
    let count = graphs.len() as u32;
    let (tx, ty) = cfg.threads();
    timed(gpu, times, || {
        // SAFETY: the kernel takes (d, vertices, graphs): `count` matrices of n x n i32 built
        // by `fill_distances` (non-negative weights, zero diagonal, INF padding) and their
        // V ≤ n (`batch_class`), both buffers alive until `timed` synchronizes.
        unsafe {
            launch!(f<<<GridSize::x(count), BlockSize::xy(tx, ty), 0, stream>>>(
                d.as_device_ptr(),
                dv.as_device_ptr(),
                count
            ))
            .context("launching the batch kernel")
        }
    })?;
    download(graphs, n, host, &d)
}

/// The batched blocked algorithm for `graphs`, all padded to `n` (a multiple of the block
/// factor): per round, phase 1 for every graph, then phase 2, then phase 3, one launch each.
fn solve_blocked(
    gpu: &Gpu,
    n: u32,
    graphs: &[&Graph],
    times: &mut BatchTimes,
) -> Result<Vec<Distances>> {
    let c = BATCH_BLOCKED;
    let (host, d) = upload(graphs, n as usize)?;
    let (p1, p2, p3) = (
        gpu.function(c.phase1)?,
        gpu.function(c.phase2)?,
        gpu.function(c.phase3)?,
    );
    prefer_shared_memory(&p2)?;
    prefer_shared_memory(&p3)?;
    let stream = &gpu.stream;
    let (count, rounds) = (graphs.len() as u32, n / c.block);
    let pivot = BlockSize::xy(c.pivot_threads, c.pivot_threads);
    let tile = BlockSize::xy(c.tile_threads, c.tile_threads);
    let dp = d.as_device_ptr();
    timed(gpu, times, || {
        for r in 0..rounds {
            // SAFETY: the phase kernels take (d, n, round): `count` matrices of n x n i32
            // built by `fill_distances`, n a multiple of B (`batch_class`) and ≤ 512, r <
            // rounds; the grids cover `count` graphs (≤ BATCH_CHUNK) and their blocks; the
            // launches run in order on one stream, `d` alive until `timed` synchronizes.
            unsafe {
                launch!(p1<<<GridSize::x(count), pivot, 0, stream>>>(dp, n, r))?;
                launch!(p2<<<GridSize::xyz(rounds, 2, count), tile, 0, stream>>>(dp, n, r))?;
                launch!(p3<<<GridSize::xyz(rounds, rounds, count), tile, 0, stream>>>(dp, n, r))
                    .context("launching the batched blocked kernels")?;
            }
        }
        Ok(())
    })?;
    times.blocked_launches += 3 * rounds as usize;
    download(graphs, n as usize, host, &d)
}

#[cfg(test)]
mod tests;
