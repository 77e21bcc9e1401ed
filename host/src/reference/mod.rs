//! Other implementations the Rust kernels are measured against: cuBLAS, loaded at run time.
//! Not on the library path: `host::sgemm` and `host::apsp` never reach it.
pub mod cublas;
pub mod gemm_ex;
