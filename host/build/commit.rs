//! `RGK_BUILD_COMMIT`: `git describe --always --dirty` of the checkout at build time, or
//! "unknown" outside git. The SGEMM tuning cache is trusted only by the build it was measured
//! with, so the binary carries its own commit (a runtime `git` call would describe whatever
//! checkout the binary happens to run in).
use std::{path::PathBuf, process::Command};

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn build() {
    let commit = git(&["describe", "--always", "--dirty"]).unwrap_or_else(|| "unknown".into());
    println!("cargo::rustc-env=RGK_BUILD_COMMIT={commit}");
    // Re-run when HEAD moves (a new commit or checkout) and when the kernels change, which is
    // what "--dirty" matters for here.
    for rel in ["HEAD", "logs/HEAD"] {
        if let Some(p) = git(&["rev-parse", "--git-path", rel]) {
            println!("cargo::rerun-if-changed={}", PathBuf::from(p).display());
        }
    }
    println!("cargo::rerun-if-changed=../gpu-kernels/ptx/gpu_kernels.ptx");
    println!("cargo::rerun-if-changed=../gpu-kernels/src");
}
