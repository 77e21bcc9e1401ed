//! Where setup keeps its state, and the environment every later task gives its child processes,
//! so that nobody has to export CUDA_PATH, LLVM_CONFIG or LD_LIBRARY_PATH by hand.
use std::{
    collections::BTreeMap,
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

/// The rust-cuda revision the workspace pins (kept in sync with the top-level Cargo.toml).
pub const RUST_CUDA_URL: &str = "https://github.com/Rust-GPU/rust-cuda";
pub const RUST_CUDA_REV: &str = "946c91f080770f30d42d7c706ac8185969274073";

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// Per-user cache outside the repository: CUDA root from wheels, the libcuda stub, state.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = env::var_os("GPU_KERNELS_CACHE") {
        return PathBuf::from(dir);
    }
    let base = env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join("rust-gpu-kernels")
}

/// The repository's gitignored link to the CUDA root, and the one to the LLVM 7 prefix;
/// `.cargo/config.toml` sets CUDA_PATH and LLVM_CONFIG through them.
pub const CUDA_LINK: &str = ".cuda";
pub const LLVM_LINK: &str = ".llvm";

pub fn toolchain_channel() -> Result<String> {
    let path = repo_root().join("rust-toolchain.toml");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let doc: toml_edit::DocumentMut = text.parse().context("parsing rust-toolchain.toml")?;
    doc["toolchain"]["channel"]
        .as_str()
        .map(str::to_owned)
        .context("rust-toolchain.toml has no toolchain.channel")
}

/// What `setup` decided, read back by later tasks.
#[derive(Debug, Default, Clone)]
pub struct State {
    pub cuda_root: Option<PathBuf>,
    pub llvm_config: Option<PathBuf>,
}

impl State {
    fn path() -> PathBuf {
        cache_dir().join("state")
    }

    pub fn load() -> State {
        let mut state = State::default();
        let Ok(text) = fs::read_to_string(Self::path()) else {
            return state;
        };
        for line in text.lines() {
            match line.split_once('=') {
                Some(("CUDA_ROOT", v)) if !v.is_empty() => state.cuda_root = Some(v.into()),
                Some(("LLVM_CONFIG", v)) if !v.is_empty() => state.llvm_config = Some(v.into()),
                _ => {}
            }
        }
        state
    }

    pub fn save(&self) -> Result<()> {
        let show = |p: &Option<PathBuf>| {
            p.as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        };
        let text = format!(
            "CUDA_ROOT={}\nLLVM_CONFIG={}\n",
            show(&self.cuda_root),
            show(&self.llvm_config)
        );
        fs::create_dir_all(cache_dir())?;
        fs::write(Self::path(), text).context("writing setup state")
    }

    pub fn require_cuda(&self) -> Result<&Path> {
        match &self.cuda_root {
            Some(root) if root.join("include/cuda.h").is_file() => Ok(root),
            _ => bail!("no CUDA root recorded: run `cargo xtask setup` first"),
        }
    }
}

/// The dynamic loader's cache as `ldconfig -p` prints it (empty if ldconfig cannot be run).
pub fn ldconfig_cache() -> String {
    ["/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"]
        .iter()
        .find_map(|l| {
            Command::new(l)
                .arg("-p")
                .output()
                .ok()
                .filter(|o| o.status.success())
        })
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn prepend_path(var: &str, dirs: &[PathBuf]) -> std::ffi::OsString {
    let mut all: Vec<PathBuf> = dirs.iter().filter(|d| d.is_dir()).cloned().collect();
    if let Some(old) = env::var_os(var) {
        all.extend(env::split_paths(&old));
    }
    env::join_paths(all).expect("paths contain no separator")
}

/// A `cargo` command on the pinned toolchain with the environment setup chose.
pub fn cargo(state: &State) -> Result<Command> {
    let mut cmd = Command::new("cargo");
    cmd.env("RUSTUP_TOOLCHAIN", toolchain_channel()?);
    for (k, v) in child_env(state) {
        cmd.env(k, v);
    }
    cmd.current_dir(repo_root());
    Ok(cmd)
}

pub fn child_env(state: &State) -> BTreeMap<String, std::ffi::OsString> {
    let mut vars = BTreeMap::new();
    let mut lib_dirs = Vec::new();
    let mut bin_dirs = Vec::new();
    if let Some(root) = &state.cuda_root {
        vars.insert("CUDA_PATH".into(), root.clone().into_os_string());
        // The codegen backend links libnvvm dynamically; rustc loads it while compiling kernels.
        lib_dirs.push(root.join("nvvm/lib64"));
        bin_dirs.push(root.join("bin"));
    }
    if let Some(llvm) = &state.llvm_config {
        vars.insert("LLVM_CONFIG".into(), llvm.clone().into_os_string());
    }
    vars.insert(
        "LD_LIBRARY_PATH".into(),
        prepend_path("LD_LIBRARY_PATH", &lib_dirs),
    );
    vars.insert("PATH".into(), prepend_path("PATH", &bin_dirs));
    vars
}

pub fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !status.success() {
        bail!("{} failed ({status})", describe(cmd));
    }
    Ok(())
}

pub fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// A path from the environment. cargo passes the project's `[env]` (which points through the
/// links setup itself makes) to xtask too: those are resolved to their targets, and ignored
/// while they dangle, so that setup never links a path to itself.
pub fn env_path(var: &str) -> Option<PathBuf> {
    let p = PathBuf::from(std::env::var_os(var)?);
    if p.starts_with(repo_root()) {
        std::fs::canonicalize(&p).ok()
    } else {
        Some(p)
    }
}

/// The SHA-256 of `bytes` in lowercase hex (the PTX stamp, the prebuilt LLVM's checksum).
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write;
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
