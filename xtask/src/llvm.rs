//! Finding LLVM 7 (for rust-cuda's codegen) and recording it in the checkout's `.llvm` link.
use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result};

use crate::env::{self as xenv, State, env_path};

/// The LLVM rust-cuda's codegen is built against (an input of the PTX, see stamp.rs).
pub const LLVM_VERSION: &str = "7.1";

fn llvm_version(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether `llvm_config` runs, is LLVM 7 and has the NVPTX target; if not, what it is instead.
pub fn check_llvm7(llvm_config: &Path) -> std::result::Result<(), String> {
    let shown = llvm_config.display();
    match llvm_version(llvm_config) {
        Some(v) if v.starts_with("7.") => {
            let comps = Command::new(llvm_config).arg("--components").output();
            let comps = comps
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            if comps.split_whitespace().any(|c| c == "nvptx") {
                Ok(())
            } else {
                Err(format!("{shown} is LLVM {v} but lacks the NVPTX target"))
            }
        }
        Some(v) => Err(format!("{shown} is LLVM {v}")),
        None => Err(format!("{shown} does not run")),
    }
}

pub fn find_llvm7(state: &State) -> std::result::Result<PathBuf, String> {
    let mut seen = Vec::new();
    let mut candidates: Vec<(String, PathBuf)> = Vec::new();
    if let Some(p) = env_path("LLVM_CONFIG") {
        candidates.push(("LLVM_CONFIG".into(), p));
    }
    if let Some(p) = &state.llvm_config {
        candidates.push((
            "the LLVM_CONFIG recorded by an earlier setup".into(),
            p.clone(),
        ));
    }
    candidates.push(("llvm-config on PATH".into(), "llvm-config".into()));
    candidates.push(("llvm-config-7 on PATH".into(), "llvm-config-7".into()));
    for (what, path) in candidates {
        match check_llvm7(&path) {
            Ok(()) => {
                let abs = if path.components().count() == 1 {
                    which(&path).unwrap_or(path)
                } else {
                    path
                };
                return Ok(abs);
            }
            Err(_) if what.starts_with("llvm-config") && llvm_version(&path).is_none() => {}
            Err(why) => seen.push(format!("{what} ({why})")),
        }
    }
    let found = if seen.is_empty() {
        "no llvm-config was found".to_string()
    } else {
        seen.join("; ")
    };
    Err(format!(
        "LLVM 7.x: rust-cuda's codegen (rustc_codegen_nvvm) links LLVM 7 statically, and {found}. \
         No package registry serves LLVM 7: get the LLVM 7.1.0 sources and run \
         `cargo xtask llvm7 --source DIR` (about 45 minutes of CPU time), which builds and records it; \
         an LLVM 7 built elsewhere is recorded by `LLVM_CONFIG=/path/to/llvm-config cargo xtask setup`."
    ))
}

/// A relocatable LLVM 7.1 prefix (what `cargo xtask llvm7` installs, packed) that a machine may
/// keep beside the checkout, and its sha256: it is used only if it is exactly that file.
const PREBUILT_TARBALL: &str = "../shared/toolchains/llvm-7.1.0-nvptx-x86_64-linux.tar.xz";
const PREBUILT_SHA256: &str = "eee851bb48700fa2ebb90a5098588850852dd45b77c425f0440f6180ada3f077";
const PREBUILT_DIR: &str = "llvm-7.1.0-nvptx-x86_64-linux";

/// The llvm-config of the prebuilt prefix, unpacked into the project's cache on first use
/// (`Err` says why there is none: no tarball, or one with another sha256).
pub fn prebuilt_llvm7() -> std::result::Result<PathBuf, String> {
    let tarball = xenv::repo_root().join(PREBUILT_TARBALL);
    let dir = xenv::cache_dir().join(PREBUILT_DIR);
    let config = dir.join("bin/llvm-config");
    // Written after a verified unpack: a half-unpacked prefix is never used.
    let marker = dir.join(".sha256");
    if fs::read_to_string(&marker).is_ok_and(|s| s.trim() == PREBUILT_SHA256) {
        return check_llvm7(&config).map(|()| config);
    }
    let Ok(bytes) = fs::read(&tarball) else {
        return Err(format!("No prebuilt prefix at {PREBUILT_TARBALL} either."));
    };
    let sum = crate::env::sha256(&bytes);
    if sum != PREBUILT_SHA256 {
        return Err(format!(
            "{PREBUILT_TARBALL} has sha256 {sum}, not the {PREBUILT_SHA256} this project knows: not used."
        ));
    }
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(xenv::cache_dir()).map_err(|e| e.to_string())?;
    println!("[LLVM 7] unpacking {} (sha256 verified)", tarball.display());
    xenv::run(
        Command::new("tar")
            .arg("-C")
            .arg(xenv::cache_dir())
            .arg("-xJf")
            .arg(&tarball),
    )
    .map_err(|e| format!("{e:#}"))?;
    check_llvm7(&config)?;
    fs::write(&marker, PREBUILT_SHA256).map_err(|e| e.to_string())?;
    Ok(config)
}

pub fn which(name: &Path) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Points the repository's gitignored links `.cuda` (the CUDA root) and `.llvm` (the LLVM 7
/// prefix) at what setup found. `.cargo/config.toml` sets CUDA_PATH and LLVM_CONFIG relative to
/// them, so plain `cargo build` finds both and nothing outside the checkout is rewritten.
pub fn write_project_links(state: &State) -> Result<()> {
    let root = xenv::repo_root();
    let llvm_prefix = state
        .llvm_config
        .as_ref()
        .and_then(|c| fs::canonicalize(c).ok())
        .and_then(|c| c.parent()?.parent().map(Path::to_path_buf));
    for (name, target) in [
        (xenv::CUDA_LINK, state.cuda_root.clone()),
        (xenv::LLVM_LINK, llvm_prefix),
    ] {
        let link = root.join(name);
        let current = fs::read_link(&link).ok();
        match target {
            Some(t) if current.as_ref() != Some(&t) => {
                let _ = fs::remove_file(&link);
                std::os::unix::fs::symlink(&t, &link)
                    .with_context(|| format!("linking {}", link.display()))?;
                println!("[project links] {name} -> {} (changed)", t.display());
            }
            Some(t) => println!("[project links] {name} -> {} (unchanged)", t.display()),
            None if current.is_some() => {
                fs::remove_file(&link)?;
                println!("[project links] {name} removed (nothing to point at)");
            }
            None => {}
        }
    }
    Ok(())
}
