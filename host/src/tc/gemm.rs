//! The library's tensor-core GEMM: `C = alpha·op(A)·op(B) + beta·C` in a [`Precision`] on the
//! caller's device buffers (A and B row- or column-major, C f32 row-major). FP32 goes to the
//! flagship SGEMM (`crate::matmul::sgemm`), the others to `select`.
use anyhow::Context as _;
use cust::memory::DeviceSlice;
use rgk_core::{bad_input, matmul::precision::Precision};

use super::{
    launch::tc_config,
    problem::{Layout, Operand, TcGemm, check_buffers},
    select::{self, Path},
};
use crate::{
    error::Result,
    gpu::Gpu,
    matmul::{problem::Gemm, sgemm::gemm_device},
};

/// `C = alpha·A·B + beta·C` with A and B in `precision` (f32 buffers for FP32, TF32 and
/// 3xTF32; BF16 or FP16 bits for the 16-bit precisions), accumulated in f32, on `gpu.stream`;
/// returns when the result is in `c`, with the path that computed it.
///
/// Fails with [`crate::Error::BadInput`] (one sentence) on a dimension out of 1..=16384, a
/// leading dimension below its line width or not a multiple of 16 bytes (A, B), a buffer too
/// small, of the wrong element type, not 16-byte aligned, or C overlapping A or B. FP32 takes
/// row-major operands only (the flagship's interface).
///
/// ```no_run
/// use cust::memory::DeviceBuffer;
/// use host::tc::{Layout, Operand, TcGemm, gemm_tc};
/// use rgk_core::matmul::precision::{Precision, f32_to_bf16};
/// let gpu = host::Gpu::new(None)?;
/// let a: Vec<u16> = vec![f32_to_bf16(1.0); 64 * 32];
/// let b: Vec<u16> = vec![f32_to_bf16(0.5); 32 * 16];
/// let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
/// let mut c = DeviceBuffer::from_slice(&[0f32; 64 * 16]).unwrap();
/// let op = TcGemm::new(64, 16, 32).layouts(Layout::RowMajor, Layout::RowMajor);
/// gemm_tc(&gpu, Precision::Bf16, &op, Operand::Bits16(&da), Operand::Bits16(&db), &mut c)?;
/// # Ok::<(), host::Error>(())
/// ```
pub fn gemm_tc(
    gpu: &Gpu,
    precision: Precision,
    op: &TcGemm,
    a: Operand,
    b: Operand,
    c: &mut DeviceSlice<f32>,
) -> Result<Path> {
    gemm_tc_on(gpu, precision, None, op, a, b, c)
}

/// [`gemm_tc`] with the `mma.sync` kernel named `kernel` (for tests and the ladder of
/// docs/tensor-cores.md); refused when it does not compute `precision` in `op`'s layouts.
pub fn gemm_tc_with_kernel(
    gpu: &Gpu,
    precision: Precision,
    kernel: &str,
    op: &TcGemm,
    a: Operand,
    b: Operand,
    c: &mut DeviceSlice<f32>,
) -> Result<Path> {
    let cfg =
        tc_config(kernel).map_err(|e| anyhow::Error::new(rgk_core::BadInput(e.to_string())))?;
    gemm_tc_on(gpu, precision, Some(cfg), op, a, b, c)
}

fn gemm_tc_on(
    gpu: &Gpu,
    precision: Precision,
    forced: Option<&'static gpu_kernels::tc::TcConfig>,
    op: &TcGemm,
    a: Operand,
    b: Operand,
    c: &mut DeviceSlice<f32>,
) -> Result<Path> {
    if precision == Precision::Fp32 {
        let (Operand::F32(a), Operand::F32(b)) = (a, b) else {
            return Err(bad_input::<()>("FP32 takes f32 buffers for A and B")
                .unwrap_err()
                .into());
        };
        if (op.a_layout, op.b_layout) != (Layout::RowMajor, Layout::RowMajor) {
            return Err(bad_input::<()>("FP32 takes row-major A and B")
                .unwrap_err()
                .into());
        }
        let g = Gemm::new(op.m, op.n, op.k)
            .alpha(op.alpha)
            .beta(op.beta)
            .leading_dims(op.lda, op.ldb, op.ldc);
        gemm_device(gpu, &g, a, b, c)?;
        return Ok(Path::MmaSync("sgemm"));
    }
    check_buffers(op, precision, a, b, c)?;
    let path = select::launch(gpu, precision, forced, op, a, b, c)?;
    gpu.stream
        .synchronize()
        .context("the tensor-core GEMM failed on the GPU")?;
    Ok(path)
}
