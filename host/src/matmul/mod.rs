//! SGEMM on the GPU. From the bottom up: what a problem is (`problem`, a leaf), its shape
//! class (`shape`, a leaf), the flagship runner (`flagship`, which owns the stream-K workspace),
//! the skinny runner for tiny N or M (`skinny`, which owns the split-K workspace), kernel selection (`select`: tuning
//! cache, defaults, overrides), the library functions (`sgemm`), and the runner of every kernel
//! for `host matmul` and `host bench` (`gpu`). cuBLAS, the reference, is in `crate::reference`;
//! the autotuner in `crate::tune`. The CPU ladder, padding and the f64 reference are in
//! `rgk_core::matmul`.
pub mod flagship;
pub mod gpu;
pub mod problem;
pub mod select;
pub mod sgemm;
pub mod shape;
pub mod skinny;
