//! The library's SGEMM: `C = alpha·A·B + beta·C` for row-major `f32` matrices, on host slices or
//! on the caller's device buffers.
//!
//! It runs the flagship kernels (`gpu-kernels/src/matmul/flagship.rs`), and for tiny N or M
//! (matrix–vector products included) the skinny kernels (`matmul/skinny.rs`), which take any
//! M, N, K ≥ 1 and leading dimensions ≥ the widths as they are: edge tiles are handled in the
//! kernel, so nothing is padded or copied. The kernel for a problem, its rasterization group and
//! its schedule come from `select` (the shape's class, the tuning cache that `host tune` writes,
//! else the defaults); the launch from `flagship` or `skinny`. This module reaches neither the tuner nor cuBLAS.
use anyhow::Context as _;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use gpu_kernels::matmul::stream_k::Schedule;

use super::{
    flagship::{FlagshipLaunch, flagship_config},
    problem::{Gemm, check_len, check_shape},
    select::{self, Choice},
    skinny::{SkinnyLaunch, skinny_config},
};
use crate::{error::Result, gpu::Gpu};

/// `C = A·B` on host memory: `a` is `m x k`, `b` is `k x n`, both dense row-major; returns the
/// `m x n` product. Dimensions are 1..=16384 each.
///
/// ```no_run
/// let gpu = host::Gpu::new(None)?;
/// let (m, n, k) = (3, 2, 4);
/// let a = vec![1.0f32; m * k];
/// let b = vec![0.5f32; k * n];
/// let c = host::sgemm(&gpu, &a, &b, m, n, k)?;
/// assert_eq!(c, vec![2.0; m * n]);
/// # Ok::<(), host::Error>(())
/// ```
pub fn sgemm(gpu: &Gpu, a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Result<Vec<f32>> {
    check_shape(m, n, k)?;
    check_len("A", a.len(), m * k, true)?;
    check_len("B", b.len(), k * n, true)?;
    let d_a = DeviceBuffer::from_slice(a).context("copying A to the GPU")?;
    let d_b = DeviceBuffer::from_slice(b).context("copying B to the GPU")?;
    let mut d_c = DeviceBuffer::<f32>::zeroed(m * n).context("allocating C on the GPU")?;
    sgemm_device(gpu, &d_a, &d_b, &mut d_c, m, n, k)?;
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..]).context("copying C back")?;
    Ok(c)
}

/// `C = A·B` on device buffers: `a` holds `m x k`, `b` `k x n` and `c` `m x n` dense
/// row-major matrices (each buffer at least that long). Runs on `gpu.stream` and returns when
/// the product is in `c`. For scaling and leading dimensions, see [`gemm_device`].
pub fn sgemm_device(
    gpu: &Gpu,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<()> {
    gemm_device(gpu, &Gemm::new(m, n, k), a, b, c)
}

/// `C = alpha·A·B + beta·C` as `op` describes, on the caller's device buffers, with no padding
/// and no copies. Runs on `gpu.stream` and returns when the result is in `c`.
///
/// Fails with [`crate::Error::BadInput`] (one sentence naming the problem) on a dimension out of
/// 1..=16384, a leading dimension smaller than its row width, a buffer too small for its
/// matrix, or C overlapping A or B.
///
/// ```no_run
/// use cust::memory::DeviceBuffer;
/// let gpu = host::Gpu::new(None)?;
/// // C (2 x 3, rows 4 apart) = 2·A·B + C, with A 2 x 5 and B 5 x 3 dense.
/// let a = DeviceBuffer::from_slice(&[1.0f32; 10]).unwrap();
/// let b = DeviceBuffer::from_slice(&[1.0f32; 15]).unwrap();
/// let mut c = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
/// let op = host::Gemm::new(2, 3, 5).alpha(2.0).beta(1.0).leading_dims(5, 3, 4);
/// host::gemm_device(&gpu, &op, &a, &b, &mut c)?;
/// # Ok::<(), host::Error>(())
/// ```
pub fn gemm_device(
    gpu: &Gpu,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, None, op, a, b, c)
}

/// [`gemm_device`] with the flagship or skinny kernel named `kernel` (a flagship one under
/// `schedule`) instead of the library's picks (for tests and tuning); a kernel that copies B in
/// 16-byte pieces refuses a B that does not allow them.
pub fn gemm_device_with_kernel(
    gpu: &Gpu,
    kernel: &str,
    schedule: Schedule,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, Some((kernel, schedule)), op, a, b, c)
}

fn gemm_device_on(
    gpu: &Gpu,
    choice: Option<(&str, Schedule)>,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    // Checked before a kernel is picked for it; `FlagshipLaunch::new` checks again (cheaply),
    // as it must, being the one that launches. B's layout decides which kernels may run.
    op.check_buffers([a, b, c])?;
    let vec_b = op.b_vector_ok(b);
    let (choice, asked) = match choice {
        Some((name, schedule)) => {
            let picked = match skinny_config(name) {
                Ok(cfg) => Ok(Choice::Skinny(cfg)),
                Err(_) => flagship_config(name).map(Choice::Flagship),
            };
            let picked =
                picked.map_err(|e| anyhow::Error::new(rgk_core::BadInput(e.to_string())))?;
            (picked, Some(schedule))
        }
        None => (select::pick_any(gpu, op.m, op.n, op.k, vec_b)?, None),
    };
    match choice {
        Choice::Skinny(cfg) => SkinnyLaunch::new(gpu, cfg, op, [a, b, c])?.launch()?,
        Choice::Flagship(cfg) => {
            let (group, schedule) = select::launch_settings(gpu, cfg, op.m, op.n, op.k, vec_b);
            let schedule = asked.unwrap_or(schedule);
            FlagshipLaunch::new(gpu, cfg, op, [a, b, c], group, schedule)?.launch()?;
        }
    }
    gpu.stream
        .synchronize()
        .context("SGEMM failed on the GPU")?;
    Ok(())
}
