//! Builds `gpu-kernels` to PTX, twice: every portable kernel for the architecture in
//! `GPU_KERNELS_ARCH` (default `compute_80`, set by `cargo xtask build-ptx --arch`), and the
//! Hopper kernels alone for `compute_90a` (gpu-kernels' feature `hopper`).
use std::{env, path::PathBuf, str::FromStr};

use cuda_builder::{CudaBuilder, NvvmArch};

/// The architecture of the Hopper module: sm_90a's `wgmma` and `setmaxnreg` need the
/// arch-specific target.
const HOPPER_ARCH: &str = "compute_90a";

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
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    CudaBuilder::new(&kernels)
        .arch(arch)
        .copy_to(out_dir.join("gpu_kernels.ptx"))
        .build()
        .expect("building gpu-kernels to PTX failed (see the errors above)");
    println!("cargo::rustc-env=GPU_KERNELS_PTX_ARCH={arch_name}");

    // The Hopper build gets a target directory of its own: both builds write the cdylib under
    // the same unhashed name, and cargo, finding either one fresh, would hand back whatever the
    // other build left there. cuda_builder picks `<target>/cuda-builder` from OUT_DIR and
    // PROFILE; with PROFILE unset it leaves the choice to CARGO_TARGET_DIR, set here. (It still
    // finds the codegen backend through OUT_DIR.)
    let target = out_dir
        .ancestors()
        .find(|d| d.file_name().is_some_and(|n| n == "target"))
        .map(|d| d.join("cuda-builder-hopper"))
        .unwrap_or_else(|| out_dir.join("cuda-builder-hopper"));
    let profile = env::var("PROFILE").ok();
    // SAFETY: build scripts are single-threaded; the variables are restored below.
    unsafe {
        env::remove_var("PROFILE");
        env::set_var("CARGO_TARGET_DIR", &target);
    }
    let hopper = CudaBuilder::new(&kernels)
        .arch(NvvmArch::from_str(HOPPER_ARCH).expect("compute_90a is an NVVM architecture"))
        .build_args(&["--features", "hopper"])
        .copy_to(out_dir.join("gpu_kernels.sm90a.ptx"))
        .build();
    // SAFETY: as above.
    unsafe {
        env::remove_var("CARGO_TARGET_DIR");
        if let Some(p) = profile {
            env::set_var("PROFILE", p);
        }
    }
    hopper.expect("building the Hopper kernels to PTX failed (see the errors above)");
}
