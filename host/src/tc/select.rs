//! Which tensor-core path runs a problem: the sm_90a (Hopper, `wgmma`) runner where the GPU and
//! the problem allow it, else the portable `mma.sync` kernel of the precision and layouts.
//!
//! [`hopper`] is the one place that decides whether the Hopper kernel (`crate::sm90`: `wgmma`,
//! TMA) runs: compute capability 9.0 with the `compute_90a` module loaded, rows of A and B 16
//! bytes apart and both 16-byte aligned (what TMA needs), and for BF16 or FP16 A row-major; TF32
//! and 3xTF32 take every layout ([`tf32_launch`]: a split pass makes the operands K-major; TF32
//! with A and B row-major may read B in place instead, as [`TF32_ROW_MAJOR_B`] says).
//! Anything else it does not take, and the `mma.sync` kernel runs.
use anyhow::{Context as _, Result};
use cust::memory::DeviceSlice;
use gpu_kernels::tc::TcConfig;
use rgk_core::matmul::precision::Precision;

use super::{
    launch::{TcLaunch, config_for},
    problem::{Layout, Operand, TcGemm},
};
use crate::{
    gpu::Gpu,
    sm90::{
        self, BMajor, Schedule, Sm90Gemm, Sm90Input, Sm90Launch,
        tf32::{RowMajorB, Tf32Gemm, Tf32Kind, Tf32Launch, Tf32Options},
    },
};

/// The schedule the library's Hopper calls use (16-bit and TF32): the fastest rung of the
/// ladder measured on the H200 (docs/sm90.md): persistent (a block per SM), every wgmma retired
/// at each slice (depth 1 was 0.3-0.7 % slower), groups of 8 tile rows, and stream-K by the
/// tile count (`skl` from [`sm90::schedule::SK_AUTO_MIN_WAVES`] waves up: `Schedule::resolve`).
pub const HOPPER_SCHEDULE: Schedule = Schedule {
    depth: 0,
    blocks: sm90::Blocks::PerSm,
    group: 8,
    stream_k: None,
    sk_last: false,
    sk_auto: true,
    pair: false,
    direct_store: false,
};

/// How library calls read a row-major B in TF32 when A is row-major (the library's default
/// layouts). The one place that chooses it. In place (the transposed product, no pass): since
/// session 18 its k8 steps retire one by one (`wgmma_tf32_kn_256x128x32_s4w1`) and on the H200
/// it ran at 101.2 / 101.8 % of cuBLAS TF32 at 4096² / 8192² against the split pass's 97.2 /
/// 101.5 % in the same rounds (docs/sm90.md, "Session 18"); before, with two halves of a slice
/// retired in turn, it was the slower one (90.7-94.3 %, sessions 8 and 17). The K-major kernel
/// whose producer threads load B (`RowMajorB::Load`, session 9) ran at 25-42 %.
pub const TF32_ROW_MAJOR_B: RowMajorB = RowMajorB::InPlace;

/// The f32 Hopper GEMM's options in library calls: [`Tf32Options::default`] on
/// [`HOPPER_SCHEDULE`], B row-major read as [`TF32_ROW_MAJOR_B`] says.
pub fn tf32_options() -> Tf32Options {
    Tf32Options {
        schedule: HOPPER_SCHEDULE,
        row_b: TF32_ROW_MAJOR_B,
        ..Tf32Options::default()
    }
}

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
    if let Precision::Tf32 | Precision::Tf32x3 = precision {
        let launch = tf32_launch(gpu, precision, op, a, b, c, tf32_options())?;
        // The launch owns the split passes' scratch: wait before it is freed.
        return Some(launch.and_then(|l| {
            l.launch()?;
            gpu.stream
                .synchronize()
                .context("the f32 Hopper GEMM failed on the GPU")
        }));
    }
    Some(sm90_launch(gpu, precision, op, a, b, c, HOPPER_SCHEDULE)?.and_then(|l| l.launch()))
}

/// The 16-bit Hopper runner for BF16 or FP16 with `sched`, prepared (tensor maps) but not
/// launched, if it takes this problem (see the module's doc); `None` otherwise. The benchmark
/// prepares once and times launches.
pub fn sm90_launch<'a>(
    gpu: &'a Gpu,
    precision: Precision,
    op: &TcGemm,
    a: Operand<'a>,
    b: Operand<'a>,
    c: &'a DeviceSlice<f32>,
    sched: Schedule,
) -> Option<Result<Sm90Launch<'a>>> {
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
    Some(Sm90Launch::new(gpu, &g, a, b, c, sched))
}

/// The f32 Hopper runner for TF32 or 3xTF32 with `opts`, prepared (scratch, tensor maps) but
/// not launched, if it takes this problem (compute capability 9.0, f32 operands 16-byte
/// aligned); `None` otherwise. The benchmark prepares once and times launches.
pub fn tf32_launch<'a>(
    gpu: &'a Gpu,
    precision: Precision,
    op: &TcGemm,
    a: Operand<'a>,
    b: Operand<'a>,
    c: &'a DeviceSlice<f32>,
    opts: Tf32Options,
) -> Option<Result<Tf32Launch<'a>>> {
    let kind = match precision {
        Precision::Tf32 => Tf32Kind::Tf32,
        Precision::Tf32x3 => Tf32Kind::Tf32x3,
        _ => return None,
    };
    let (Operand::F32(a), Operand::F32(b)) = (a, b) else {
        return None;
    };
    let g = Tf32Gemm {
        m: op.m,
        n: op.n,
        k: op.k,
        lda: op.lda,
        ldb: op.ldb,
        ldc: op.ldc,
        alpha: op.alpha,
        beta: op.beta,
        kind,
        a_k_major: op.a_layout == Layout::RowMajor,
        b_k_major: op.b_layout == Layout::ColMajor,
    };
    let aligned = |p: u64| p.is_multiple_of(16);
    if !sm90::supported(gpu)
        || g.check_buffers(a.len(), b.len(), c.len()).is_err()
        || !aligned(a.as_device_ptr().as_raw())
        || !aligned(b.as_device_ptr().as_raw())
    {
        return None;
    }
    Some(Tf32Launch::new(gpu, &g, a, b, c, opts))
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
