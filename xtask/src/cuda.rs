//! The CUDA 13.0 pieces setup lays out from PyPI wheels, and the libcuda link stub.
use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

use crate::env::{self as xenv, env_path};

/// The entry-point list, shared with the host's lazy libcuda loader.
#[path = "../../host/build/cuda_h.rs"]
mod cuda_h;

/// CUDA 13.0 pieces from PyPI. The GPU machines run driver 580 (CUDA 13.0): newer PTX ISA
/// versions would not load there, so the minor version is pinned.
pub const CUDA_WHEELS: &[&str] = &[
    "nvidia-nvvm==13.0.*",
    "nvidia-cuda-runtime==13.0.*",
    "nvidia-cuda-crt==13.0.*",
    "nvidia-cuda-profiler-api==13.0.*",
    "nvidia-cuda-nvcc==13.0.*",
];
const CUDA_ROOT_NAME: &str = "cuda-13.0";
/// `CUDA_ERROR_STUB_LIBRARY` in cuda.h.
const CUDA_ERROR_STUB_LIBRARY: u32 = 34;

fn is_complete_cuda_root(root: &Path) -> bool {
    root.join("include/cuda.h").is_file()
        && root.join("nvvm/libdevice/libdevice.10.bc").is_file()
        && root.join("bin/ptxas").is_file()
        && (root.join("nvvm/lib64/libnvvm.so").exists())
}

pub fn ensure_cuda() -> Result<PathBuf> {
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
pub fn ensure_stub(cuda_root: &Path) -> Result<()> {
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
