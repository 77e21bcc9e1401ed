//! Timing the float Floyd–Warshall kernels' tile shapes against their add-min ceiling in one
//! process (`host apsp-float`): one random graph uploaded once, each variant's rounds timed
//! with CUDA events on a fresh device copy of it, variants interleaved within each repetition.
//! A variant is a [`Plan`]: a reweighted one is timed whole (potentials, both reweighting
//! passes and every round) and against the ceiling of the `nonneg` kernels it runs.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer},
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use gpu_kernels::apsp::float::FwFloatConfig;

use super::float::{GpuWeight, Plan, launch_rounds, padded_size, run_plan};
use super::float_peak::addmin_peak_launches;
use super::float_reweight::ReweightReport;
use super::peak::AddMinPeak;
use crate::gpu::{Gpu, check_free_memory, median};

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
    /// The potentials' search of the last repetition ([`Plan::Reweighted`]; when it did not
    /// converge the general kernels ran, and the ceiling is still the `nonneg` one).
    pub reweight: Option<ReweightReport>,
    /// The largest |difference| of its distances from the first variant's, both after a full
    /// solve of the last repetition (when every round is timed and it is not the first).
    pub max_abs_diff_to_first: Option<f64>,
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

/// The largest |a − b| over cells where either is finite (+inf against a finite value is
/// +inf: a path one found and the other did not).
fn max_abs_diff<W: GpuWeight>(a: &[W], b: &[W]) -> f64 {
    a.par_iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (x, y) = (x.to_f64(), y.to_f64());
            if x == y { 0.0 } else { (x - y).abs() }
        })
        .reduce(|| 0.0, f64::max)
}

/// The timed graph's signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signs {
    /// Weights uniform in [1, 100): in the domain of the `nonneg` shapes too.
    Positive,
    /// Those weights shifted by potentials `p(u) − p(v)`, `p` uniform in [0, 50): about 8 % of
    /// the edges negative, no negative cycle, the same shortest paths.
    Shifted,
}

/// Times `variants` (all of weight `W`) at `n` vertices: `reps` repetitions of rounds
/// `0..rounds` (all rounds when `None`; a reweighted plan always runs all), each on a fresh copy
/// of one random graph (`EDGES_PER_VERTEX` edges per vertex, weights as `signs` says, zero
/// diagonal); each against the ceiling kernel of the kernels it means to run; with
/// `sustained`, every ceiling kernel also after each timed repetition ([`SustainedCeiling`]).
pub fn bench<W: GpuWeight + From<f32>>(
    gpu: &Gpu,
    n: usize,
    variants: &[Plan],
    signs: Signs,
    rounds: Option<u32>,
    reps: usize,
    sustained: bool,
) -> Result<FloatBench> {
    let cfg0 = &variants.first().context("no variant to time")?.given();
    let intended: Vec<_> = variants.iter().map(Plan::intended).collect();
    // One ceiling per ceiling kernel among the variants (a `nonneg` shape has its own), the
    // first variant's first; each variant is measured against its own.
    let mut peaks: Vec<&FwFloatConfig> = Vec::new();
    for c in &intended {
        if !peaks.iter().any(|p| p.peak == c.peak) {
            peaks.push(c);
        }
    }
    let ceilings = peaks
        .iter()
        .map(|c| addmin_peak_launches::<W>(gpu, c, 16384, 1, 5))
        .collect::<Result<Vec<_>>>()?;
    let ceiling_of = |i: usize| {
        let peak = intended[i].peak;
        peaks.iter().position(|p| p.peak == peak).unwrap_or(0)
    };
    let (padded, pitch) = padded_size(cfg0, n)?;
    let total_rounds = (padded / cfg0.block as usize) as u32;
    let rounds_timed = rounds.unwrap_or(total_rounds).min(total_rounds);
    check_free_memory(
        2 * padded * pitch * size_of::<W>(),
        format_args!("two {padded} x {pitch} {} matrices", W::NAME),
    )?;
    let potential = |v: usize| match signs {
        Signs::Positive => 0.0,
        Signs::Shifted => ChaCha8Rng::seed_from_u64(!(v as u64)).gen_range(0.0f32..50.0),
    };
    let mut host = vec![W::INF; padded * pitch];
    host.par_chunks_mut(pitch)
        .enumerate()
        .take(n)
        .for_each(|(i, row)| {
            let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
            let pi = potential(i);
            for _ in 0..EDGES_PER_VERTEX {
                let j = rng.gen_range(0..n);
                row[j] = W::from(rng.gen_range(1.0f32..100.0) + pi - potential(j));
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
    let timed_rounds = |v: usize| match variants[v] {
        Plan::Kernels(_) => rounds_timed,
        Plan::Reweighted { .. } => total_rounds,
    };
    let mut reweights = vec![None; variants.len()];
    let (mut first, mut diffs): (Option<Vec<W>>, _) = (None, vec![None; variants.len()]);
    // One untimed pass of every variant first (module load, clocks up), of a few rounds.
    for rep in 0..=reps {
        for (v, (plan, out)) in variants.iter().zip(runs.iter_mut()).enumerate() {
            let cfg = intended[v];
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
            match plan {
                Plan::Kernels(c) => {
                    let run = if rep == 0 {
                        rounds_timed.min(WARM_UP_ROUNDS)
                    } else {
                        rounds_timed
                    };
                    let ptr = work.as_device_ptr();
                    launch_rounds(gpu, c, ptr, pitch, total_rounds, run, None)?;
                }
                Plan::Reweighted { .. } => {
                    let ptr = work.as_device_ptr();
                    reweights[v] = run_plan(gpu, plan, ptr, pitch, total_rounds, None)?.1;
                }
            }
            stop.record(stream)?;
            stop.synchronize()
                .with_context(|| format!("the {} kernels ({}) failed", W::NAME, cfg.variant))?;
            if rep > 0 {
                out.push(stop.elapsed_time_f32(&start)? as f64 * 1e-3);
            }
            if rep == reps && variants.len() > 1 && timed_rounds(v) == total_rounds {
                let mut d = vec![W::ZERO; padded * pitch];
                work.copy_to(&mut d[..])
                    .context("copying the distances back")?;
                match &first {
                    None if v == 0 => first = Some(d),
                    None => {}
                    Some(f) => diffs[v] = Some(max_abs_diff(f, &d)),
                }
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
    let variants = intended
        .iter()
        .zip(runs)
        .enumerate()
        .map(|(v, (c, runs_s))| {
            let rounds_timed = timed_rounds(v);
            let updates = (padded as f64).powi(2) * cfg0.block as f64 * rounds_timed as f64;
            let median_s = median(&runs_s);
            let updates_per_s = updates / median_s;
            let (ceiling, sustained) =
                (&ceilings[ceiling_of(v)], &sustained_ceilings[ceiling_of(v)]);
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
                reweight: reweights[v],
                max_abs_diff_to_first: diffs[v],
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
