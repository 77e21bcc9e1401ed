//! `cargo xtask setup`: does what the package registries allow, diagnoses the rest. Idempotent.
use std::{env, fs, path::Path, process::Command};

use anyhow::{Context, Result, bail};

use crate::{
    cuda::{ensure_cuda, ensure_stub},
    env::{self as xenv, State},
    llvm::{find_llvm7, prebuilt_llvm7, write_project_links},
};

const TOOLCHAIN_COMPONENTS: &[&str] = &[
    "rust-src",
    "rustc-dev",
    "llvm-tools-preview",
    "rustfmt",
    "clippy",
];

pub fn run() -> Result<()> {
    let mut state = State::load();
    let mut missing = Vec::new();

    step("toolchain", ensure_toolchain())?;
    if let Err(why) = ensure_debian_packages() {
        println!("[system packages] MISSING");
        missing.push(why);
    }
    let cuda_root = step("CUDA", ensure_cuda())?;
    state.cuda_root = Some(cuda_root.clone());
    step("libcuda link stub", ensure_stub(&cuda_root))?;
    let mut llvm_missing = None;
    // A prebuilt prefix beside the checkout (../shared/toolchains) is used where none is recorded.
    match find_llvm7(&state).or_else(|why| prebuilt_llvm7().map_err(|e| format!("{why} {e}"))) {
        Ok(path) => {
            println!("[LLVM 7] {} ", path.display());
            state.llvm_config = Some(path);
        }
        Err(why) => {
            println!("[LLVM 7] MISSING");
            state.llvm_config = None;
            llvm_missing = Some(why);
        }
    }
    state.save()?;
    step("project links", write_project_links(&state))?;

    match check_rust_cuda(&state) {
        Ok(()) => println!(
            "[rust-cuda] {} @ {} resolves",
            xenv::RUST_CUDA_URL,
            &xenv::RUST_CUDA_REV[..12]
        ),
        Err(why) => {
            println!("[rust-cuda] MISSING");
            missing.push(why);
        }
    }

    // Without LLVM 7 everything builds and runs but the PTX cannot be rebuilt: the host embeds
    // the committed PTX, and ci checks it against its stamp instead of a fresh build.
    if let Some(why) = llvm_missing {
        eprintln!(
            "\nnote: {why}\nWithout it the kernels cannot be recompiled: the host runs the committed \
             PTX, and `cargo xtask ci` checks it against its freshness stamp instead of rebuilding it."
        );
    }
    if missing.is_empty() {
        println!(
            "\nsetup complete: next, `cargo xtask ci` (or `cargo xtask build-ptx` after editing kernels)"
        );
        Ok(())
    } else {
        for m in &missing {
            eprintln!("\nmissing: {m}");
        }
        bail!(
            "setup is incomplete: {} piece(s) missing (above)",
            missing.len()
        )
    }
}

fn step<T>(name: &str, r: Result<T>) -> Result<T> {
    r.with_context(|| format!("setup step '{name}' failed"))
}

fn ensure_toolchain() -> Result<()> {
    let channel = xenv::toolchain_channel()?;
    let list = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .context("rustup is required (https://rustup.rs) and was not found")?;
    let installed = String::from_utf8_lossy(&list.stdout)
        .lines()
        .any(|l| l.starts_with(&channel));
    if !installed {
        println!("[toolchain] installing {channel}");
        let mut cmd = Command::new("rustup");
        cmd.args(["toolchain", "install", &channel, "--profile", "minimal"]);
        for c in TOOLCHAIN_COMPONENTS {
            cmd.args(["-c", c]);
        }
        xenv::run(&mut cmd)?;
    }
    let out = Command::new("rustup")
        .args(["component", "list", "--installed", "--toolchain", &channel])
        .output()?;
    let have = String::from_utf8_lossy(&out.stdout).into_owned();
    let absent: Vec<&str> = TOOLCHAIN_COMPONENTS
        .iter()
        .copied()
        .filter(|c| {
            // rustup lists llvm-tools-preview as llvm-tools-<triple>
            let stem = c.trim_end_matches("-preview");
            !have.lines().any(|l| l.starts_with(stem))
        })
        .collect();
    if !absent.is_empty() {
        println!("[toolchain] adding components {absent:?}");
        xenv::run(
            Command::new("rustup")
                .args(["component", "add", "--toolchain", &channel])
                .args(&absent),
        )?;
    }
    println!(
        "[toolchain] {channel} with {}",
        TOOLCHAIN_COMPONENTS.join(", ")
    );
    Ok(())
}

/// Whether `name` is a library file bindgen can load: `libclang.so*` or `libclang-N.so*`, not
/// `libclang-cpp.so*` (the C++ API, which bindgen cannot use: the trap of Debian's
/// libclang-cpp14 package).
pub fn is_bindgen_libclang(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("libclang") else {
        return false;
    };
    rest.starts_with(".so")
        || rest
            .strip_prefix('-')
            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()) && v.contains(".so"))
}

/// bindgen (in cust_raw's build script) needs libclang and clang's built-in headers.
fn libclang_present() -> bool {
    if env::var_os("LIBCLANG_PATH").is_some() {
        return true;
    }
    let in_cache = xenv::ldconfig_cache()
        .lines()
        .any(|l| l.split_whitespace().next().is_some_and(is_bindgen_libclang));
    // bindgen also looks in LLVM's own directories, which the loader cache may not list.
    let in_llvm_dirs = fs::read_dir("/usr/lib").is_ok_and(|d| {
        d.flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with("llvm-")
                && fs::read_dir(e.path().join("lib")).is_ok_and(|libs| {
                    libs.flatten()
                        .any(|l| is_bindgen_libclang(&l.file_name().to_string_lossy()))
                })
        })
    });
    in_cache || in_llvm_dirs
}

/// A TTF font for the charts `host report` renders (plotters draws text with it).
fn font_present() -> bool {
    env::var_os("REPORT_FONT").is_some()
        || [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
        ]
        .iter()
        .any(|p| Path::new(p).exists())
}

/// System pieces from Debian's registry: libclang for bindgen, a font for the charts.
fn ensure_debian_packages() -> std::result::Result<(), String> {
    let mut wanted: Vec<&str> = Vec::new();
    if !libclang_present() {
        wanted.extend(["libclang1-14", "libclang-common-14-dev"]);
    }
    if !font_present() {
        wanted.push("fonts-dejavu-core");
    }
    if wanted.is_empty() {
        println!("[system packages] libclang (for bindgen) and a TTF font (for charts) found");
        return Ok(());
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if is_root && Path::new("/usr/bin/apt-get").exists() {
        println!(
            "[system packages] installing Debian packages {}",
            wanted.join(" ")
        );
        let _ = Command::new("apt-get").args(["update", "-qq"]).status();
        let ok = Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(&wanted)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success());
        if ok && libclang_present() && font_present() {
            return Ok(());
        }
    }
    Err(format!(
        "system packages: bindgen (in rust-cuda's cust_raw) needs libclang and clang's headers, and \
         `host report` needs a TTF font; install them (Debian: apt-get install {}) or set \
         LIBCLANG_PATH / REPORT_FONT",
        wanted.join(" ")
    ))
}

fn check_rust_cuda(state: &State) -> std::result::Result<(), String> {
    let mut cmd = xenv::cargo(state).map_err(|e| e.to_string())?;
    cmd.args(["fetch", "--locked"]);
    let out = cmd
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if !err.contains("rust-cuda") {
        return Err(format!("`cargo fetch --locked` failed:\n{err}"));
    }
    let tail: Vec<&str> = err
        .lines()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Err(format!(
        "the rust-cuda git source ({} at rev {}) could not be fetched by cargo. Where GitHub is out of \
         reach, point git at a local clone (git config --global url.file:///PATH/TO/rust-cuda.insteadOf {}) \
         and let cargo use the git CLI ([net] git-fetch-with-cli = true in ~/.cargo/config.toml). \
         cargo said:\n    {}",
        xenv::RUST_CUDA_URL,
        xenv::RUST_CUDA_REV,
        xenv::RUST_CUDA_URL,
        tail.join("\n    ")
    ))
}

#[cfg(test)]
mod tests {
    use super::is_bindgen_libclang;

    #[test]
    fn libclang_is_the_c_library_not_the_cpp_one() {
        for yes in [
            "libclang.so",
            "libclang.so.1",
            "libclang-14.so.1",
            "libclang-14.so",
        ] {
            assert!(is_bindgen_libclang(yes), "{yes}");
        }
        for no in [
            "libclang-cpp.so.14",
            "libclang-cpp.so",
            "libclangBasic.a",
            "libclang",
        ] {
            assert!(!is_bindgen_libclang(no), "{no}");
        }
    }
}
