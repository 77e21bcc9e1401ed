//! SGEMM on host arrays (copied to and from the GPU) and on device memory the caller owns
//! (PyTorch, CuPy, DLPack: zero-copy).
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer, DeviceSlice};
use host::{Error, Gemm, gemm_device};
use pyo3::prelude::*;

use crate::to_py;

/// The problem as the Python side describes it: `C (m x n) = alpha·A (m x k)·B (k x n) + beta·C`,
/// row-major, rows `lda`, `ldb`, `ldc` floats apart.
#[derive(Clone, Copy)]
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    alpha: f32,
    beta: f32,
}

impl Shape {
    fn op(&self) -> Gemm {
        Gemm::new(self.m, self.n, self.k)
            .alpha(self.alpha)
            .beta(self.beta)
            .leading_dims(self.lda, self.ldb, self.ldc)
    }
}

fn run(s: Shape, [a, b, c]: [usize; 3], on_device: bool, stream: usize) -> host::Result<()> {
    let op = s.op();
    op.check().map_err(Error::from)?;
    let (la, lb, lc) = op.min_lens();
    let gpu = crate::gpu()?;
    if on_device {
        // The caller's work on its stream (which produced A, B and C) must be done first; the
        // library then runs on its own stream and returns when C is written, so later work on
        // the caller's stream sees it.
        // SAFETY: `stream` is a stream handle of the current (primary) context, or 0 / 1 / 2
        // for the default streams (the contract of `gemm`).
        let status = unsafe { cust_raw::driver_sys::cuStreamSynchronize(stream as _) };
        host::gpu::check_driver(status, "cuStreamSynchronize(the tensors' stream)")
            .map_err(|e| Error::Gpu(e.into()))?;
        // SAFETY: `a`, `b`, `c` are device addresses of at least la, lb, lc floats in the
        // current context that stay allocated for the call (the contract of `gemm`);
        // `gemm_device` checks that C overlaps neither input.
        let (da, db, dc) = unsafe {
            (
                DeviceSlice::from_raw_parts(DevicePointer::<f32>::from_raw(a as u64), la),
                DeviceSlice::from_raw_parts(DevicePointer::<f32>::from_raw(b as u64), lb),
                DeviceSlice::from_raw_parts_mut(DevicePointer::<f32>::from_raw(c as u64), lc),
            )
        };
        return gemm_device(&gpu, &op, da, db, dc);
    }
    // SAFETY: host addresses of at least la, lb, lc floats, C writable and not aliased (the
    // contract of `gemm`).
    let (ha, hb, hc) = unsafe {
        (
            std::slice::from_raw_parts(a as *const f32, la),
            std::slice::from_raw_parts(b as *const f32, lb),
            std::slice::from_raw_parts_mut(c as *mut f32, lc),
        )
    };
    let up = |x: &[f32], what: &str| {
        DeviceBuffer::from_slice(x).map_err(|e| {
            Error::Gpu(anyhow::Error::new(e).context(format!("copying {what} to the GPU")))
        })
    };
    let (da, db) = (up(ha, "A")?, up(hb, "B")?);
    let mut dc = if s.beta != 0.0 {
        up(hc, "C")?
    } else {
        DeviceBuffer::<f32>::zeroed(lc).map_err(Error::from)?
    };
    gemm_device(&gpu, &op, &da, &db, &mut dc)?;
    dc.copy_to(hc).map_err(Error::from)?;
    Ok(())
}

/// `C = alpha·A·B + beta·C` in float32: `a`, `b`, `c` are host addresses (`on_device` false:
/// NumPy arrays, copied to and from the GPU) or device addresses in the primary context of
/// device 0 (`on_device` true: zero-copy, after the caller's `stream` is synchronized). A is
/// `m x k` with rows `lda` floats apart, B `k x n` (`ldb`), C `m x n` (`ldc`), all row-major.
///
/// The caller (rust_gpu_kernels._gemm) passes addresses of live arrays holding at least
/// `(rows - 1)·ld + cols` floats each, C writable, and keeps them alive during the call.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, c, m, n, k, lda, ldb, ldc, alpha, beta, on_device, stream))]
fn gemm(
    py: Python<'_>,
    a: usize,
    b: usize,
    c: usize,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    alpha: f32,
    beta: f32,
    on_device: bool,
    stream: usize,
) -> PyResult<()> {
    let s = Shape {
        m,
        n,
        k,
        lda,
        ldb,
        ldc,
        alpha,
        beta,
    };
    py.detach(move || run(s, [a, b, c], on_device, stream))
        .map_err(to_py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gemm, m)?)?;
    Ok(())
}
