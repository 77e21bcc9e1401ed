//! GPU kernels in Rust: tiled and vectorized SGEMM, blocked Floyd–Warshall.
//!
//! Built to PTX by `cargo xtask build-ptx` (rust-cuda). The same crate compiles for the host
//! as an rlib, which exports only the launch geometry (tile sizes, kernel names) so that the
//! host never restates it; kernel bodies exist only on `nvptx64`. The GPU build is `no_std`:
//! cuda_builder adds `#![no_std]` itself (stating it here too is a duplicate-attribute error).
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

pub mod apsp;
pub mod matmul;
#[cfg(target_arch = "nvptx64")]
mod ptx;
