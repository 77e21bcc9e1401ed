//! cuBLAS `cublasGemmEx` with BF16 or FP16 inputs, f32 output and f32 compute: the reference
//! the Hopper GEMM is timed and checked against, in the same process. Loaded at run time, as
//! `crate::reference::cublas` loads SGEMM; kept to this one entry point so that it folds into a
//! shared GemmEx reference (the `--precision` work) without change of meaning.
use std::{
    ffi::{c_int, c_void},
    sync::OnceLock,
};

use anyhow::{Context as _, Result, bail};
use cust::memory::DeviceSlice;
use gpu_kernels::sm90::{BMajor, Sm90Input};

use super::Sm90Gemm;
use crate::{
    dynlib::{self, LoadError, Loaded},
    gpu::Gpu,
};

type Handle = *mut c_void;
type Status = c_int;
const CUBLAS_OP_N: c_int = 0;
const CUBLAS_OP_T: c_int = 1;
/// cudaDataType_t (library_types.h).
const CUDA_R_32F: c_int = 0;
const CUDA_R_16F: c_int = 2;
const CUDA_R_16BF: c_int = 14;
/// cublasComputeType_t: f32 accumulation, no down-conversion of the inputs.
const CUBLAS_COMPUTE_32F: c_int = 68;
const CUBLAS_GEMM_DEFAULT: c_int = -1;

type GemmExFn = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
) -> Status;

struct Api {
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    set_stream: unsafe extern "C" fn(Handle, *mut c_void) -> Status,
    gemm_ex: GemmExFn,
    /// Keeps the pointers valid: never unloaded.
    _lib: Loaded,
}

fn candidates() -> Vec<String> {
    let mut c = Vec::new();
    if let Ok(p) = std::env::var("CUBLAS_LIBRARY") {
        c.push(p);
    }
    c.extend(["libcublas.so.13", "libcublas.so.12", "libcublas.so"].map(String::from));
    c.push("/usr/local/cuda/lib64/libcublas.so.13".into());
    c
}

impl Api {
    fn get() -> Result<&'static Api, LoadError> {
        static API: OnceLock<Result<Api, LoadError>> = OnceLock::new();
        API.get_or_init(|| {
            let lib = dynlib::open_first(
                "cuBLAS (libcublas.so, or set CUBLAS_LIBRARY to its path)",
                &candidates(),
            )?;
            // SAFETY: each type is the entry point's declaration in cublas_api.h (CUDA 12 and
            // 13; enums and cublasStatus_t are C ints); the library stays loaded in the table.
            unsafe {
                Ok(Api {
                    create: lib.symbol("cublasCreate_v2")?,
                    destroy: lib.symbol("cublasDestroy_v2")?,
                    set_stream: lib.symbol("cublasSetStream_v2")?,
                    gemm_ex: lib.symbol("cublasGemmEx")?,
                    _lib: lib,
                })
            }
        })
        .as_ref()
        .map_err(Clone::clone)
    }
}

/// A cuBLAS handle on one GPU's stream, for `cublasGemmEx`.
pub struct GemmEx {
    api: &'static Api,
    handle: Handle,
}

impl GemmEx {
    pub fn load(gpu: &Gpu) -> Result<GemmEx> {
        let api = Api::get()?;
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid place for the handle; the GPU's context is current.
        let status = unsafe { (api.create)(&mut handle) };
        if status != 0 {
            bail!("cublasCreate failed with cuBLAS status {status}");
        }
        let g = GemmEx { api, handle };
        // SAFETY: a live handle and a stream of the current context, which outlives the calls
        // (the caller holds the `Gpu`).
        let status = unsafe { (api.set_stream)(handle, gpu.stream.as_inner() as *mut c_void) };
        if status != 0 {
            bail!("cublasSetStream failed with cuBLAS status {status}");
        }
        Ok(g)
    }

    /// The same product as the Hopper kernel on the same buffers (row-major C = A·B through
    /// column-major cuBLAS as C^T = B^T·A^T), launched without waiting.
    pub fn gemm(
        &self,
        g: &Sm90Gemm,
        a: &DeviceSlice<u16>,
        b: &DeviceSlice<u16>,
        c: &DeviceSlice<f32>,
    ) -> Result<()> {
        g.check_buffers(a.len(), b.len(), c.len())?;
        let ty = match g.input {
            Sm90Input::Bf16 => CUDA_R_16BF,
            Sm90Input::Fp16 => CUDA_R_16F,
        };
        // B^T as cuBLAS sees row-major storage: `k x n` row-major is B^T column-major (N);
        // `n x k` row-major is B column-major, transposed (T).
        let op_b = match g.b_major {
            BMajor::N => CUBLAS_OP_N,
            BMajor::K => CUBLAS_OP_T,
        };
        let int = |v: usize| c_int::try_from(v).context("a dimension does not fit in a C int");
        let (alpha, beta) = (g.alpha, g.beta);
        // SAFETY: a live handle; the dimensions and leading dimensions describe the buffers
        // (checked above); alpha and beta are host scalars read before the call returns.
        let status = unsafe {
            (self.api.gemm_ex)(
                self.handle,
                op_b,
                CUBLAS_OP_N,
                int(g.n)?,
                int(g.m)?,
                int(g.k)?,
                (&alpha as *const f32).cast(),
                b.as_device_ptr().as_raw() as *const c_void,
                ty,
                int(g.ldb)?,
                a.as_device_ptr().as_raw() as *const c_void,
                ty,
                int(g.lda)?,
                (&beta as *const f32).cast(),
                c.as_device_ptr().as_raw() as *mut c_void,
                CUDA_R_32F,
                int(g.ldc)?,
                CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT,
            )
        };
        if status != 0 {
            bail!("cublasGemmEx failed with cuBLAS status {status}");
        }
        Ok(())
    }
}

impl Drop for GemmEx {
    fn drop(&mut self) {
        // SAFETY: created by cublasCreate, destroyed once; a failure cannot be reported here.
        let _ = unsafe { (self.api.destroy)(self.handle) };
    }
}
