//! GEMM on the tensor cores (issue #21), from the bottom up: what a problem is (`problem`, a
//! leaf), the `mma.sync` runner (`launch`) and its ceiling (`peak`), the choice between it and
//! the sm_90a runner (`select`, with the hook the Hopper path fills), and the library function
//! (`gemm`). The
//! precisions, BF16/FP16 rounding and the verification bounds are CUDA-free, in
//! `rgk_core::matmul::precision`; cuBLAS of each precision is in `crate::reference::gemm_ex`.
pub mod gemm;
pub mod launch;
pub mod peak;
pub mod problem;
pub mod select;

pub use gemm::{gemm_tc, gemm_tc_with_kernel};
pub use problem::{Layout, Operand, TcGemm};
pub use select::Path;
