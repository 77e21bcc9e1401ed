//! Timing the float Floyd–Warshall kernels' tile shapes against their add-min ceiling in one
//! process (`host apsp-float`): one random graph uploaded once, each variant's rounds timed
//! with CUDA events on a fresh device copy of it, variants interleaved within each repetition.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    memory::{AsyncCopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::float::FwFloatConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::float::{GpuWeight, addmin_peak, launch_rounds, padded_size};
use crate::gpu::{Gpu, check_free_memory};

/// Edges per vertex of the timed graph (as `python/bench/bench.py`).
const EDGES_PER_VERTEX: usize = 40;

/// Rounds of each variant's untimed first pass.
const WARM_UP_ROUNDS: u32 = 4;

/// One tile shape's timings.
#[derive(Clone, Debug, Serialize)]
pub struct VariantTiming {
    pub weight: &'static str,
    pub variant: &'static str,
    pub phase3: &'static str,
    /// Threads (x, y) and cells (rows, columns) per thread of phases 2–3.
    pub threads: (u32, u32),
    pub cells: (u32, u32),
    pub k_chunk: u32,
    pub stages: u32,
    /// Own blocks per phase-3 block (`FwFloatConfig::phase3_tiles`).
    pub phase3_tiles: u32,
    /// Phase 3 persistent (`FwFloatConfig::persistent`).
    pub persistent: bool,
    pub v: usize,
    pub padded: usize,
    /// Rounds timed (of `padded / B`; every round costs the same, one full phase-3 grid).
    pub rounds_timed: u32,
    /// Seconds of each repetition, in order.
    pub runs_s: Vec<f64>,
    pub median_s: f64,
    /// padded² · B · rounds_timed / median_s.
    pub updates_per_s: f64,
    pub ceiling_updates_per_s: f64,
    pub percent_of_ceiling: f64,
}

/// What `host apsp-float` reports for one weight type.
#[derive(Clone, Debug, Serialize)]
pub struct FloatBench {
    pub weight: &'static str,
    pub ceiling: super::peak::AddMinPeak,
    pub variants: Vec<VariantTiming>,
}

/// Times `variants` (all of weight `W`) at `n` vertices: `reps` repetitions of rounds
/// `0..rounds` (all rounds when `None`), each on a fresh copy of one random graph
/// (`EDGES_PER_VERTEX` edges per vertex, weights uniform in [1, 100), zero diagonal).
pub fn bench<W: GpuWeight + From<f32>>(
    gpu: &Gpu,
    n: usize,
    variants: &[FwFloatConfig],
    rounds: Option<u32>,
    reps: usize,
) -> Result<FloatBench> {
    let cfg0 = variants.first().context("no variant to time")?;
    let ceiling = addmin_peak::<W>(gpu, 16384, 5)?;
    let (padded, pitch) = padded_size(cfg0, n)?;
    let total_rounds = (padded / cfg0.block as usize) as u32;
    let rounds_timed = rounds.unwrap_or(total_rounds).min(total_rounds);
    check_free_memory(
        2 * padded * pitch * size_of::<W>(),
        format_args!("two {padded} x {pitch} {} matrices", W::NAME),
    )?;
    let mut host = vec![W::INF; padded * pitch];
    host.par_chunks_mut(pitch)
        .enumerate()
        .take(n)
        .for_each(|(i, row)| {
            let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
            for _ in 0..EDGES_PER_VERTEX {
                row[rng.gen_range(0..n)] = W::from(rng.gen_range(1.0f32..100.0));
            }
            row[i] = W::ZERO;
        });
    let input = DeviceBuffer::from_slice(&host).context("copying the graph to the GPU")?;
    drop(host);
    // SAFETY: every cell is written by the copy from `input` before any kernel reads it.
    let mut work = unsafe { DeviceBuffer::<W>::uninitialized(padded * pitch) }?;
    let mut runs = vec![Vec::with_capacity(reps); variants.len()];
    let stream = &gpu.stream;
    // One untimed pass of every variant first (module load, clocks up), of a few rounds.
    for rep in 0..=reps {
        for (cfg, out) in variants.iter().zip(runs.iter_mut()) {
            anyhow::ensure!(
                cfg.weight == W::NAME,
                "{} is not a {} variant",
                cfg.variant,
                W::NAME
            );
            // SAFETY: both buffers live until the stream is synchronized below, and nothing
            // else touches `work` meanwhile; the copy is ordered before the timed kernels.
            unsafe {
                AsyncCopyDestination::<DeviceBuffer<W>>::async_copy_from(&mut *work, &input, stream)
            }
            .context("copying the graph")?;
            let (start, stop) = (
                Event::new(EventFlags::DEFAULT)?,
                Event::new(EventFlags::DEFAULT)?,
            );
            start.record(stream)?;
            let run = if rep == 0 {
                rounds_timed.min(WARM_UP_ROUNDS)
            } else {
                rounds_timed
            };
            launch_rounds(
                gpu,
                cfg,
                work.as_device_ptr(),
                pitch,
                total_rounds,
                run,
                None,
            )?;
            stop.record(stream)?;
            stop.synchronize()
                .with_context(|| format!("the {} kernels ({}) failed", W::NAME, cfg.variant))?;
            if rep > 0 {
                out.push(stop.elapsed_time_f32(&start)? as f64 * 1e-3);
            }
        }
    }
    let updates = (padded as f64).powi(2) * cfg0.block as f64 * rounds_timed as f64;
    let variants = variants
        .iter()
        .zip(runs)
        .map(|(c, runs_s)| {
            let mut sorted = runs_s.clone();
            sorted.sort_by(f64::total_cmp);
            let m = sorted.len();
            let median_s = if m % 2 == 1 {
                sorted[m / 2]
            } else {
                0.5 * (sorted[m / 2 - 1] + sorted[m / 2])
            };
            let updates_per_s = updates / median_s;
            VariantTiming {
                weight: c.weight,
                variant: c.variant,
                phase3: c.phase3,
                threads: (c.tile_threads_x, c.tile_threads_y),
                cells: (c.tile_rows, c.tile_cols),
                k_chunk: c.k_chunk,
                stages: c.stages,
                phase3_tiles: c.phase3_tiles,
                persistent: c.persistent,
                v: n,
                padded,
                rounds_timed,
                runs_s,
                median_s,
                updates_per_s,
                ceiling_updates_per_s: ceiling.updates_per_s,
                percent_of_ceiling: 100.0 * updates_per_s / ceiling.updates_per_s,
            }
        })
        .collect();
    Ok(FloatBench {
        weight: W::NAME,
        ceiling,
        variants,
    })
}
