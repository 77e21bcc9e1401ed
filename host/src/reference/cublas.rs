//! cuBLAS SGEMM as the reference GPU GEMM, loaded at run time: linking it here would need the
//! large cuBLAS wheel, and the GPU machines have the library. FP32 only (no TF32): the result
//! is held to the same error bound as the Rust kernels, which TF32 would not meet.
use std::ffi::{c_int, c_void};

use anyhow::{Context as _, Result, bail};
use cust::memory::{CopyDestination, DeviceBuffer};
use libloading::{Library, Symbol};

use crate::{
    gpu::{Gpu, check_free_memory, time_on_stream},
    matmul::{
        gpu::{GpuResult, Problem},
        problem::check_shape,
    },
};

type Handle = *mut c_void;
const CUBLAS_OP_N: c_int = 0;
const CUBLAS_DEFAULT_MATH: c_int = 0;

pub struct Cublas {
    lib: Library,
    handle: Handle,
    pub path: String,
}

fn candidates() -> Vec<String> {
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

fn check(what: &str, status: c_int) -> Result<()> {
    if status != 0 {
        bail!("{what} failed with cuBLAS status {status}");
    }
    Ok(())
}

impl Cublas {
    /// Loads cuBLAS and creates a handle bound to the GPU's stream; Err says why it is unavailable.
    pub fn load(gpu: &Gpu) -> Result<Cublas> {
        let mut tried = Vec::new();
        for path in candidates() {
            match unsafe { Library::new(&path) } {
                Ok(lib) => {
                    let mut handle: Handle = std::ptr::null_mut();
                    unsafe {
                        let create: Symbol<unsafe extern "C" fn(*mut Handle) -> c_int> =
                            lib.get(b"cublasCreate_v2")?;
                        check("cublasCreate", create(&mut handle))?;
                        let set_stream: Symbol<unsafe extern "C" fn(Handle, *mut c_void) -> c_int> =
                            lib.get(b"cublasSetStream_v2")?;
                        check(
                            "cublasSetStream",
                            set_stream(handle, gpu.stream.as_inner() as *mut c_void),
                        )?;
                        let set_math: Symbol<unsafe extern "C" fn(Handle, c_int) -> c_int> =
                            lib.get(b"cublasSetMathMode")?;
                        check("cublasSetMathMode", set_math(handle, CUBLAS_DEFAULT_MATH))?;
                    }
                    return Ok(Cublas { lib, handle, path });
                }
                Err(e) => tried.push(format!("{path}: {e}")),
            }
        }
        bail!(
            "cuBLAS not found (set CUBLAS_LIBRARY to libcublas.so): {}",
            tried.join("; ")
        )
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
        ) -> c_int;
        let (alpha, beta) = (1.0f32, 0.0f32);
        unsafe {
            let f: Symbol<Sgemm> = self.lib.get(b"cublasSgemm_v2")?;
            check(
                "cublasSgemm",
                f(
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
                ),
            )
        }
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
        unsafe {
            if let Ok(destroy) = self
                .lib
                .get::<unsafe extern "C" fn(Handle) -> c_int>(b"cublasDestroy_v2")
            {
                destroy(self.handle);
            }
        }
    }
}
