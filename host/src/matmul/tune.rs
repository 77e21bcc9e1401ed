//! The SGEMM autotuner behind `host tune`: times every flagship kernel on each shape class's
//! representative problem, then the rasterization groups of the best ones, then re-times the
//! front runners longer, and returns the winners as a [`TuneCache`] (format and matching in
//! `rgk_core::matmul::tune`).
use std::time::Instant;

use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;
use gpu_kernels::matmul::{FLAGSHIP, FlagshipConfig, SgemmParams};
use indicatif::ProgressBar;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    reference::random_matrix,
    tune::{GpuIdentity, SCHEMA, ShapeClass, TuneCache, Winner},
};
use serde::Serialize;

use super::{
    cublas::Cublas,
    gpu::{DEFAULT_GROUP, check_fits, flagship_function, launch_flagship},
};
use crate::gpu::{Gpu, time_on_stream};

/// The commit this binary was built from (`host/build/commit.rs`).
pub const BUILD_COMMIT: &str = env!("RGK_BUILD_COMMIT");

/// What a tuning cache must match to be used on `gpu`.
pub fn identity(gpu: &Gpu) -> Result<GpuIdentity> {
    let info = gpu.info()?;
    Ok(GpuIdentity {
        name: info.name,
        compute_capability: [info.compute_capability.0, info.compute_capability.1],
        driver: info.driver_version,
        commit: BUILD_COMMIT.to_string(),
    })
}

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

/// Progress steps per class: cuBLAS, every kernel, the groups of the best kernel for each B
/// copy width, and the re-timed front runners of each.
pub fn steps_per_class() -> u64 {
    (1 + FLAGSHIP.len() + 2 * GROUPS.len() + 2 * FRONT_RUNNERS) as u64
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
        let shape = class.representative();
        let (m, n, k) = shape;
        bar.set_message(format!("{class} ({m}x{n}x{k})"));
        check_fits(4 * (m * k + k * n + m * n))?;
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
        let a = DeviceBuffer::from_slice(&random_matrix(m, k, &mut rng))?;
        let b = DeviceBuffer::from_slice(&random_matrix(k, n, &mut rng))?;
        let c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
        let cublas_gflops = match &cublas {
            Some(cb) => {
                let t = time_on_stream(&gpu.stream, 1, opts.reps, || cb.sgemm(shape, &a, &b, &c))
                    .context("timing cuBLAS")?;
                let g = gflops(shape, t.median_ms);
                cublas_times.push(CublasTime {
                    class,
                    median_ms: t.median_ms,
                    gflops: g,
                });
                Some(g)
            }
            None => None,
        };
        bar.inc(1);
        let params = |group| SgemmParams {
            a: a.as_device_ptr().as_raw() as *const f32,
            b: b.as_device_ptr().as_raw() as *const f32,
            c: c.as_device_ptr().as_raw() as *mut f32,
            m: m as u32,
            n: n as u32,
            k: k as u32,
            lda: k as u32,
            ldb: n as u32,
            ldc: n as u32,
            alpha: 1.0,
            beta: 0.0,
            group,
        };
        let mut time = |cfg: &'static FlagshipConfig, group, reps, round| -> Result<Measurement> {
            let func = flagship_function(gpu, cfg)?;
            let p = params(group);
            let t = time_on_stream(&gpu.stream, 1, reps, || {
                launch_flagship(&gpu.stream, &func, cfg, &p)
            })
            .with_context(|| format!("timing {} on {m}x{n}x{k}", cfg.name))?;
            bar.inc(1);
            let meas = Measurement {
                class,
                kernel: cfg.name,
                vec_b: cfg.vec_b,
                group,
                round,
                median_ms: t.median_ms,
                min_ms: t.min_ms,
                reps: t.reps,
                gflops: gflops(shape, t.median_ms),
            };
            measurements.push(meas.clone());
            Ok(meas)
        };
        // Round 1: every kernel at the default group.
        let mut first = Vec::new();
        for cfg in FLAGSHIP {
            first.push((cfg, time(cfg, DEFAULT_GROUP, opts.reps, "kernels")?));
        }
        // Per B copy width (16-byte copies may use every kernel, 4-byte ones only their own).
        for vec_b in [true, false] {
            let mut pool: Vec<(&'static FlagshipConfig, u32, f64)> = first
                .iter()
                .filter(|(cfg, _)| vec_b || !cfg.vec_b)
                .map(|(cfg, t)| (*cfg, t.group, t.median_ms))
                .collect();
            pool.sort_by(|x, y| x.2.total_cmp(&y.2));
            let best = pool[0].0;
            // Round 2: the rasterization groups of the best kernel.
            for g in GROUPS {
                let t = time(best, g, opts.reps, "groups")?;
                pool.push((best, g, t.median_ms));
            }
            pool.sort_by(|x, y| x.2.total_cmp(&y.2));
            // Round 3: the front runners again, longer; the fastest median wins.
            let mut confirmed = Vec::new();
            for &(cfg, g, _) in pool.iter().take(FRONT_RUNNERS) {
                confirmed.push((cfg, time(cfg, g, CONFIRM_FACTOR * opts.reps, "confirm")?));
            }
            let (cfg, t) = confirmed
                .into_iter()
                .min_by(|x, y| x.1.median_ms.total_cmp(&y.1.median_ms))
                .expect("at least one front runner");
            winners.push(Winner {
                class,
                vec_b,
                kernel: cfg.name.to_string(),
                group: t.group,
                shape: [m, n, k],
                gflops: t.gflops,
                cublas_gflops,
                percent_of_cublas: cublas_gflops.map(|c| 100.0 * t.gflops / c),
            });
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
