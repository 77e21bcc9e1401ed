//! SGEMM on the GPU: the Rust kernels (`gpu`), the flagship runner (`flagship`) and the
//! library function (`sgemm`). cuBLAS, the reference, is in `crate::reference`; the autotuner in
//! `crate::tune`. The CPU ladder, padding and the f64 reference are in `rgk_core::matmul`.
pub mod flagship;
pub mod gpu;
pub mod sgemm;
