//! What a launch costs with no work in it (`host apsp-small` reports it beside the schedules):
//! the one-thread hold kernel with a zero time, launched plainly and cooperatively with a grid
//! the size of the persistent kernels', between two CUDA events, the stream held before the
//! first so that the CPU's launch call is not in the time. The floor under any schedule's
//! compute time at small V, whatever its kernels do.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    launch,
};
use gpu_kernels::apsp::SMALL_HOLD_KERNEL;
use serde::Serialize;

use super::small::{hold, launch_cooperative};
use crate::gpu::{Gpu, Timing};

/// Threads per block of the cooperative launch (as `fw_pull_b64`'s 16 x 16).
const COOPERATIVE_THREADS: u32 = 256;
/// Blocks per SM of the cooperative launch (as `fw_pull_b64`'s occupancy on the H200).
const COOPERATIVE_BLOCKS_PER_SM: u32 = 4;

/// Empty launches between CUDA events (ms, as every `Timing`).
#[derive(Clone, Debug, Serialize)]
pub struct LaunchFloor {
    /// One plain launch of one thread.
    pub plain: Timing,
    /// One cooperative launch of `grid` blocks of 256 threads.
    pub cooperative: Timing,
    pub grid: u32,
}

/// Times the empty launches `reps` times each (after one warm-up), the stream held 200 µs
/// before each start event.
pub fn launch_floor(gpu: &Gpu, reps: usize) -> Result<LaunchFloor> {
    let f = gpu.function(SMALL_HOLD_KERNEL)?;
    let stream = &gpu.stream;
    let grid = COOPERATIVE_BLOCKS_PER_SM * gpu.multiprocessors()?;
    let time = |cooperative: bool| -> Result<Timing> {
        let mut samples = Vec::with_capacity(reps);
        for i in 0..=reps {
            let (start, stop) = (
                Event::new(EventFlags::DEFAULT)?,
                Event::new(EventFlags::DEFAULT)?,
            );
            hold(gpu, 200_000)?;
            start.record(stream)?;
            let mut ns = 0u64;
            if cooperative {
                let mut params = [(&raw mut ns).cast::<std::ffi::c_void>()];
                // SAFETY: the hold kernel takes one u64 and touches no memory; any grid that
                // fits is sound (it waits for nothing), and the driver refuses one that does not.
                unsafe {
                    launch_cooperative(&f, grid, (COOPERATIVE_THREADS, 1), stream, &mut params)
                }
                .context("the empty cooperative launch")?;
            } else {
                // SAFETY: as above, one thread.
                unsafe { launch!(f<<<1, 1, 0, stream>>>(ns)) }
                    .context("launching the empty kernel")?;
            }
            stop.record(stream)?;
            stop.synchronize().context("the empty launch failed")?;
            if i > 0 {
                samples.push(stop.elapsed_time_f32(&start)? as f64);
            }
        }
        Ok(Timing::from_samples(samples))
    };
    Ok(LaunchFloor {
        plain: time(false)?,
        cooperative: time(true)?,
        grid,
    })
}
