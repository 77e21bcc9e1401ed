//! The GPU side of rust-gpu-kernels: driver start-up and PTX loading (`gpu`), the SGEMM and
//! Floyd–Warshall runners (`matmul`, `apsp`), cuBLAS as the reference (`reference`), the SGEMM
//! autotuner (`tune`), and the occupancy of every kernel as the driver reports it (`kernels`).
//! Everything CUDA-free (formats, CPU references, the occupancy calculator, records) is in
//! [`rgk_core`]; the report made from the records is `rgk-report`, used by the CLI only.
//!
//! Imports point one way: the CLI (the `host` binary) → the library API ([`sgemm`], [`apsp()`])
//! → kernel selection (`matmul::select`) → the runners (`matmul::flagship`, `apsp::gpu`, …) →
//! the driver layer (`gpu`). `matmul::problem` (what an SGEMM is) is a leaf any layer may use.
//! The tuner and cuBLAS sit beside the runners: nothing on the library path imports them.
//!
//! The library API:
//! - [`Gpu::new`] opens device 0 with the kernels (built into the binary as machine code for
//!   the common GPUs and PTX for the others: [`fatbin`], [`modules`]);
//! - [`sgemm`] / [`sgemm_device`]: `C = A·B` on host slices or on device buffers;
//!   [`gemm_device`]: `C = alpha·op(A)·op(B) + beta·C` with transposes ([`Op`]), strided batches
//!   and leading dimensions, as a [`Gemm`] describes; [`gemm_device_async`]: the same enqueued on
//!   the caller's stream without waiting;
//! - [`tc::gemm_tc`]: the same on the tensor cores, in a `Precision` (TF32, 3xTF32, BF16,
//!   FP16; FP32 goes to the flagship), A and B row- or column-major;
//! - [`apsp()`]: all-pairs shortest paths of a [`Graph`] on the GPU, returning [`Distances`]
//!   (on the CPU: [`rgk_core::apsp::solve_cpu`]; from a file: [`rgk_core::apsp::format::read_graph`]);
//!   on several GPUs: [`apsp::multi::MultiGpu`] and [`apsp::multi::solve`];
//! - the occupancy calculator: [`rgk_core::occupancy::occupancy`];
//! - errors are [`Error`]: `NoGpu`, `BadInput` or `Gpu`.
//!
//! Runnable examples: `cargo run -p host --example sgemm`, `cargo run -p host --example apsp`.
pub mod apsp;
mod dynlib;
pub mod error;
pub mod fatbin;
pub mod gpu;
pub mod kernels;
pub mod matmul;
pub mod modules;
pub mod pinned;
pub mod reference;
pub mod sm90;
pub mod tc;
pub mod tune;

/// The source revision this binary was built from (`git describe --always --dirty`, captured by
/// the build script); `None` when it was built outside a git checkout.
pub const BUILD_COMMIT: Option<&str> = option_env!("RGK_BUILD_COMMIT");

pub use apsp::{apsp, apsp_batch, apsp_stats, apsp_with};
pub use error::{Error, NoGpu, Result};
pub use gpu::Gpu;
pub use matmul::{
    problem::{Gemm, Op},
    sgemm::{gemm_device, gemm_device_async, sgemm, sgemm_device},
};
pub use rgk_core::apsp::{Distances, format::Graph};
