//! Which tensor-core path runs a problem: the sm_90a (Hopper, `wgmma`) runner where the GPU and
//! the problem allow it, else the portable `mma.sync` kernel of the precision and layouts.
//!
//! [`hopper`] is the one place that decides whether the Hopper kernel (`crate::sm90`: `wgmma`,
//! TMA) runs: compute capability 9.0 with the `compute_90a` module loaded, BF16 or FP16, A
//! row-major, rows of A and B 16 bytes apart and both 16-byte aligned (what TMA needs). Anything
//! else it does not take, and the `mma.sync` kernel runs.
use anyhow::Result;
use cust::memory::DeviceSlice;
use gpu_kernels::tc::TcConfig;
use rgk_core::matmul::precision::Precision;

use super::{
    launch::{TcLaunch, config_for},
    problem::{Layout, Operand, TcGemm},
};
use crate::{
    gpu::Gpu,
    sm90::{self, BMajor, Sm90Gemm, Sm90Input, Sm90Launch},
};

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
    gpu: &Gpu,
    precision: Precision,
    op: &TcGemm,
    a: Operand,
    b: Operand,
    c: &DeviceSlice<f32>,
) -> Option<Result<()>> {
    let input = match precision {
        Precision::Bf16 => Sm90Input::Bf16,
        Precision::Fp16 => Sm90Input::Fp16,
        _ => return None,
    };
    let (Operand::Bits16(a), Operand::Bits16(b)) = (a, b) else {
        return None;
    };
    let b_major = match (op.a_layout, op.b_layout) {
        (Layout::RowMajor, Layout::RowMajor) => BMajor::N,
        (Layout::RowMajor, Layout::ColMajor) => BMajor::K,
        _ => return None,
    };
    let g = Sm90Gemm {
        m: op.m,
        n: op.n,
        k: op.k,
        lda: op.lda,
        ldb: op.ldb,
        ldc: op.ldc,
        alpha: op.alpha,
        beta: op.beta,
        input,
        b_major,
    };
    let aligned = |p: u64| p.is_multiple_of(16);
    if !sm90::supported(gpu)
        || g.check().is_err()
        || !aligned(a.as_device_ptr().as_raw())
        || !aligned(b.as_device_ptr().as_raw())
    {
        return None;
    }
    Some(Sm90Launch::new(gpu, &g, a, b, c).and_then(|l| l.launch()))
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
