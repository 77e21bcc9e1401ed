//! The add-min ceiling of each float weight type's kernels (`apsp_addmin_peak_f32` / `_f64`,
//! and the `nonneg` shapes' own), measured as [`super::peak::addmin_peak`] measures the int32
//! one.
use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    launch,
    memory::DeviceBuffer,
};
use gpu_kernels::apsp::float::{FLOAT_PEAK_THREADS, FwFloatConfig, fw_float_config_nonneg};

use super::{float::GpuWeight, peak::AddMinPeak};
use crate::gpu::{Gpu, time_on_stream};

/// The add-min ceiling of weight type `W`'s default kernels (`apsp_addmin_peak_f32` / `_f64`),
/// measured as [`super::peak::addmin_peak`] measures the int32 one: one full wave of blocks, one
/// warm-up and `reps` timed launches of `iterations` iterations.
pub fn addmin_peak<W: GpuWeight>(gpu: &Gpu, iterations: u32, reps: usize) -> Result<AddMinPeak> {
    addmin_peak_launches::<W>(gpu, &W::config(), iterations, 1, reps)
}

/// [`addmin_peak`] of the kernels `solve_dense` runs on a matrix without negative values (the
/// type's `nonneg` default; its default where it has none).
pub fn addmin_peak_nonneg<W: GpuWeight>(
    gpu: &Gpu,
    iterations: u32,
    reps: usize,
) -> Result<AddMinPeak> {
    let cfg = fw_float_config_nonneg(W::NAME).expect("every GpuWeight has kernels");
    addmin_peak_launches::<W>(gpu, &cfg, iterations, 1, reps)
}

/// The ceiling of `cfg`'s kernels (`cfg.peak`: the `nonneg` shapes have their own), with
/// `warmup` untimed launches (0 for one launch timed as it comes, as `float_bench`'s sustained
/// ceiling times one long launch between solves).
pub fn addmin_peak_launches<W: GpuWeight>(
    gpu: &Gpu,
    cfg: &FwFloatConfig,
    iterations: u32,
    warmup: usize,
    reps: usize,
) -> Result<AddMinPeak> {
    anyhow::ensure!(
        cfg.weight == W::NAME,
        "{} is not a {} variant",
        cfg.variant,
        W::NAME
    );
    let f = gpu.function(cfg.peak)?;
    let info = gpu.info()?;
    let threads = BlockSize::x(FLOAT_PEAK_THREADS);
    let per_sm = f.max_active_blocks_per_multiprocessor(threads, 0)?.max(1);
    let blocks = per_sm * info.multiprocessors;
    let out = DeviceBuffer::from_slice(&[W::ZERO])?;
    let stream = &gpu.stream;
    let timing = time_on_stream(stream, warmup, reps, || {
        // SAFETY: the peak kernel takes (out, w, iterations) and writes only out[0], a live
        // one-cell buffer kept until the timing (which waits for the stream) is done.
        unsafe {
            launch!(f<<<GridSize::x(blocks), threads, 0, stream>>>(
                out.as_device_ptr(),
                W::MINUS_ONE,
                iterations
            ))?
        };
        Ok(())
    })
    .with_context(|| format!("the {} add-min peak kernel {} failed", W::NAME, cfg.peak))?;
    let updates_per_launch = blocks as f64
        * FLOAT_PEAK_THREADS as f64
        * iterations as f64
        * cfg.peak_updates_per_iteration() as f64;
    let updates_per_s = updates_per_launch / (timing.median_ms * 1e-3);
    Ok(AddMinPeak {
        updates_per_s,
        per_sm_per_clock: updates_per_s
            / (info.multiprocessors as f64 * info.clock_mhz as f64 * 1e6),
        clock_mhz: info.clock_mhz,
        multiprocessors: info.multiprocessors,
        blocks,
        threads_per_block: FLOAT_PEAK_THREADS,
        iterations,
        updates_per_launch,
        timing,
    })
}
