//! The int32 add-min ceiling of this GPU (`apsp_addmin_peak`), which `host apsp` and
//! `host apsp-peak` compare the Floyd–Warshall compute rate with.
use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    launch,
    memory::DeviceBuffer,
};
use gpu_kernels::apsp::{PEAK_KERNEL, PEAK_THREADS, PEAK_UPDATES_PER_ITERATION};
use serde::Serialize;

use crate::gpu::{Gpu, Timing, time_on_stream};

/// The int32 add-min ceiling as measured by `apsp_addmin_peak` on this GPU.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct AddMinPeak {
    /// Add-mins per second at the median launch time.
    pub updates_per_s: f64,
    /// Per SM per clock at the GPU's rated clock (`clock_mhz`; the real clock may differ).
    pub per_sm_per_clock: f64,
    pub clock_mhz: u32,
    pub multiprocessors: u32,
    pub blocks: u32,
    pub threads_per_block: u32,
    pub iterations: u32,
    pub updates_per_launch: f64,
    pub timing: Timing,
}

/// Iterations of the peak kernel's loop: about 9 ms per launch on an H200.
pub const PEAK_ITERATIONS: u32 = 16_384;

/// Runs the add-min throughput kernel over one full wave of blocks (as many per SM as fit), one
/// warm-up and `reps` timed launches of `iterations` iterations each.
pub fn addmin_peak(gpu: &Gpu, iterations: u32, reps: usize) -> Result<AddMinPeak> {
    let f = gpu.function(PEAK_KERNEL)?;
    let info = gpu.info()?;
    let threads = BlockSize::x(PEAK_THREADS);
    let per_sm = f.max_active_blocks_per_multiprocessor(threads, 0)?.max(1);
    let blocks = per_sm * info.multiprocessors;
    let out = DeviceBuffer::from_slice(&[0i32])?;
    let stream = &gpu.stream;
    // w = -1: every chain keeps changing (no fixed point), as distances do in Floyd–Warshall.
    let timing = time_on_stream(stream, 1, reps, || {
        // SAFETY: the peak kernel takes (out, w, iterations) and writes only out[0], a live
        // one-element buffer kept until the timing (which waits for the stream) is done.
        unsafe {
            launch!(f<<<GridSize::x(blocks), threads, 0, stream>>>(
                out.as_device_ptr(),
                -1i32,
                iterations
            ))?
        };
        Ok(())
    })
    .context("the add-min peak kernel failed")?;
    let updates_per_launch =
        blocks as f64 * PEAK_THREADS as f64 * iterations as f64 * PEAK_UPDATES_PER_ITERATION as f64;
    let updates_per_s = updates_per_launch / (timing.median_ms * 1e-3);
    Ok(AddMinPeak {
        updates_per_s,
        per_sm_per_clock: updates_per_s
            / (info.multiprocessors as f64 * info.clock_mhz as f64 * 1e6),
        clock_mhz: info.clock_mhz,
        multiprocessors: info.multiprocessors,
        blocks,
        threads_per_block: PEAK_THREADS,
        iterations,
        updates_per_launch,
        timing,
    })
}
