//! Johnson's reweighting on the GPU: an f32 matrix with negative weights made non-negative by
//! Bellman–Ford potentials, so that the `nonneg` kernels close it (about 1.15× faster than the
//! general ones at V = 30000: docs/python.md). The kernels and why the distances are those of
//! the matrix as given: `gpu_kernels::apsp::float_reweight`.
use std::{ffi::c_void, mem, time::Instant};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    memory::{CopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::float_reweight::{
    POTENTIAL_COLUMNS, POTENTIAL_KERNEL, POTENTIAL_ROW_GROUPS, POTENTIAL_THREADS, POTENTIAL_UNROLL,
    PotentialArgs, REWEIGHT_KERNEL, REWEIGHT_THREADS, ReweightArgs,
};
use serde::Serialize;

use crate::gpu::Gpu;

/// The smallest V at which `solve_dense` reweights a signed f32 matrix. Below it the solve is
/// too short for the gain to pay for the Bellman–Ford launches and the two passes over the
/// matrix: on the H200 (session 21, docs/python.md) the reweighted solve took 103–105 % of the
/// general kernels' time at V = 3000 and 4096, 100 % at 5000, 96 % at 6144, 92 % at 8192 and
/// 86–87 % at 30000.
pub const REWEIGHT_MIN_V: usize = 6144;

/// The most Bellman–Ford launches before a solve of the padded size `n` gives up on potentials
/// (a negative cycle, or shortest paths of more edges from the virtual source) and runs the
/// general kernels on the matrix as given. A launch reads the matrix once: ~1.1 ms at V =
/// 30000 against a 2.2 s solve, so about 1/(15 n) of a solve, and `n / 256` launches give up
/// at most ~5 % of it.
pub fn max_iterations(n: usize) -> u32 {
    (n / 256).clamp(16, 128) as u32
}

/// What the potentials' search did.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ReweightReport {
    /// Bellman–Ford launches (the last one changed nothing when `converged`).
    pub iterations: u32,
    /// Whether potentials were found: the `nonneg` kernels ran on the reweighted matrix.
    /// Otherwise the general kernels ran on the matrix as given.
    pub converged: bool,
    /// Wall time of the launches, seconds (each one waited for, to read its flag).
    pub potentials_s: f64,
}

/// Bellman–Ford launches queued between two reads of their flags: a read waits for the stream
/// (~70 µs a launch when each was waited for: 0.74 ms of 7.6 at V = 4096, session 21), while a
/// launch after convergence changes nothing and costs one pass over the matrix (~0.85 ms at V =
/// 30000, a 2 s solve).
const LAUNCHES_PER_READ: u32 = 4;

/// The potentials of the padded `n x n` f32 matrix at device address `d`, or `None` after
/// `cap` launches without convergence; the report either way. Launches are queued
/// [`LAUNCHES_PER_READ`] at a time, each with a flag of its own, so that the report names the
/// first launch that changed nothing; the ones after it leave the potentials as they are.
pub(crate) fn potentials(
    gpu: &Gpu,
    d: u64,
    n: usize,
    cap: u32,
) -> Result<(Option<DeviceBuffer<f64>>, ReweightReport)> {
    let step = (POTENTIAL_ROW_GROUPS * POTENTIAL_UNROLL) as usize;
    anyhow::ensure!(
        n.is_multiple_of(step) && n.is_multiple_of(POTENTIAL_COLUMNS as usize),
        "the potential kernel needs a multiple of {step} vertices, not {n}"
    );
    let zeros = vec![0f64; n];
    let (mut h_in, mut h_out) = (
        DeviceBuffer::from_slice(&zeros).context("allocating the potentials")?,
        DeviceBuffer::from_slice(&zeros).context("allocating the potentials")?,
    );
    let flags = DeviceBuffer::from_slice(&vec![0u32; cap as usize])?;
    let f = gpu.function(POTENTIAL_KERNEL)?;
    let stream = &gpu.stream;
    let grid = GridSize::x((n / POTENTIAL_COLUMNS as usize) as u32);
    let t0 = Instant::now();
    let (mut launched, mut read) = (0, vec![0u32; cap as usize]);
    while launched < cap {
        let batch = LAUNCHES_PER_READ.min(cap - launched);
        for i in launched..launched + batch {
            // Flag i (< cap) of `flags`: 4-byte words.
            let flag = flags.as_device_ptr().as_raw() + 4 * i as u64;
            let args = PotentialArgs {
                d: d as *const f32,
                h_in: h_in.as_device_ptr().as_raw() as *const f64,
                h_out: h_out.as_device_ptr().as_raw() as *mut f64,
                changed: flag as *mut u32,
                n: n as u32,
            };
            let params = [&args as *const PotentialArgs as *mut c_void];
            // SAFETY: the one parameter is the kernel's `PotentialArgs` by value; `d` is the
            // caller's live n x n f32 matrix, h_in/h_out two live n-entry buffers, `changed`
            // this launch's live flag, none touched by the host until the synchronize below
            // (the launches on the one stream run in order); n is a multiple of the loop's
            // step and of the block's columns (checked above), and the grid is
            // n / POTENTIAL_COLUMNS blocks of POTENTIAL_THREADS, as the kernel wants.
            unsafe { stream.launch(&f, grid, BlockSize::x(POTENTIAL_THREADS), 0, &params) }
                .with_context(|| format!("launching {POTENTIAL_KERNEL}"))?;
            mem::swap(&mut h_in, &mut h_out);
        }
        stream
            .synchronize()
            .with_context(|| format!("{POTENTIAL_KERNEL} failed"))?;
        flags.copy_to(&mut read[..])?;
        launched += batch;
        if let Some(still) = read[..launched as usize].iter().position(|&c| c == 0) {
            let report = ReweightReport {
                iterations: still as u32 + 1,
                converged: true,
                potentials_s: t0.elapsed().as_secs_f64(),
            };
            // `h_in` holds the last launch's output, equal to that of the first unchanged one.
            return Ok((Some(h_in), report));
        }
    }
    let report = ReweightReport {
        iterations: cap,
        converged: false,
        potentials_s: t0.elapsed().as_secs_f64(),
    };
    Ok((None, report))
}

/// Reweights the padded `n x n` f32 matrix at device address `d` with the potentials `h`
/// (`back`: undoes it on the distances), queued on the GPU's stream.
pub(crate) fn reweight(
    gpu: &Gpu,
    d: u64,
    n: usize,
    h: &DeviceBuffer<f64>,
    back: bool,
) -> Result<()> {
    anyhow::ensure!(h.len() == n, "{} potentials for {n} vertices", h.len());
    let f = gpu.function(REWEIGHT_KERNEL)?;
    let args = ReweightArgs {
        d: d as *mut f32,
        h: h.as_device_ptr().as_raw() as *const f64,
        n: n as u32,
        back: back as u32,
    };
    let params = [&args as *const ReweightArgs as *mut c_void];
    // Each thread walks rows y, y + 1024, ..: enough blocks to fill the GPU, few enough that
    // each does some work.
    let grid = GridSize::xy((n as u32).div_ceil(REWEIGHT_THREADS), n.min(1024) as u32);
    // SAFETY: the one parameter is the kernel's `ReweightArgs` by value; `d` is the caller's
    // live n x n f32 matrix and `h` n live potentials, both kept by the caller until the
    // stream is synchronized and written by nothing else meanwhile; the grid covers the n
    // columns with REWEIGHT_THREADS-thread blocks, as the kernel wants.
    unsafe {
        gpu.stream
            .launch(&f, grid, BlockSize::x(REWEIGHT_THREADS), 0, &params)
    }
    .with_context(|| format!("launching {REWEIGHT_KERNEL}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{POTENTIAL_KERNEL, PotentialArgs, REWEIGHT_KERNEL, ReweightArgs, max_iterations};

    #[test]
    fn the_kernels_take_one_args_struct() {
        // `potentials` and `reweight` pass one pointer to their struct: each entry must take
        // exactly one parameter of its size.
        for (name, size) in [
            (POTENTIAL_KERNEL, size_of::<PotentialArgs>()),
            (REWEIGHT_KERNEL, size_of::<ReweightArgs>()),
        ] {
            let params = crate::gpu::ptx_entry_params(gpu_kernels::PTX, name)
                .unwrap_or_else(|| panic!("{name} not in the PTX"));
            assert_eq!(params.matches(".param").count(), 1, "{name}: {params}");
            assert!(
                params.trim().ends_with(&format!("[{size}]")),
                "{name}: {params}"
            );
        }
    }

    #[test]
    fn the_launch_cap_grows_with_v_within_bounds() {
        assert_eq!(max_iterations(64), 16);
        assert_eq!(max_iterations(8192), 32);
        assert_eq!(max_iterations(30016), 117);
        assert_eq!(max_iterations(65536), 128);
        assert!((64..100_000).step_by(64).all(|n| {
            let c = max_iterations(n);
            (16..=128).contains(&c) && c >= max_iterations(n.saturating_sub(64))
        }));
    }
}
