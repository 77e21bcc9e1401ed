//! Many small graphs on one GPU: graphs of V ≤ `BATCH_MAX_VERTICES` go through the batch
//! kernels (`gpu_kernels::apsp::BATCH_CONFIGS`, one block per graph, thousands per launch), by
//! size class; larger ones through the one-graph solver ([`super::gpu`], whose default
//! schedule at small V is the persistent kernel). Results are byte for byte those of the
//! one-graph solver: the same (min, +) closure of the same integers.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, GridSize},
    launch,
    memory::{CopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::{BATCH_MAX_VERTICES, BatchConfig, batch_config};
use rayon::prelude::*;
use rgk_core::apsp::{
    Distances,
    batch::chunks_by_class,
    format::{Graph, fill_distances},
};
use serde::Serialize;

use super::gpu::{self as agpu, DEFAULT_BLOCK};
use crate::gpu::{Gpu, check_free_memory};

/// Graphs per launch of a batch kernel at most (and per chunk of a streamed batch): bounds the
/// host and device buffers (128 MiB of matrices at V ≤ 128).
pub const BATCH_CHUNK: usize = 2048;

/// Where the time of a batch went.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct BatchTimes {
    /// Kernel time (CUDA events) of the batch kernels and the one-graph solves.
    pub compute_s: f64,
    /// Σ V³ over the graphs: the updates Floyd–Warshall does on the real vertices.
    pub updates: f64,
    /// Launches of the batch kernels, and graphs solved one at a time.
    pub launches: usize,
    pub single: usize,
}

/// All-pairs shortest paths of every graph, in order: [`crate::apsp()`] for many graphs at
/// once. The same as solving each on its own, byte for byte.
pub fn apsp_batch(gpu: &Gpu, graphs: &[Graph]) -> Result<Vec<Distances>> {
    Ok(solve_batch(gpu, graphs)?.0)
}

/// [`apsp_batch`] with its times.
pub fn solve_batch(gpu: &Gpu, graphs: &[Graph]) -> Result<(Vec<Distances>, BatchTimes)> {
    let sizes: Vec<usize> = graphs.iter().map(|g| g.vertices).collect();
    let runs = chunks_by_class(&sizes, BATCH_CHUNK, class);
    let mut out: Vec<Option<Distances>> = (0..graphs.len()).map(|_| None).collect();
    let mut times = BatchTimes::default();
    for run in runs {
        let members: Vec<&Graph> = run.iter().map(|&i| &graphs[i]).collect();
        let solved = match class(members[0].vertices) {
            Some(cfg) => {
                times.launches += 1;
                solve_class(gpu, cfg, &members, &mut times)?
            }
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

/// The batch kernel of a graph on `vertices` vertices, if one holds it.
fn class(vertices: usize) -> Option<BatchConfig> {
    u32::try_from(vertices)
        .ok()
        .filter(|&v| v <= BATCH_MAX_VERTICES)
        .and_then(batch_config)
}

/// One launch for `graphs`, all of size class `cfg`: the padded matrices built on the host
/// (INF, zero diagonal, smallest weight per edge), copied over, solved in place, copied back.
fn solve_class(
    gpu: &Gpu,
    cfg: BatchConfig,
    graphs: &[&Graph],
    times: &mut BatchTimes,
) -> Result<Vec<Distances>> {
    let n = cfg.n as usize;
    let cells = n * n;
    let mut host = vec![0i32; cells * graphs.len()];
    host.par_chunks_mut(cells)
        .zip(graphs.par_iter())
        .for_each(|(m, g)| {
            fill_distances(g, n, n, m);
        });
    let vertices: Vec<u32> = graphs.iter().map(|g| g.vertices as u32).collect();
    check_free_memory(
        host.len() * size_of::<i32>(),
        format_args!("a batch of {} graphs of V ≤ {n}", graphs.len()),
    )?;
    let d = DeviceBuffer::from_slice(&host).context("copying the batch's matrices to the GPU")?;
    let dv = DeviceBuffer::from_slice(&vertices)?;
    let f = gpu.function(cfg.kernel)?;
    let stream = &gpu.stream;
    let (start, stop) = (
        Event::new(EventFlags::DEFAULT)?,
        Event::new(EventFlags::DEFAULT)?,
    );
    let count = graphs.len() as u32;
    start.record(stream)?;
    // SAFETY: the kernel takes (d, vertices, graphs): `count` matrices of n x n i32 built by
    // `fill_distances` (non-negative weights, zero diagonal, INF padding) and their V ≤ n
    // (`class`), both buffers alive until the synchronize below.
    unsafe {
        launch!(f<<<GridSize::x(count), BlockSize::xy(cfg.threads, cfg.threads), 0, stream>>>(
            d.as_device_ptr(),
            dv.as_device_ptr(),
            count
        ))
        .context("launching the batch kernel")?;
    }
    stop.record(stream)?;
    stop.synchronize().context("the batch kernel failed")?;
    times.compute_s += stop.elapsed_time_f32(&start)? as f64 / 1e3;
    d.copy_to(&mut host[..])
        .context("copying the batch's distances back")?;
    Ok(graphs
        .par_iter()
        .enumerate()
        .map(|(i, g)| Distances::from_pitched(g.vertices, n, &host[i * cells..(i + 1) * cells]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_up_to_the_largest_class_has_a_kernel_that_holds_it() {
        for v in 1..=BATCH_MAX_VERTICES as usize {
            let c = class(v).unwrap();
            assert!(v <= c.n as usize);
        }
        assert!(class(BATCH_MAX_VERTICES as usize + 1).is_none());
        assert_eq!(class(33).map(|c| c.n), Some(64));
    }
}
