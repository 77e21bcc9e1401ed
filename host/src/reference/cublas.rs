//! cuBLAS SGEMM as the reference GPU GEMM, loaded at run time: linking it here would need the
//! large cuBLAS wheel, and the GPU machines have the library. FP32 only (no TF32): the result
//! is held to the same error bound as the Rust kernels, which TF32 would not meet.
use std::{
    ffi::{c_int, c_void},
    fmt,
    sync::OnceLock,
};

use anyhow::{Context as _, Result};
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};

use crate::{
    dynlib::{self, LoadError, Loaded},
    gpu::{Gpu, check_free_memory, time_on_stream},
    matmul::{
        gpu::{GpuResult, Problem},
        problem::{Gemm, Op, check_shape},
    },
};

type Handle = *mut c_void;
type Status = c_int;
const CUBLAS_OP_N: c_int = 0;
const CUBLAS_OP_T: c_int = 1;
const CUBLAS_DEFAULT_MATH: c_int = 0;

/// cuBLAS's `cublasOperation_t` for an [`Op`].
fn cublas_op(op: Op) -> c_int {
    match op {
        Op::N => CUBLAS_OP_N,
        Op::T => CUBLAS_OP_T,
    }
}

type Sgemm = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    *const f32,
    *mut f32,
    c_int,
) -> Status;

/// `cublasSgemmStridedBatched`: the `Sgemm` arguments with a `long long` stride after each
/// matrix, and the batch count last.
type SgemmStridedBatched = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const f32,
    *const f32,
    c_int,
    i64,
    *const f32,
    c_int,
    i64,
    *const f32,
    *mut f32,
    c_int,
    i64,
    c_int,
) -> Status;

/// cuBLAS's entry points this module calls (cublas_api.h), resolved once per process.
struct Api {
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    set_stream: unsafe extern "C" fn(Handle, *mut c_void) -> Status,
    set_math_mode: unsafe extern "C" fn(Handle, c_int) -> Status,
    sgemm: Sgemm,
    sgemm_strided_batched: SgemmStridedBatched,
    /// Keeps the pointers above valid: never unloaded.
    lib: Loaded,
}

/// The file names cuBLAS is looked for under (also `gemm_ex`'s).
pub(super) fn candidates() -> Vec<String> {
    let mut c = Vec::new();
    if let Ok(p) = std::env::var("CUBLAS_LIBRARY") {
        c.push(p);
    }
    c.extend(["libcublas.so.13", "libcublas.so.12", "libcublas.so"].map(String::from));
    for root in [
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib",
    ] {
        c.push(format!("{root}/libcublas.so.13"));
    }
    c
}

impl Api {
    /// The table, loaded on first use; the same error every time when cuBLAS is missing.
    fn get() -> Result<&'static Api, LoadError> {
        static API: OnceLock<Result<Api, LoadError>> = OnceLock::new();
        API.get_or_init(|| {
            let lib = dynlib::open_first(
                "cuBLAS (libcublas.so, or set CUBLAS_LIBRARY to its path)",
                &candidates(),
            )?;
            // SAFETY: each type is the entry point's declaration in cublas_api.h (CUDA 12 and
            // 13: the `_v2` names, `cublasStatus_t` and the enums are C ints, the strides
            // `long long`); `lib` is kept in
            // the table, which lives for the rest of the process.
            unsafe {
                Ok(Api {
                    create: lib.symbol("cublasCreate_v2")?,
                    destroy: lib.symbol("cublasDestroy_v2")?,
                    set_stream: lib.symbol("cublasSetStream_v2")?,
                    set_math_mode: lib.symbol("cublasSetMathMode")?,
                    sgemm: lib.symbol("cublasSgemm_v2")?,
                    sgemm_strided_batched: lib.symbol("cublasSgemmStridedBatched")?,
                    lib,
                })
            }
        })
        .as_ref()
        .map_err(Clone::clone)
    }
}

/// A cuBLAS call that returned a status other than `CUBLAS_STATUS_SUCCESS`.
#[derive(Clone, Debug)]
pub struct CublasError {
    pub call: &'static str,
    pub status: Status,
}

impl fmt::Display for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed with cuBLAS status {}", self.call, self.status)
    }
}

impl std::error::Error for CublasError {}

pub(super) fn check(call: &'static str, status: Status) -> Result<(), CublasError> {
    match status {
        0 => Ok(()),
        status => Err(CublasError { call, status }),
    }
}

/// A cuBLAS handle bound to one GPU's stream.
pub struct Cublas {
    api: &'static Api,
    handle: Handle,
    /// Which file was loaded.
    pub path: String,
}

impl Cublas {
    /// Loads cuBLAS (once per process) and creates a handle bound to the GPU's stream; Err says
    /// why it is unavailable.
    pub fn load(gpu: &Gpu) -> Result<Cublas> {
        let api = Api::get()?;
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid place for the handle cublasCreate writes; the GPU's
        // context is current (as for every call on a `Gpu`).
        check("cublasCreate", unsafe { (api.create)(&mut handle) })?;
        // From here on, `Drop` destroys the handle whatever fails next.
        let cublas = Cublas {
            api,
            handle,
            path: api.lib.path.clone(),
        };
        // SAFETY: a live handle and the raw handle of a stream of the current context, which
        // outlives every call made through it (the callers hold the `Gpu`).
        check("cublasSetStream", unsafe {
            (api.set_stream)(handle, gpu.stream.as_inner() as *mut c_void)
        })?;
        // SAFETY: a live handle; CUBLAS_DEFAULT_MATH is a valid cublasMath_t.
        check("cublasSetMathMode", unsafe {
            (api.set_math_mode)(handle, CUBLAS_DEFAULT_MATH)
        })?;
        Ok(cublas)
    }

    /// Row-major C = A·B through column-major cuBLAS as C^T = B^T·A^T (no transposes needed);
    /// dense `m x k` A and `k x n` B, launched on the GPU's stream without waiting.
    pub fn sgemm(
        &self,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &DeviceBuffer<f32>,
    ) -> Result<()> {
        check_shape(m, n, k)?;
        for (what, buf, need) in [("A", a, m * k), ("B", b, k * n), ("C", c, m * n)] {
            anyhow::ensure!(buf.len() >= need, "{what} is too small for {m}x{n}x{k}");
        }
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: a live handle; the dimensions (≤ 16384, so they fit in a C int) and leading
        // dimensions describe the buffers, which hold them (checked above); alpha and beta are
        // host scalars (the default pointer mode) read before the call returns.
        let status = unsafe {
            (self.api.sgemm)(
                self.handle,
                CUBLAS_OP_N,
                CUBLAS_OP_N,
                n as c_int,
                m as c_int,
                k as c_int,
                &alpha,
                b.as_device_ptr().as_raw() as *const f32,
                n as c_int,
                a.as_device_ptr().as_raw() as *const f32,
                k as c_int,
                &beta,
                c.as_device_ptr().as_raw() as *mut f32,
                n as c_int,
            )
        };
        Ok(check("cublasSgemm", status)?)
    }

    /// The call matching `op` ([`Gemm`]: transposes, leading dimensions, alpha, beta, a strided
    /// batch) on device buffers, launched on the GPU's stream without waiting:
    /// `cublasSgemm` for one problem, `cublasSgemmStridedBatched` for more. Row-major
    /// `C = op(A)·op(B)` is column-major `Cᵀ = op(B)ᵀ·op(A)ᵀ`, and a row-major matrix read
    /// column-major is its transpose, so cuBLAS gets B first with `op_b`, then A with `op_a`,
    /// `n x m x k` and the same leading dimensions.
    pub fn gemm(
        &self,
        op: &Gemm,
        a: &DeviceSlice<f32>,
        b: &DeviceSlice<f32>,
        c: &DeviceSlice<f32>,
    ) -> Result<()> {
        op.check()?;
        let (la, lb, lc) = op.min_lens();
        for (what, len, need) in [("A", a.len(), la), ("B", b.len(), lb), ("C", c.len(), lc)] {
            anyhow::ensure!(
                len >= need,
                "{what} holds {len} floats, the problem needs {need}"
            );
        }
        let fits = |v: usize| c_int::try_from(v).context("a leading dimension beyond cuBLAS's int");
        let (lda, ldb, ldc) = (fits(op.lda)?, fits(op.ldb)?, fits(op.ldc)?);
        let (m, n, k) = (op.m as c_int, op.n as c_int, op.k as c_int);
        let (alpha, beta) = (op.alpha, op.beta);
        let raw = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw();
        let (pa, pb, pc) = (
            raw(a) as *const f32,
            raw(b) as *const f32,
            raw(c) as *mut f32,
        );
        let (ta, tb) = (cublas_op(op.op_b), cublas_op(op.op_a));
        if op.batch == 1 {
            // SAFETY: a live handle; the dimensions (≤ 16384) and leading dimensions (checked to
            // fit a C int) describe matrices inside the buffers (lengths checked above); alpha and
            // beta are host scalars read before the call returns.
            let status = unsafe {
                (self.api.sgemm)(
                    self.handle,
                    ta,
                    tb,
                    n,
                    m,
                    k,
                    &alpha,
                    pb,
                    ldb,
                    pa,
                    lda,
                    &beta,
                    pc,
                    ldc,
                )
            };
            return Ok(check("cublasSgemm", status)?);
        }
        let stride = |s: usize| i64::try_from(s).context("a stride beyond cuBLAS's long long");
        let (sa, sb, sc) = (
            stride(op.stride_a)?,
            stride(op.stride_b)?,
            stride(op.stride_c)?,
        );
        // SAFETY: as above, for every problem of the batch (`min_lens` counts the last one's
        // end); the batch (≤ 65535) fits a C int.
        let status = unsafe {
            (self.api.sgemm_strided_batched)(
                self.handle,
                ta,
                tb,
                n,
                m,
                k,
                &alpha,
                pb,
                ldb,
                sb,
                pa,
                lda,
                sa,
                &beta,
                pc,
                ldc,
                sc,
                op.batch as c_int,
            )
        };
        Ok(check("cublasSgemmStridedBatched", status)?)
    }

    pub fn run(&self, gpu: &Gpu, p: &Problem, reps: usize) -> Result<GpuResult> {
        let Problem { a, b, m, n, k } = *p;
        check_shape(m, n, k)?;
        check_free_memory(4 * (m * k + k * n + m * n), "the problem")?;
        let d_a = DeviceBuffer::from_slice(a)?;
        let d_b = DeviceBuffer::from_slice(b)?;
        let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
        let timing = time_on_stream(&gpu.stream, 1, reps, || {
            self.sgemm((m, n, k), &d_a, &d_b, &d_c)
        })
        .context("timing cuBLAS")?;
        let mut c = vec![0f32; m * n];
        d_c.copy_to(&mut c[..])?;
        Ok(GpuResult {
            c,
            timing,
            padded: (m, n, k),
            schedule: None,
        })
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by cublasCreate and is destroyed once. A failure
        // cannot be reported from here.
        let _ = unsafe { (self.api.destroy)(self.handle) };
    }
}
