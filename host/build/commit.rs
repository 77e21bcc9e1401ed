//! `RGK_BUILD_COMMIT`: `git describe --always --dirty` of the checkout the binary is built
//! from, read as `host::BUILD_COMMIT` (unset outside a git checkout: the JSON then says
//! "unknown"). The binary carries its own commit because the JSON records and the SGEMM tuning
//! cache must name the build that measured them; a run-time `git` call would describe whatever
//! checkout the binary happens to run in.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

pub fn build() {
    if let Some(commit) = git(&["describe", "--always", "--dirty"]) {
        println!("cargo::rustc-env=RGK_BUILD_COMMIT={commit}");
    }
    // Run again when HEAD moves (a commit, a checkout) or the index changes (staging, which
    // also refreshes --dirty); paths from git, so that worktrees work too.
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    let mut watched = vec!["HEAD".to_string(), "index".to_string()];
    watched.extend(branch);
    for path in watched {
        // A path that does not exist would make cargo run this script on every build.
        let p = git(&["rev-parse", "--path-format=absolute", "--git-path", &path]);
        if let Some(p) = p.filter(|p| std::path::Path::new(p).exists()) {
            println!("cargo::rerun-if-changed={p}");
        }
    }
    // Edits to the kernels are what "--dirty" matters for (the tuning cache).
    println!("cargo::rerun-if-changed=../gpu-kernels/ptx/gpu_kernels.ptx");
    println!("cargo::rerun-if-changed=../gpu-kernels/src");
}
