//! cuBLAS of each precision (`cublasGemmEx`), the reference the tensor-core kernels are measured
//! against: BF16 and FP16 inputs (`CUDA_R_16BF`, `CUDA_R_16F`) with f32 output and
//! `CUBLAS_COMPUTE_32F`; TF32 as f32 inputs with `CUBLAS_COMPUTE_32F_FAST_TF32`; FP32 (the
//! reference of 3xTF32) as f32 with `CUBLAS_COMPUTE_32F`, which is `cublasSgemm`. The entry
//! points are resolved once per process from the library `cublas` loads.
use std::{
    ffi::{c_int, c_void},
    sync::OnceLock,
};

use anyhow::Result;
use cust::memory::DeviceSlice;
use rgk_core::matmul::precision::Precision;

use super::cublas::{candidates, check};
use crate::{
    dynlib::{self, LoadError, Loaded},
    gpu::Gpu,
    sm90::{BMajor, Sm90Gemm, Sm90Input},
    tc::problem::{Layout, Operand, TcGemm, check_buffers},
};

type Handle = *mut c_void;
type Status = c_int;

// cublas_api.h and library_types.h.
const CUBLAS_OP_N: c_int = 0;
const CUBLAS_OP_T: c_int = 1;
const CUDA_R_32F: c_int = 0;
const CUDA_R_16F: c_int = 2;
const CUDA_R_16BF: c_int = 14;
const CUBLAS_COMPUTE_32F: c_int = 68;
const CUBLAS_COMPUTE_32F_FAST_TF32: c_int = 77;
const CUBLAS_GEMM_DEFAULT: c_int = -1;

type GemmEx = unsafe extern "C" fn(
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
    gemm_ex: GemmEx,
    /// Keeps the pointers above valid: never unloaded.
    lib: Loaded,
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
            // 13; enums and `cublasStatus_t` are C ints, `cudaDataType`/`cublasComputeType_t`
            // too); `lib` stays in the table for the rest of the process.
            unsafe {
                Ok(Api {
                    create: lib.symbol("cublasCreate_v2")?,
                    destroy: lib.symbol("cublasDestroy_v2")?,
                    set_stream: lib.symbol("cublasSetStream_v2")?,
                    gemm_ex: lib.symbol("cublasGemmEx")?,
                    lib,
                })
            }
        })
        .as_ref()
        .map_err(Clone::clone)
    }
}

/// A cuBLAS handle on one GPU's stream, for `cublasGemmEx`.
pub struct CublasEx {
    api: &'static Api,
    handle: Handle,
    pub path: String,
}

/// The (input type, compute type) of cuBLAS for `p`.
const fn types(p: Precision) -> (c_int, c_int) {
    match p {
        Precision::Fp32 | Precision::Tf32x3 => (CUDA_R_32F, CUBLAS_COMPUTE_32F),
        Precision::Tf32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32),
        Precision::Bf16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F),
        Precision::Fp16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F),
    }
}

/// cuBLAS's name for what runs for `p` (3xTF32 is compared against FP32 SGEMM).
pub const fn cublas_name(p: Precision) -> &'static str {
    match p {
        Precision::Fp32 | Precision::Tf32x3 => "cublas_gemmex_fp32",
        Precision::Tf32 => "cublas_gemmex_tf32",
        Precision::Bf16 => "cublas_gemmex_bf16",
        Precision::Fp16 => "cublas_gemmex_fp16",
    }
}

impl CublasEx {
    /// Loads cuBLAS (once per process) and binds a new handle to the GPU's stream.
    pub fn load(gpu: &Gpu) -> Result<CublasEx> {
        let api = Api::get()?;
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid place for the handle; the GPU's context is current.
        check("cublasCreate", unsafe { (api.create)(&mut handle) })?;
        let me = CublasEx {
            api,
            handle,
            path: api.lib.path.clone(),
        };
        // SAFETY: a live handle and a stream of the current context that outlives it.
        check("cublasSetStream", unsafe {
            (api.set_stream)(handle, gpu.stream.as_inner() as *mut c_void)
        })?;
        Ok(me)
    }

    /// `op` in `p` (3xTF32: FP32) on the buffers, launched on the GPU's stream without waiting.
    /// Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: a row-major operand is
    /// its column-major transpose (`N`), a column-major one needs `T`.
    pub fn gemm(
        &self,
        p: Precision,
        op: &TcGemm,
        a: Operand,
        b: Operand,
        c: &DeviceSlice<f32>,
    ) -> Result<()> {
        let want = if p == Precision::Tf32x3 {
            Precision::Fp32
        } else {
            p
        };
        check_buffers(op, want, a, b, c)?;
        if [op.lda, op.ldb, op.ldc]
            .iter()
            .any(|&ld| ld > c_int::MAX as usize)
        {
            return rgk_core::bad_input("cuBLAS takes leading dimensions below 2^31");
        }
        let (dtype, compute) = types(p);
        let trans = |l: Layout| {
            if l == Layout::RowMajor {
                CUBLAS_OP_N
            } else {
                CUBLAS_OP_T
            }
        };
        // SAFETY: a live handle; `check_buffers` checked the shapes (each ≤ 16384, so C ints),
        // leading dimensions (C ints, checked above) and the element types against the buffers; alpha and beta are host f32 (the default pointer
        // mode, f32 scalars for every compute type used), read before the call returns.
        let status = unsafe {
            (self.api.gemm_ex)(
                self.handle,
                trans(op.b_layout),
                trans(op.a_layout),
                op.n as c_int,
                op.m as c_int,
                op.k as c_int,
                &op.alpha as *const f32 as *const c_void,
                b.raw().0 as *const c_void,
                dtype,
                op.ldb as c_int,
                a.raw().0 as *const c_void,
                dtype,
                op.lda as c_int,
                &op.beta as *const f32 as *const c_void,
                c.as_device_ptr().as_raw() as *mut c_void,
                CUDA_R_32F,
                op.ldc as c_int,
                compute,
                CUBLAS_GEMM_DEFAULT,
            )
        };
        Ok(check("cublasGemmEx", status)?)
    }
}

impl CublasEx {
    /// The Hopper kernel's product (`crate::sm90`) on its buffers, in its precision: `g`
    /// described as a [`TcGemm`] (A row-major; B row-major for `BMajor::N`, column-major for
    /// `BMajor::K`), launched on the GPU's stream without waiting.
    pub fn gemm_sm90(
        &self,
        g: &Sm90Gemm,
        a: &DeviceSlice<u16>,
        b: &DeviceSlice<u16>,
        c: &DeviceSlice<f32>,
    ) -> Result<()> {
        g.check_buffers(a.len(), b.len(), c.len())?;
        let precision = match g.input {
            Sm90Input::Bf16 => Precision::Bf16,
            Sm90Input::Fp16 => Precision::Fp16,
        };
        let b_layout = match g.b_major {
            BMajor::N => Layout::RowMajor,
            BMajor::K => Layout::ColMajor,
        };
        let op = TcGemm::new(g.m, g.n, g.k)
            .alpha(g.alpha)
            .beta(g.beta)
            .layouts(Layout::RowMajor, b_layout)
            .leading_dims(g.lda, g.ldb, g.ldc);
        self.gemm(precision, &op, Operand::Bits16(a), Operand::Bits16(b), c)
    }
}

impl Drop for CublasEx {
    fn drop(&mut self) {
        // SAFETY: created by cublasCreate, destroyed once; a failure cannot be reported here.
        let _ = unsafe { (self.api.destroy)(self.handle) };
    }
}
