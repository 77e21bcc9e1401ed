//! The library's SGEMM: `C = A·B` for dense row-major `f32` matrices, on host slices or on the
//! caller's device buffers.
//!
//! The kernels work on whole tiles. Where M, N or K is not a multiple of the default kernel's
//! tile, the operands are copied into zero-padded device buffers (2D device-to-device copies;
//! nothing goes through the host) and the result is copied back out.
use anyhow::Context as _;
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer, DeviceSlice};
use cust_raw::driver_sys;
use rgk_core::{bad_input, matmul::pad::round_up};

use super::gpu::{Kernel, check_shape, kernel, launch_padded};
use crate::{error::Result, gpu::Gpu};

/// The kernel [`sgemm`] and [`sgemm_device`] run: the fastest of the ladder on an H200
/// (docs/matmul.md).
pub const DEFAULT_KERNEL: &str = "matmul_vec_b16x4_i4x16_k32";

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
    check_len("A", a.len(), m, k, true)?;
    check_len("B", b.len(), k, n, true)?;
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
/// the product is in `c`.
pub fn sgemm_device(
    gpu: &Gpu,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<()> {
    check_shape(m, n, k)?;
    check_len("A", a.len(), m, k, false)?;
    check_len("B", b.len(), k, n, false)?;
    check_len("C", c.len(), m, n, false)?;
    let kernel = kernel(DEFAULT_KERNEL)?;
    let padded = padded_shape(&kernel, m, n, k);
    if padded == (m, n, k) {
        launch_padded(
            gpu,
            &kernel,
            [a.as_device_ptr(), b.as_device_ptr(), c.as_device_ptr()],
            padded,
        )?;
    } else {
        let (mp, np, kp) = padded;
        let d_a = DeviceBuffer::<f32>::zeroed(mp * kp).context("allocating padded A")?;
        let d_b = DeviceBuffer::<f32>::zeroed(kp * np).context("allocating padded B")?;
        let d_c = DeviceBuffer::<f32>::zeroed(mp * np).context("allocating padded C")?;
        let s = &gpu.stream;
        copy_2d(s, d_a.as_device_ptr(), kp, a.as_device_ptr(), k, k, m)?;
        copy_2d(s, d_b.as_device_ptr(), np, b.as_device_ptr(), n, n, k)?;
        launch_padded(
            gpu,
            &kernel,
            [
                d_a.as_device_ptr(),
                d_b.as_device_ptr(),
                d_c.as_device_ptr(),
            ],
            padded,
        )?;
        copy_2d(s, c.as_device_ptr(), n, d_c.as_device_ptr(), np, n, m)?;
        // The padded buffers are freed on drop, which must wait for the copies.
        s.synchronize().context("SGEMM failed on the GPU")?;
        return Ok(());
    }
    gpu.stream
        .synchronize()
        .context("SGEMM failed on the GPU")?;
    Ok(())
}

/// The problem rounded up to `kernel`'s tile multiples.
fn padded_shape(kernel: &Kernel, m: usize, n: usize, k: usize) -> (usize, usize, usize) {
    let (tm, tn, tk) = kernel.tile;
    (
        round_up(m, tm as usize),
        round_up(n, tn as usize),
        round_up(k, tk as usize),
    )
}

/// `what` must hold a `rows x cols` matrix: exactly (host slices) or at least (device buffers).
fn check_len(what: &str, len: usize, rows: usize, cols: usize, exact: bool) -> anyhow::Result<()> {
    let need = rows * cols;
    if len < need || (exact && len != need) {
        return bad_input(format!(
            "{what} has {len} elements but a {rows} x {cols} matrix needs {}{need}",
            if exact { "" } else { "at least " }
        ));
    }
    Ok(())
}

/// Copies a `rows x width` block of f32 from `src` (rows `src_pitch` apart) to `dst` (rows
/// `dst_pitch` apart), device to device, on `stream`.
fn copy_2d(
    stream: &cust::stream::Stream,
    dst: DevicePointer<f32>,
    dst_pitch: usize,
    src: DevicePointer<f32>,
    src_pitch: usize,
    width: usize,
    rows: usize,
) -> anyhow::Result<()> {
    const F32: usize = size_of::<f32>();
    // SAFETY: zero is a valid bit pattern for every field of this plain C struct.
    let mut p: driver_sys::CUDA_MEMCPY2D = unsafe { std::mem::zeroed() };
    p.srcMemoryType = driver_sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
    p.srcDevice = src.as_raw();
    p.srcPitch = src_pitch * F32;
    p.dstMemoryType = driver_sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dst.as_raw();
    p.dstPitch = dst_pitch * F32;
    p.WidthInBytes = width * F32;
    p.Height = rows;
    // SAFETY: both pointers come from live device allocations the callers checked to hold
    // `rows` rows of the given pitches.
    let code = unsafe { driver_sys::cuMemcpy2DAsync(&p, stream.as_inner()) };
    if code != driver_sys::cudaError_enum::CUDA_SUCCESS {
        anyhow::bail!("a 2D device copy failed ({code:?})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_and_named() {
        assert!(check_len("A", 12, 3, 4, true).is_ok());
        let e = check_len("A", 11, 3, 4, true).unwrap_err();
        assert!(e.is::<rgk_core::BadInput>());
        assert!(e.to_string().contains("A has 11 elements"), "{e}");
        assert!(check_len("C", 13, 3, 4, true).is_err());
        assert!(check_len("C", 13, 3, 4, false).is_ok());
    }

    #[test]
    fn default_kernel_exists_and_pads_to_its_tiles() {
        let k = kernel(DEFAULT_KERNEL).unwrap();
        let (tm, tn, tk) = k.tile;
        let (tm, tn, tk) = (tm as usize, tn as usize, tk as usize);
        assert_eq!(padded_shape(&k, tm, tn, tk), (tm, tn, tk));
        assert_eq!(padded_shape(&k, tm + 1, 1, tk - 1), (2 * tm, tn, tk));
    }
}
