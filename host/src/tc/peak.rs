//! The `mma.sync` ceiling (`gpu_kernels::tc::MMA_PEAK`): the tensor pipe's issue rate for one
//! instruction, measured by kernels that multiply registers only, so that the GEMM kernels'
//! speed can be read against what the instruction allows on this GPU (docs/tensor-cores.md).
use std::ffi::c_void;

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    memory::DeviceBuffer,
};
use gpu_kernels::tc::{MMA_PEAK, MMA_PEAK_CHAINS, MMA_PEAK_THREADS, MmaPeak, TcKind};

use crate::gpu::{Gpu, Timing, time_on_stream};

/// Blocks per SM: 16 warps, 4 per scheduler, each with [`MMA_PEAK_CHAINS`] independent
/// accumulators, far more than the instruction's latency needs.
const BLOCKS_PER_SM: u32 = 2;
/// Loop trips per warp: a launch of a few milliseconds at the H200's rate.
const ITERS: u32 = 16384;

/// The ceiling kernel of `kind` (3xTF32 issues TF32's instruction).
pub fn peak_of(kind: TcKind) -> &'static MmaPeak {
    let want = match kind {
        TcKind::Tf32x3 => TcKind::Tf32,
        k => k,
    };
    MMA_PEAK
        .iter()
        .find(|p| p.kind == want)
        .expect("MMA_PEAK has every instruction")
}

/// Times `peak` (one warm-up, then `reps` launches); returns the timing and the floating-point
/// operations of one launch.
pub fn time_peak(gpu: &Gpu, peak: &MmaPeak, reps: usize) -> Result<(Timing, f64)> {
    let blocks = BLOCKS_PER_SM * gpu.multiprocessors()?;
    let threads = blocks * MMA_PEAK_THREADS;
    let out = DeviceBuffer::<f32>::zeroed(threads as usize)?;
    let func = gpu.function(peak.name)?;
    let (ptr, iters) = (out.as_device_ptr().as_raw(), ITERS);
    let args = [
        &ptr as *const u64 as *mut c_void,
        &iters as *const u32 as *mut c_void,
    ];
    let timing = time_on_stream(&gpu.stream, 1, reps, || {
        // SAFETY: the kernel takes (f32 pointer, u32), as passed; `out` holds one f32 per
        // launched thread (blocks x MMA_PEAK_THREADS) and lives until after the timing, which
        // waits for every launch.
        unsafe {
            gpu.stream.launch(
                &func,
                GridSize::x(blocks),
                BlockSize::x(MMA_PEAK_THREADS),
                0,
                &args,
            )
        }
        .with_context(|| format!("launching {}", peak.name))
    })?;
    let warps = (threads / 32) as f64;
    let flops = warps * ITERS as f64 * MMA_PEAK_CHAINS as f64 * peak.flops_per_mma() as f64;
    Ok((timing, flops))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_ceiling_kernel_in_the_ptx() {
        for k in [TcKind::Bf16, TcKind::Fp16, TcKind::Tf32, TcKind::Tf32x3] {
            let p = peak_of(k);
            let head = format!(".visible .entry {}(", p.name);
            assert!(gpu_kernels::PTX.contains(&head), "{}", p.name);
        }
        assert_eq!(peak_of(TcKind::Tf32x3).flops_per_mma(), 2048);
        assert_eq!(peak_of(TcKind::Bf16).flops_per_mma(), 4096);
    }
}
