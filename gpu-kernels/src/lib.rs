//! GPU kernels in Rust: tiled and vectorized SGEMM, blocked Floyd–Warshall.
//!
//! Built to PTX by `cargo xtask build-ptx` (rust-cuda). The same crate compiles for the host
//! as an rlib, which exports only the launch geometry (tile sizes, kernel names) so that the
//! host never restates it; kernel bodies exist only on `nvptx64`.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

pub mod apsp;
pub mod matmul;
#[cfg(target_arch = "nvptx64")]
mod ptx;
