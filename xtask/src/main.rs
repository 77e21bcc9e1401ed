//! Project tasks: `cargo xtask setup | llvm7 | build-ptx | ci | gpu-bundle | check-links`.
mod bundle;
mod cuda;
mod env;
mod links;
mod llvm;
mod llvm7;
mod ptxas;
mod setup;
mod stamp;
mod tasks;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  setup                  install the pinned toolchain and CUDA 13.0 pieces, find LLVM 7 (or unpack
                         ../shared/toolchains' prebuilt one), check rust-cuda
  llvm7 --source DIR [--jobs N]
                         build LLVM 7.1 (NVPTX, the libraries rust-cuda's codegen links) from the
                         source tree DIR into ~/.cache/rust-gpu-kernels/llvm-7.1 and record it
  build-ptx [--arch A]   build gpu-kernels to the committed gpu-kernels/ptx/gpu_kernels.ptx and its
                         freshness stamp (compute_80; another A writes target/ptx/gpu_kernels.A.ptx
                         instead) and print the ptxas report; fails on spills, stack use or
                         generic ld/st
  ci                     fmt, clippy -D warnings, doc, Markdown links, the PTX checked against its
                         stamp (and, with LLVM 7, rebuilt and compared), all tests, fuzz smoke run
  check-links            every Markdown link to a local file (README.md, docs/, ...) resolves
  gpu-bundle [--tests gpu_a,gpu_b]
                         build the host, GPU test binaries and cubin into .device/bundle for the GPU
                         machine, and pack the host and the named tests (all) into .device/pack";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup::run(),
        Some("build-ptx") => tasks::build_ptx_cmd(&args[1..]),
        Some("ci") => tasks::ci(),
        Some("llvm7") => llvm7::run(&args[1..]),
        Some("gpu-bundle") => bundle::gpu_bundle(&args[1..]),
        Some("check-links") => links::check_links(&env::repo_root()),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nerror: {e:#}");
            ExitCode::FAILURE
        }
    }
}
