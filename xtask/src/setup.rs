//! `cargo xtask setup`: does what the package registries allow, diagnoses the rest. Idempotent.
use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

use crate::env::{self as xenv, State};

/// The entry-point list, shared with the host's lazy libcuda loader.
#[path = "../../host/build/cuda_h.rs"]
mod cuda_h;

/// CUDA 13.0 pieces from PyPI. The GPU machines run driver 580 (CUDA 13.0): newer PTX ISA
/// versions would not load there, so the minor version is pinned.
const CUDA_WHEELS: &[&str] = &[
    "nvidia-nvvm==13.0.*",
    "nvidia-cuda-runtime==13.0.*",
    "nvidia-cuda-crt==13.0.*",
    "nvidia-cuda-profiler-api==13.0.*",
    "nvidia-cuda-nvcc==13.0.*",
];
const CUDA_ROOT_NAME: &str = "cuda-13.0";
/// `CUDA_ERROR_STUB_LIBRARY` in cuda.h.
const CUDA_ERROR_STUB_LIBRARY: u32 = 34;
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
    let in_ci = env::var("CI").is_ok_and(|v| v == "true" || v == "1");

    step("toolchain", ensure_toolchain())?;
    if let Err(why) = ensure_debian_packages() {
        println!("[system packages] MISSING");
        missing.push(why);
    }
    let cuda_root = step("CUDA", ensure_cuda())?;
    state.cuda_root = Some(cuda_root.clone());
    step("libcuda link stub", ensure_stub(&cuda_root))?;
    let mut llvm_missing = None;
    match find_llvm7(&state) {
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
    // the committed PTX. CI must prove that PTX fresh, so there it stays an error.
    if let Some(why) = llvm_missing {
        if in_ci {
            missing.push(why);
        } else {
            eprintln!(
                "\nnote: {why}\nWithout it the kernels cannot be recompiled: the host runs the \
                 committed PTX, and `cargo xtask ci` checks everything else and says it skipped the \
                 PTX rebuild."
            );
        }
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

/// A path from the environment. cargo passes the project's `[env]` (which points through the
/// links setup itself makes) to xtask too: those are resolved to their targets, and ignored
/// while they dangle, so that setup never links a path to itself.
fn env_path(var: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env::var_os(var)?);
    if p.starts_with(xenv::repo_root()) {
        fs::canonicalize(&p).ok()
    } else {
        Some(p)
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

fn is_complete_cuda_root(root: &Path) -> bool {
    root.join("include/cuda.h").is_file()
        && root.join("nvvm/libdevice/libdevice.10.bc").is_file()
        && root.join("bin/ptxas").is_file()
        && (root.join("nvvm/lib64/libnvvm.so").exists())
}

fn ensure_cuda() -> Result<PathBuf> {
    for var in ["CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR"] {
        if let Some(p) = env_path(var) {
            if is_complete_cuda_root(&p) {
                println!("[CUDA] using {var}={} as is", p.display());
                return Ok(p);
            }
            println!(
                "[CUDA] {var}={} lacks cuda.h, libnvvm, libdevice or ptxas: not used",
                p.display()
            );
        }
    }
    let system = PathBuf::from("/usr/local/cuda");
    if is_complete_cuda_root(&system) {
        println!("[CUDA] using {} as is", system.display());
        return Ok(system);
    }
    let root = xenv::cache_dir().join(CUDA_ROOT_NAME);
    let marker = root.join(".complete");
    if marker.is_file() && is_complete_cuda_root(&root) {
        println!(
            "[CUDA] {} (from PyPI wheels, already laid out)",
            root.display()
        );
        return Ok(root);
    }
    install_cuda_wheels(&root)?;
    fs::write(&marker, CUDA_WHEELS.join("\n"))?;
    println!("[CUDA] laid out {} from PyPI wheels", root.display());
    Ok(root)
}

fn install_cuda_wheels(root: &Path) -> Result<()> {
    let work = xenv::cache_dir().join("wheels");
    let unpacked = work.join("unpacked");
    let _ = fs::remove_dir_all(&unpacked);
    fs::create_dir_all(&unpacked)?;
    println!("[CUDA] downloading {}", CUDA_WHEELS.join(" "));
    let mut pip = Command::new("python3");
    pip.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "-d",
    ])
    .arg(&work)
    .args(CUDA_WHEELS);
    xenv::run(&mut pip).context("python3 with pip is needed to fetch the CUDA 13.0 wheels")?;
    for entry in fs::read_dir(&work)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "whl") && wheel_is_wanted(&path) {
            xenv::run(
                Command::new("python3")
                    .args(["-m", "zipfile", "-e"])
                    .arg(&path)
                    .arg(&unpacked),
            )?;
        }
    }
    let src = unpacked.join("nvidia/cu13");
    if !src.is_dir() {
        bail!("the wheels did not contain nvidia/cu13 (layout changed?)");
    }
    let _ = fs::remove_dir_all(root);
    // The layout cust_raw and cuda_builder expect from a CUDA toolkit.
    copy_dir(&src.join("include"), &root.join("include"))?;
    copy_file(
        &src.join("include/nvvm.h"),
        &root.join("nvvm/include/nvvm.h"),
    )?;
    copy_file(
        &src.join("lib/libnvvm.so.4"),
        &root.join("nvvm/lib64/libnvvm.so.4"),
    )?;
    symlink("libnvvm.so.4", &root.join("nvvm/lib64/libnvvm.so"))?;
    copy_dir(&src.join("nvvm/libdevice"), &root.join("nvvm/libdevice"))?;
    copy_dir(&src.join("nvvm/bin"), &root.join("nvvm/bin"))?;
    copy_dir(&src.join("bin"), &root.join("bin"))?;
    for entry in fs::read_dir(src.join("lib"))? {
        let path = entry?.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("libcudart") {
            copy_file(&path, &root.join("lib64").join(&name))?;
            if name.starts_with("libcudart.so.") {
                symlink(&name, &root.join("lib64/libcudart.so"))?;
            }
        }
    }
    // Zip archives carry no execute bits.
    for dir in [root.join("bin"), root.join("nvvm/bin")] {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_file() {
                set_executable(&path)?;
            }
        }
    }
    Ok(())
}

fn wheel_is_wanted(path: &Path) -> bool {
    let name = path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace('_', "-");
    CUDA_WHEELS.iter().any(|w| {
        let (pkg, _) = w.split_once("==").unwrap();
        name.starts_with(&format!("{pkg}-13.0."))
    })
}

fn copy_dir(src: &Path, dst: &Path) -> Result<()> {
    fs::create_dir_all(dst)?;
    for entry in fs::read_dir(src).with_context(|| format!("reading {}", src.display()))? {
        let entry = entry?;
        let to = dst.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to)?;
        } else {
            fs::copy(entry.path(), &to)?;
        }
    }
    Ok(())
}

fn copy_file(src: &Path, dst: &Path) -> Result<()> {
    fs::create_dir_all(dst.parent().unwrap())?;
    fs::copy(src, dst).with_context(|| format!("copying {}", src.display()))?;
    Ok(())
}

fn symlink(target: &str, link: &Path) -> Result<()> {
    let _ = fs::remove_file(link);
    std::os::unix::fs::symlink(target, link).with_context(|| format!("linking {}", link.display()))
}

fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = fs::metadata(path)?.permissions();
    perm.set_mode(perm.mode() | 0o755);
    fs::set_permissions(path, perm)?;
    Ok(())
}

/// `libcuda.so` for linking (in `lib64/stubs`, like NVIDIA's own stub: the loader never looks
/// there). cust_raw asks for `-lcuda`; the host's lazy loader (host/build/lazy_cuda.rs) defines
/// every entry point first, so the binary never depends on it.
fn ensure_stub(cuda_root: &Path) -> Result<()> {
    let stub = cuda_root.join("lib64/stubs/libcuda.so");
    if !stub.exists() {
        let header = fs::read_to_string(cuda_root.join("include/cuda.h"))?;
        let names = cuda_h::entry_points(&header);
        if names.len() < 300 {
            bail!(
                "found only {} entry points in cuda.h; refusing to build a partial stub",
                names.len()
            );
        }
        let mut c =
            String::from("/* Generated by `cargo xtask setup`: every entry point fails. */\n");
        for n in &names {
            c.push_str(&format!(
                "int {n}(void) {{ return {CUDA_ERROR_STUB_LIBRARY}; }}\n"
            ));
        }
        let dir = xenv::cache_dir().join("stub-src");
        fs::create_dir_all(&dir)?;
        fs::create_dir_all(stub.parent().unwrap())?;
        let src = dir.join("libcuda_stub.c");
        fs::write(&src, c)?;
        xenv::run(
            Command::new("cc")
                .args([
                    "-shared",
                    "-fPIC",
                    "-O1",
                    "-fno-builtin",
                    "-Wl,-soname,libcuda.so.1",
                    "-o",
                ])
                .arg(&stub)
                .arg(&src),
        )
        .context("a C compiler (cc) is needed to build the libcuda stub")?;
        println!(
            "[libcuda stub] {} ({} entry points)",
            stub.display(),
            names.len()
        );
    } else {
        println!("[libcuda stub] {}", stub.display());
    }
    Ok(())
}

fn llvm_version(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn find_llvm7(state: &State) -> std::result::Result<PathBuf, String> {
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
        match llvm_version(&path) {
            Some(v) if v.starts_with("7.") => {
                let comps = Command::new(&path).arg("--components").output();
                let comps = comps
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                if comps.split_whitespace().any(|c| c == "nvptx") {
                    let abs = if path.components().count() == 1 {
                        which(&path).unwrap_or(path)
                    } else {
                        path
                    };
                    return Ok(abs);
                }
                seen.push(format!(
                    "{what} ({}) is LLVM {v} but lacks the NVPTX target",
                    path.display()
                ));
            }
            Some(v) => seen.push(format!("{what} ({}) is LLVM {v}", path.display())),
            None if what.starts_with("llvm-config") => {}
            None => seen.push(format!("{what} ({}) does not run", path.display())),
        }
    }
    let found = if seen.is_empty() {
        "no llvm-config was found".to_string()
    } else {
        seen.join("; ")
    };
    Err(format!(
        "LLVM 7.x: rust-cuda's codegen (rustc_codegen_nvvm) links LLVM 7 statically, and {found}. \
         No package registry serves LLVM 7: build LLVM 7.1 with the NVPTX target (components ipo, \
         bitreader, bitwriter, lto, nvptx) and run `LLVM_CONFIG=/path/to/llvm-config cargo xtask setup`, \
         which records it for later commands."
    ))
}

fn which(name: &Path) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
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

/// Points the repository's gitignored links `.cuda` (the CUDA root) and `.llvm` (the LLVM 7
/// prefix) at what setup found. `.cargo/config.toml` sets CUDA_PATH and LLVM_CONFIG relative to
/// them, so plain `cargo build` finds both and nothing outside the checkout is rewritten.
fn write_project_links(state: &State) -> Result<()> {
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
