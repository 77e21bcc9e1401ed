//! `cargo xtask llvm7 --source DIR`: builds the LLVM 7.1 that rust-cuda's codegen links
//! (NVPTX target only, static, Release, no assertions) from an LLVM source tree into the project's
//! cache, and records it for `build-ptx` as `setup` would. No package registry serves LLVM 7,
//! so this is the one step that needs a source tree on disk.
use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

use anyhow::{Context, Result, bail};

use crate::{
    env::{self as xenv, State},
    llvm,
};

/// The LLVM components rustc_codegen_nvvm's build script asks `llvm-config --libs` for.
pub const COMPONENTS: &[&str] = &["ipo", "bitreader", "bitwriter", "lto", "nvptx"];

/// The cmake options of the one configuration known to work: static libraries of the NVPTX
/// target only, no optional system libraries (so `llvm-config --system-libs` asks for nothing a
/// fresh machine lacks), no tests, examples or docs (a source tree without `test/` builds).
const CMAKE_OPTIONS: &[&str] = &[
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLVM_ENABLE_ASSERTIONS=OFF",
    "-DLLVM_TARGETS_TO_BUILD=NVPTX",
    "-DLLVM_BUILD_LLVM_DYLIB=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLVM_ENABLE_TERMINFO=OFF",
    "-DLLVM_ENABLE_ZLIB=OFF",
    "-DLLVM_ENABLE_LIBXML2=OFF",
    "-DLLVM_ENABLE_LIBEDIT=OFF",
    "-DLLVM_ENABLE_LIBPFM=OFF",
    "-DLLVM_ENABLE_BINDINGS=OFF",
    "-DLLVM_INCLUDE_TESTS=OFF",
    "-DLLVM_INCLUDE_EXAMPLES=OFF",
    "-DLLVM_INCLUDE_DOCS=OFF",
    "-DLLVM_INCLUDE_GO_TESTS=OFF",
];

/// LLVM 7's sources predate the header clean-ups of gcc 11+ (they use `uint64_t` and
/// `std::numeric_limits` without including the headers): gcc 12 needs both forced in.
const CXX_FLAGS: &str = "-include cstdint -include limits";

/// The installed prefix in the project's cache.
pub fn prefix() -> PathBuf {
    xenv::cache_dir().join("llvm-7.1")
}

pub fn run(args: &[String]) -> Result<()> {
    let mut source = None;
    let mut jobs = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--source" => {
                source = Some(PathBuf::from(
                    it.next().context("--source needs a directory")?,
                ))
            }
            "--jobs" | "-j" => {
                let v = it.next().context("--jobs needs a number")?;
                jobs = Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|&n| n > 0)
                        .with_context(|| format!("--jobs needs a positive number, got {v:?}"))?,
                );
            }
            other => bail!("llvm7: unknown argument {other:?} (expected --source DIR [--jobs N])"),
        }
    }
    let Some(source) = source else {
        bail!(
            "llvm7 needs --source DIR: an LLVM 7.1 source tree (the llvm/ directory of the release, or its parent)"
        );
    };
    let src = llvm_source_dir(&source)?;
    for tool in ["cmake", "ninja", "c++", "python3"] {
        if llvm::which(Path::new(tool)).is_none() {
            bail!(
                "{tool} is needed to build LLVM and is not on PATH (Debian: apt-get install cmake ninja-build g++ python3)"
            );
        }
    }
    let python3 = llvm::which(Path::new("python3")).context("python3 is on PATH")?;
    let build = xenv::cache_dir().join("llvm-7.1-build");
    let staging = xenv::cache_dir().join("llvm-7.1.partial");
    let dest = prefix();
    let started = Instant::now();
    println!("[llvm7] source {} (LLVM 7.1)", src.display());
    println!("[llvm7] build directory {}", build.display());

    // Configure once; a re-run after an interruption goes on where ninja stopped.
    if !build.join("build.ninja").is_file() {
        fs::create_dir_all(&build)?;
        println!("[llvm7] configuring (cmake {})", CMAKE_OPTIONS.join(" "));
        xenv::run(
            Command::new("cmake")
                .current_dir(&build)
                .args(["-G", "Ninja"])
                .arg(&src)
                .args(CMAKE_OPTIONS)
                .arg(format!("-DCMAKE_CXX_FLAGS={CXX_FLAGS}"))
                .arg(format!("-DCMAKE_INSTALL_PREFIX={}", staging.display()))
                // LLVM 7's FindPythonInterp does not find a `python3`-only system by itself.
                .arg(format!("-DPYTHON_EXECUTABLE={}", python3.display())),
        )?;
    }
    // llvm-config first: it names the libraries of the components, which are all that is built.
    ninja(&build, jobs, &["llvm-config".to_string()])?;
    let names = lib_names(&build.join("bin/llvm-config"))?;
    println!(
        "[llvm7] building the {} libraries of components {}",
        names.len(),
        COMPONENTS.join(" ")
    );
    ninja(&build, jobs, &names)?;
    // All built now, so llvm-config names every library (also those built before a resume).
    let names = lib_names(&build.join("bin/llvm-config"))?;

    println!("[llvm7] installing into {}", dest.display());
    let _ = fs::remove_dir_all(&staging);
    let mut targets: Vec<String> = names.iter().map(|n| format!("install-{n}")).collect();
    targets.push("install-llvm-config".into());
    targets.push("install-llvm-headers".into());
    ninja(&build, jobs, &targets)?;
    fs::copy(src.join("LICENSE.TXT"), staging.join("LICENSE.TXT"))?;
    let config = staging.join("bin/llvm-config");
    llvm::check_llvm7(&config).map_err(anyhow::Error::msg)?;
    let _ = fs::remove_dir_all(&dest);
    fs::rename(&staging, &dest)?;

    // Record it as setup does: the state file and the checkout's `.llvm` link.
    let mut state = State::load();
    state.llvm_config = Some(dest.join("bin/llvm-config"));
    state.save()?;
    llvm::write_project_links(&state)?;
    let secs = started.elapsed().as_secs();
    println!(
        "[llvm7] LLVM 7.1 ready in {}m{:02}s at {}; the build directory {} can be deleted. \
         Next: `cargo xtask build-ptx`.",
        secs / 60,
        secs % 60,
        dest.display(),
        build.display()
    );
    Ok(())
}

/// The `llvm/` directory of an LLVM source tree (given it or its parent), checked to be 7.1.
fn llvm_source_dir(given: &Path) -> Result<PathBuf> {
    let dir = [given.to_path_buf(), given.join("llvm")]
        .into_iter()
        .find(|d| d.join("CMakeLists.txt").is_file() && d.join("tools/llvm-config").is_dir())
        .with_context(|| {
            format!(
                "{} is not an LLVM source tree (no CMakeLists.txt beside tools/llvm-config, nor in llvm/)",
                given.display()
            )
        })?;
    let cmake = fs::read_to_string(dir.join("CMakeLists.txt"))?;
    let version = |part: &str| {
        let key = format!("set(LLVM_VERSION_{part} ");
        cmake.lines().find_map(|l| {
            l.trim()
                .strip_prefix(&key)?
                .strip_suffix(')')
                .map(str::to_owned)
        })
    };
    match (version("MAJOR"), version("MINOR")) {
        (Some(major), Some(minor)) if major == "7" && minor == "1" => Ok(fs::canonicalize(&dir)?),
        (major, minor) => bail!(
            "{} is LLVM {}.{}, not 7.1: rust-cuda's codegen is written against LLVM 7.1",
            dir.display(),
            major.as_deref().unwrap_or("?"),
            minor.as_deref().unwrap_or("?")
        ),
    }
}

/// `ninja TARGETS` in the build directory; ninja's own `[done/total]` lines are the progress.
fn ninja(build: &Path, jobs: Option<u32>, targets: &[String]) -> Result<()> {
    let mut cmd = Command::new("ninja");
    cmd.current_dir(build)
        .env("NINJA_STATUS", "[llvm7 %f/%t %p %es] ");
    if let Some(j) = jobs {
        cmd.arg(format!("-j{j}"));
    }
    cmd.args(targets);
    let status = cmd.status().context("starting ninja")?;
    if !status.success() {
        bail!(
            "ninja {} failed ({status}) in {}",
            targets.join(" "),
            build.display()
        );
    }
    Ok(())
}

/// The library targets (`LLVMCore`, …) behind the components, from a built llvm-config. In the
/// build tree it names them only once they all exist; before, it names those not yet built as
/// missing (on stderr), which are what is left to build.
fn lib_names(llvm_config: &Path) -> Result<Vec<String>> {
    let out = Command::new(llvm_config)
        .arg("--libnames")
        .args(COMPONENTS)
        .output()
        .with_context(|| format!("running {}", llvm_config.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let names = parse_lib_names(
        out.status.success(),
        &String::from_utf8_lossy(&out.stdout),
        &stderr,
    );
    if names.is_empty() {
        bail!(
            "{} --libnames named no static libraries: {}",
            llvm_config.display(),
            stderr.trim()
        );
    }
    Ok(names)
}

/// The library names in `llvm-config --libnames` output: `libLLVMCore.a …` on stdout when it
/// succeeds, `llvm-config: error: missing: /…/lib/libLLVMCore.a` lines on stderr when it fails.
fn parse_lib_names(success: bool, stdout: &str, stderr: &str) -> Vec<String> {
    let files: Vec<&str> = if success {
        stdout.split_whitespace().collect()
    } else {
        stderr
            .lines()
            .filter_map(|l| l.split_once("missing: ")?.1.rsplit('/').next())
            .collect()
    };
    files
        .iter()
        .filter_map(|f| f.strip_prefix("lib")?.strip_suffix(".a").map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_from_either_answer_of_llvm_config() {
        assert_eq!(
            parse_lib_names(true, "libLLVMipo.a libLLVMCore.a\n", ""),
            ["LLVMipo", "LLVMCore"]
        );
        let missing = "llvm-config: error: missing: /b/lib/libLLVMMC.a\n\
                       llvm-config: error: missing: /b/lib/libLLVMNVPTXInfo.a\n";
        assert_eq!(
            parse_lib_names(false, "", missing),
            ["LLVMMC", "LLVMNVPTXInfo"]
        );
        assert!(parse_lib_names(false, "", "llvm-config: unknown component").is_empty());
    }

    #[test]
    fn the_source_tree_must_be_llvm_7_1() {
        let dir = std::env::temp_dir().join(format!("xtask_llvm7_{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let llvm = dir.join("llvm");
        fs::create_dir_all(llvm.join("tools/llvm-config")).unwrap();
        let cmake = |minor: u32| {
            format!(
                "if(NOT DEFINED LLVM_VERSION_MAJOR)\n  set(LLVM_VERSION_MAJOR 7)\nendif()\n\
                 if(NOT DEFINED LLVM_VERSION_MINOR)\n  set(LLVM_VERSION_MINOR {minor})\nendif()\n"
            )
        };
        fs::write(llvm.join("CMakeLists.txt"), cmake(1)).unwrap();
        // The release's llvm/ directory, or its parent.
        let want = fs::canonicalize(&llvm).unwrap();
        assert_eq!(llvm_source_dir(&dir).unwrap(), want);
        assert_eq!(llvm_source_dir(&llvm).unwrap(), want);
        fs::write(llvm.join("CMakeLists.txt"), cmake(0)).unwrap();
        let err = llvm_source_dir(&dir).unwrap_err().to_string();
        assert!(
            err.ends_with("is LLVM 7.0, not 7.1: rust-cuda's codegen is written against LLVM 7.1"),
            "{err}"
        );
        let err = llvm_source_dir(&dir.join("tools")).unwrap_err().to_string();
        assert!(err.contains("is not an LLVM source tree"), "{err}");
        let _ = fs::remove_dir_all(&dir);
    }
}
