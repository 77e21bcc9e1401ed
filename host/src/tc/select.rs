//! Which tensor-core path runs a problem: the sm_90a (Hopper, `wgmma`) runner where the GPU and
//! the problem allow it, else the portable `mma.sync` kernel of the precision and layouts.
//!
//! **Hook for the sm_90a path (helper R's merge):** [`hopper`] is the one place that decides
//! whether a Hopper kernel runs. It returns `None` (not taken) until that runner exists; fill
//! it with: compute capability 9.0 and a `compute_90a` module present → launch the Hopper
//! kernel for `precision` on these buffers and return `Some(result)`; anything it does not take
//! (a precision, layout or alignment it lacks) → `None`, and the `mma.sync` kernel runs.
use anyhow::Result;
use cust::memory::DeviceSlice;
use gpu_kernels::tc::TcConfig;
use rgk_core::matmul::precision::Precision;

use super::{
    launch::{TcLaunch, config_for},
    problem::{Operand, TcGemm},
};
use crate::gpu::Gpu;

/// The path a problem takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// The sm_90a runner (`wgmma`, TMA).
    Hopper,
    /// The portable kernel, by name.
    MmaSync(&'static str),
}

/// The sm_90a runner, if it takes this problem: `Some` with the launch's result (launched on
/// `gpu.stream`, without waiting), `None` where it does not run. See the module's doc.
pub fn hopper(
    _gpu: &Gpu,
    _precision: Precision,
    _op: &TcGemm,
    _a: Operand,
    _b: Operand,
    _c: &DeviceSlice<f32>,
) -> Option<Result<()>> {
    // HOOK(sm90): helper R's `wgmma` runner goes here.
    None
}

/// Runs `op` in `precision` on the first path that takes it, on `gpu.stream` without waiting;
/// `forced` names an `mma.sync` kernel to run instead (tests, the ladder).
pub fn launch(
    gpu: &Gpu,
    precision: Precision,
    forced: Option<&'static TcConfig>,
    op: &TcGemm,
    a: Operand,
    b: Operand,
    c: &DeviceSlice<f32>,
) -> Result<Path> {
    if forced.is_none()
        && let Some(r) = hopper(gpu, precision, op, a, b, c)
    {
        r?;
        return Ok(Path::Hopper);
    }
    let cfg = match forced {
        Some(cfg) => cfg,
        None => config_for(precision, op)?,
    };
    TcLaunch::new(gpu, cfg, precision, op, a, b, c)?.launch()?;
    Ok(Path::MmaSync(cfg.name))
}
