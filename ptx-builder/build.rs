//! Builds `gpu-kernels` to PTX. The virtual architecture comes from `GPU_KERNELS_ARCH`
//! (default `compute_80`), set by `cargo xtask build-ptx --arch`.
use std::{env, path::PathBuf, str::FromStr};

use cuda_builder::{CudaBuilder, NvvmArch};

fn main() {
    println!("cargo::rerun-if-env-changed=GPU_KERNELS_ARCH");
    let arch_name = env::var("GPU_KERNELS_ARCH").unwrap_or_else(|_| "compute_80".into());
    let arch = NvvmArch::from_str(&arch_name)
        .unwrap_or_else(|_| panic!("GPU_KERNELS_ARCH={arch_name} is not an NVVM architecture"));
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels = manifest.join("../gpu-kernels");
    println!("cargo::rerun-if-changed={}", kernels.join("src").display());
    println!(
        "cargo::rerun-if-changed={}",
        kernels.join("Cargo.toml").display()
    );
    // Under `cargo clippy` the nested cargo that cuda_builder starts would inherit clippy's
    // wrapper and run it as the nvptx compiler, which fails to load the codegen backend. Clippy
    // could not see the nvptx-only kernel code anyway (gpu-kernels/tests/safety_comments.rs
    // checks its `unsafe`); build the PTX exactly as build-ptx does.
    // SAFETY: build scripts are single-threaded.
    unsafe {
        env::remove_var("RUSTC_WORKSPACE_WRAPPER");
        env::remove_var("CLIPPY_ARGS");
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("gpu_kernels.ptx");
    CudaBuilder::new(&kernels)
        .arch(arch)
        .copy_to(&out)
        .build()
        .expect("building gpu-kernels to PTX failed (see the errors above)");
    println!("cargo::rustc-env=GPU_KERNELS_PTX_ARCH={arch_name}");
}
