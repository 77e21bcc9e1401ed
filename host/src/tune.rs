//! The SGEMM autotuner behind `host tune`: times every flagship kernel on each shape class's
//! representative problem, then the rasterization groups of the best ones, then re-times the
//! front runners longer, and returns the winners as a [`TuneCache`] (format and matching in
//! `rgk_core::matmul::tune`; the library reads it through `matmul::select`, which this module
//! imports, not the other way round).
use std::time::Instant;

use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;
use gpu_kernels::matmul::{FLAGSHIP, FlagshipConfig, stream_k::Schedule};
use indicatif::ProgressBar;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    reference::random_matrix,
    tune::{SCHEMA, ShapeClass, TuneCache, Winner},
};
use serde::Serialize;

use crate::{
    gpu::{Gpu, check_free_memory, time_on_stream},
    matmul::{
        flagship::FlagshipLaunch,
        problem::Gemm,
        select::{DEFAULT_GROUP, identity},
    },
    reference::cublas::Cublas,
};

/// Rasterization groups tried for the best kernels (the default, 8, is in the first round).
pub const GROUPS: [u32; 5] = [1, 2, 4, 16, 32];

/// Front runners re-timed with [`CONFIRM_FACTOR`] times the repetitions.
pub const FRONT_RUNNERS: usize = 3;
pub const CONFIRM_FACTOR: usize = 3;

/// How long and how wide to sweep.
pub struct TuneOptions {
    pub classes: Vec<ShapeClass>,
    /// Timed launches per candidate in the first rounds (after one warm-up launch).
    pub reps: usize,
    pub seed: u64,
}

/// One timed candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    pub class: ShapeClass,
    pub kernel: &'static str,
    pub vec_b: bool,
    pub group: u32,
    #[serde(serialize_with = "rgk_core::matmul::tune::schedule_name::serialize")]
    pub schedule: Schedule,
    /// Which round: `kernels`, `groups` or `confirm`.
    pub round: &'static str,
    pub median_ms: f64,
    pub min_ms: f64,
    pub reps: usize,
    pub gflops: f64,
}

/// cuBLAS on a class's representative problem.
#[derive(Clone, Debug, Serialize)]
pub struct CublasTime {
    pub class: ShapeClass,
    pub vec_b: bool,
    pub shape: [usize; 3],
    pub median_ms: f64,
    pub gflops: f64,
}

/// Everything a sweep measured, and the cache it makes.
#[derive(Debug, Serialize)]
pub struct TuneReport {
    pub cache: TuneCache,
    pub cublas: Vec<CublasTime>,
    pub measurements: Vec<Measurement>,
}

/// Progress steps per class: per B copy width cuBLAS, the kernels that may copy B that way
/// under each schedule, the groups of the best one, and the re-timed front runners. (A
/// schedule that launches as another is timed once; its steps are skipped.)
pub fn steps_per_class() -> u64 {
    let scalar = FLAGSHIP.iter().filter(|c| !c.vec_b).count();
    let schedules = Schedule::ALL.len();
    (2 + schedules * (FLAGSHIP.len() + scalar) + 2 * GROUPS.len() + 2 * FRONT_RUNNERS) as u64
}

fn gflops((m, n, k): (usize, usize, usize), ms: f64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64 / (ms * 1e6)
}

/// Sweeps `opts.classes` on `gpu`, advancing `bar` one step per timed candidate.
pub fn tune(gpu: &Gpu, opts: &TuneOptions, bar: &ProgressBar) -> Result<TuneReport> {
    let start = Instant::now();
    let cublas = Cublas::load(gpu).ok();
    let mut winners = Vec::new();
    let mut measurements = Vec::new();
    let mut cublas_times = Vec::new();
    for &class in &opts.classes {
        // 16-byte B copies: every kernel, on an aligned shape; 4-byte ones: only the kernels
        // that copy B that way, on an odd shape (ShapeClass::representative).
        for vec_b in [true, false] {
            let (winner, times, cb) = tune_one(gpu, cublas.as_ref(), class, vec_b, opts, bar)?;
            winners.push(winner);
            measurements.extend(times);
            cublas_times.extend(cb);
        }
    }
    Ok(TuneReport {
        cache: TuneCache {
            schema: SCHEMA.to_string(),
            gpu: identity(gpu)?,
            date: rgk_core::bench::now_utc(),
            seconds: start.elapsed().as_secs_f64(),
            winners,
        },
        cublas: cublas_times,
        measurements,
    })
}

/// Tunes one class for one B copy width: the winner, every measurement, and cuBLAS's time.
fn tune_one(
    gpu: &Gpu,
    cublas: Option<&Cublas>,
    class: ShapeClass,
    vec_b: bool,
    opts: &TuneOptions,
    bar: &ProgressBar,
) -> Result<(Winner, Vec<Measurement>, Option<CublasTime>)> {
    let shape = class.representative(vec_b);
    let (m, n, k) = shape;
    bar.set_message(format!("{class} ({m}x{n}x{k})"));
    check_free_memory(4 * (m * k + k * n + m * n), "the representative problem")?;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let a = DeviceBuffer::from_slice(&random_matrix(m, k, &mut rng))?;
    let b = DeviceBuffer::from_slice(&random_matrix(k, n, &mut rng))?;
    let c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let cublas_time = match cublas {
        Some(cb) => {
            let t = time_on_stream(&gpu.stream, 1, opts.reps, || cb.sgemm(shape, &a, &b, &c))
                .context("timing cuBLAS")?;
            Some(CublasTime {
                class,
                vec_b,
                shape: [m, n, k],
                median_ms: t.median_ms,
                gflops: gflops(shape, t.median_ms),
            })
        }
        None => None,
    };
    bar.inc(1);
    let mut measurements = Vec::new();
    let mut time =
        |cfg: &'static FlagshipConfig, group, schedule, reps, round| -> Result<Option<f64>> {
            let op = Gemm::new(m, n, k);
            let launch = FlagshipLaunch::new(gpu, cfg, &op, [&a, &b, &c], group, schedule)?;
            bar.inc(1);
            if schedule == Schedule::StreamK && launch.split().sk_blocks == 0 {
                // The tiles fill whole waves: stream-K would launch as data-parallel.
                return Ok(None);
            }
            let t = time_on_stream(&gpu.stream, 1, reps, || launch.launch())
                .with_context(|| format!("timing {} on {m}x{n}x{k}", cfg.name))?;
            measurements.push(Measurement {
                class,
                kernel: cfg.name,
                vec_b,
                group,
                schedule,
                round,
                median_ms: t.median_ms,
                min_ms: t.min_ms,
                reps: t.reps,
                gflops: gflops(shape, t.median_ms),
            });
            Ok(Some(t.median_ms))
        };
    type Candidate = (&'static FlagshipConfig, u32, Schedule, f64);
    // Round 1: every eligible kernel under each schedule at the default group.
    let mut pool: Vec<Candidate> = Vec::new();
    for cfg in FLAGSHIP.iter().filter(|c| vec_b || !c.vec_b) {
        for sch in Schedule::ALL {
            if let Some(ms) = time(cfg, DEFAULT_GROUP, sch, opts.reps, "kernels")? {
                pool.push((cfg, DEFAULT_GROUP, sch, ms));
            }
        }
    }
    pool.sort_by(|x, y| x.3.total_cmp(&y.3));
    // Round 2: the rasterization groups of the best kernel and schedule.
    let (best, _, best_sch, _) = pool[0];
    for g in GROUPS {
        if let Some(ms) = time(best, g, best_sch, opts.reps, "groups")? {
            pool.push((best, g, best_sch, ms));
        }
    }
    pool.sort_by(|x, y| x.3.total_cmp(&y.3));
    // Round 3: the front runners again, longer; the fastest median wins.
    let mut won: Option<Candidate> = None;
    for &(cfg, g, sch, _) in pool.iter().take(FRONT_RUNNERS) {
        let ms = time(cfg, g, sch, CONFIRM_FACTOR * opts.reps, "confirm")?
            .expect("only timed candidates are in the pool");
        if won.is_none_or(|w| ms < w.3) {
            won = Some((cfg, g, sch, ms));
        }
    }
    let (cfg, group, schedule, ms) = won.expect("at least one front runner");
    let g = gflops(shape, ms);
    let cublas_gflops = cublas_time.as_ref().map(|t| t.gflops);
    let winner = Winner {
        class,
        vec_b,
        kernel: cfg.name.to_string(),
        group,
        schedule,
        shape: [m, n, k],
        gflops: g,
        cublas_gflops,
        percent_of_cublas: cublas_gflops.map(|c| 100.0 * g / c),
    };
    Ok((winner, measurements, cublas_time))
}
