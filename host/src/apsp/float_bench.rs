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

use super::float::{GpuWeight, addmin_peak_launches, launch_rounds, padded_size};
use super::peak::AddMinPeak;
use crate::gpu::{Gpu, Timing, check_free_memory};

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
    /// Its kernels need values in +0 ..= +inf (`FwFloatConfig::nonneg`; the timed graph has
    /// only such values).
    pub nonneg: bool,
    /// Its ceiling kernel (`FwFloatConfig::peak`), which `percent_of_ceiling` is against.
    pub peak: &'static str,
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
    /// Against its ceiling kernel's sustained ceiling ([`KernelCeiling`]), where it was measured.
    pub percent_of_sustained_ceiling: Option<f64>,
}

/// The ceiling kernel timed under the solves' own load: one launch after each timed
/// repetition's solves, each as long as the slowest variant's first timed solve. Why: a full
/// solve at V = 30000 runs for seconds with the board at its power limit and the SM clock below
/// the one the short launches of [`FloatBench::ceiling`] (about 10 ms each) run at (H200, session
/// 10: 1927 MHz mean over the f32 solves against 1980; docs/python.md, "Session 10, merged
/// main"), so the short ceiling compares kernels at two clocks. Both are reported.
#[derive(Clone, Debug, Serialize)]
pub struct SustainedCeiling {
    /// Iterations of each launch (the short ceiling's time per iteration scaled to the solve).
    pub iterations: u32,
    /// Seconds of each launch, in order.
    pub runs_s: Vec<f64>,
    pub median_s: f64,
    /// Add-mins per second at the median launch time.
    pub updates_per_s: f64,
}

/// One ceiling kernel's rates: short launches and, when asked for, sustained.
#[derive(Clone, Debug, Serialize)]
pub struct KernelCeiling {
    /// The ceiling kernel (`FwFloatConfig::peak`).
    pub peak: &'static str,
    pub ceiling: AddMinPeak,
    pub sustained_ceiling: Option<SustainedCeiling>,
}

/// What `host apsp-float` reports for one weight type.
#[derive(Clone, Debug, Serialize)]
pub struct FloatBench {
    pub weight: &'static str,
    /// The first variant's ceiling (the default's, when it is timed).
    pub ceiling: AddMinPeak,
    /// Measured when asked for (`sustained`), of the first variant's ceiling kernel.
    pub sustained_ceiling: Option<SustainedCeiling>,
    /// Every ceiling kernel of the timed variants, the first variant's first.
    pub ceilings: Vec<KernelCeiling>,
    pub variants: Vec<VariantTiming>,
}

/// The median of a non-empty sample, as [`Timing`] takes it (units pass through).
fn median(xs: &[f64]) -> f64 {
    Timing::from_samples(xs.to_vec()).median_ms
}

/// Times `variants` (all of weight `W`) at `n` vertices: `reps` repetitions of rounds
/// `0..rounds` (all rounds when `None`), each on a fresh copy of one random graph
/// (`EDGES_PER_VERTEX` edges per vertex, weights uniform in [1, 100), zero diagonal: in the
/// domain of the `nonneg` shapes too); each against its own ceiling kernel; with `sustained`,
/// every ceiling kernel also after each timed repetition ([`SustainedCeiling`]).
pub fn bench<W: GpuWeight + From<f32>>(
    gpu: &Gpu,
    n: usize,
    variants: &[FwFloatConfig],
    rounds: Option<u32>,
    reps: usize,
    sustained: bool,
) -> Result<FloatBench> {
    let cfg0 = variants.first().context("no variant to time")?;
    // One ceiling per ceiling kernel among the variants (a `nonneg` shape has its own), the
    // first variant's first; each variant is measured against its own.
    let mut peaks: Vec<&FwFloatConfig> = Vec::new();
    for c in variants {
        if !peaks.iter().any(|p| p.peak == c.peak) {
            peaks.push(c);
        }
    }
    let ceilings = peaks
        .iter()
        .map(|c| addmin_peak_launches::<W>(gpu, c, 16384, 1, 5))
        .collect::<Result<Vec<_>>>()?;
    let ceiling_of = |c: &FwFloatConfig| peaks.iter().position(|p| p.peak == c.peak).unwrap_or(0);
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
    // Each ceiling kernel's sustained launch (iterations, add-mins), fixed at the first timed
    // repetition, and its times.
    let mut sustained_launch: Vec<Option<(u32, f64)>> = vec![None; peaks.len()];
    let mut sustained_runs: Vec<Vec<f64>> = vec![Vec::new(); peaks.len()];
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
        if sustained && rep > 0 {
            for (i, ceiling) in ceilings.iter().enumerate() {
                let iterations = sustained_launch[i].map_or_else(
                    || {
                        let longest = runs.iter().map(|r| r[0]).fold(0.0, f64::max);
                        let per_iteration_s =
                            ceiling.timing.median_ms * 1e-3 / ceiling.iterations as f64;
                        (longest / per_iteration_s)
                            .round()
                            .clamp(ceiling.iterations as f64, u32::MAX as f64)
                            as u32
                    },
                    |(iterations, _)| iterations,
                );
                let p = addmin_peak_launches::<W>(gpu, peaks[i], iterations, 0, 1)?;
                sustained_launch[i] = Some((iterations, p.updates_per_launch));
                sustained_runs[i].push(p.timing.median_ms * 1e-3);
            }
        }
    }
    let sustained_ceilings: Vec<Option<SustainedCeiling>> = sustained_launch
        .into_iter()
        .zip(sustained_runs)
        .map(|(launch, runs_s)| {
            launch.map(|(iterations, updates_per_launch)| {
                let median_s = median(&runs_s);
                SustainedCeiling {
                    iterations,
                    median_s,
                    updates_per_s: updates_per_launch / median_s,
                    runs_s,
                }
            })
        })
        .collect();
    let updates = (padded as f64).powi(2) * cfg0.block as f64 * rounds_timed as f64;
    let variants = variants
        .iter()
        .zip(runs)
        .map(|(c, runs_s)| {
            let median_s = median(&runs_s);
            let updates_per_s = updates / median_s;
            let (ceiling, sustained) =
                (&ceilings[ceiling_of(c)], &sustained_ceilings[ceiling_of(c)]);
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
                nonneg: c.nonneg,
                peak: c.peak,
                v: n,
                padded,
                rounds_timed,
                runs_s,
                median_s,
                updates_per_s,
                ceiling_updates_per_s: ceiling.updates_per_s,
                percent_of_ceiling: 100.0 * updates_per_s / ceiling.updates_per_s,
                percent_of_sustained_ceiling: sustained
                    .as_ref()
                    .map(|s| 100.0 * updates_per_s / s.updates_per_s),
            }
        })
        .collect();
    let ceilings: Vec<KernelCeiling> = peaks
        .iter()
        .zip(ceilings)
        .zip(sustained_ceilings)
        .map(|((c, ceiling), sustained_ceiling)| KernelCeiling {
            peak: c.peak,
            ceiling,
            sustained_ceiling,
        })
        .collect();
    Ok(FloatBench {
        weight: W::NAME,
        ceiling: ceilings[0].ceiling,
        sustained_ceiling: ceilings[0].sustained_ceiling.clone(),
        ceilings,
        variants,
    })
}
