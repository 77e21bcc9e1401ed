//! SGEMM on the GPU. From the bottom up: what a problem is (`problem`, a leaf), its shape
//! class (`shape`, a leaf), the flagship runner (`flagship`, which owns the stream-K workspace)
//! and its transposing and batched variants (`flagship_ops`), the skinny runner for tiny N or M
//! (`skinny`, which owns the split-K workspace), the batched runner for many problems of M, N ≤
//! 32 (`batched_small`), kernel selection (`select`: tuning cache, defaults, overrides;
//! `select_ops` for the variants), the routes around them for deep K and transposed operands
//! (`route`, a cost model; `split_run`, the pre-pass and split-K runner; `skinny_split`, split-K
//! for thin problems), the library functions
//! (`sgemm`), and the runner of every kernel
//! for `host matmul` and `host bench` (`gpu`). cuBLAS, the reference, is in `crate::reference`;
//! the autotuner in `crate::tune`. The CPU ladder, padding and the f64 reference are in
//! `rgk_core::matmul`.
pub mod balance;
pub mod batched_small;
pub mod flagship;
pub mod flagship_ops;
pub mod gemv;
pub mod gpu;
pub mod launch_cache;
pub mod layout;
#[cfg(test)]
mod picks;
pub mod problem;
pub mod route;
pub mod select;
pub mod select_ops;
pub mod sgemm;
pub mod shape;
pub mod skinny;
pub mod skinny_split;
pub mod small;
pub mod split_run;
