//! SGEMM on the GPU: the Rust kernels (`gpu`) and cuBLAS as the reference (`cublas`), the
//! library function (`sgemm`) and its autotuner (`tune`). The CPU
//! ladder, padding and the f64 reference are in `rgk_core::matmul`.
pub mod cublas;
pub mod flagship;
pub mod gpu;
pub mod sgemm;
pub mod tune;
