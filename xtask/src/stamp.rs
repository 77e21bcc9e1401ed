//! The PTX freshness stamp: `gpu-kernels/ptx/gpu_kernels.ptx.stamp` (the PTX's path + `.stamp`), written by `build-ptx` beside
//! the committed PTX, holds the sha256 of every input of the kernel build and of the PTX itself
//! (both modules: the portable one and the compute_90a Hopper one, built from the same inputs).
//! `cargo xtask ci` recomputes it on every machine, so a kernel edited without rebuilding the PTX
//! is caught where LLVM 7 (needed to rebuild) is missing too. Where LLVM 7 is present, ci also
//! rebuilds the PTX and compares bytes.
use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use crate::env::sha256;
use anyhow::{Context, Result, bail};

/// The architecture of the committed PTX: the oldest the kernels need (`cp.async` is sm_80),
/// so that A100s and RTX 30/40 cards run it too. The driver JIT-compiles it for the GPU at hand.
pub const DEFAULT_ARCH: &str = "compute_80";

/// The architecture of the Hopper module, which ptx-builder always builds beside the default one
/// (its `HOPPER_ARCH`; xtask cannot depend on ptx-builder, so the stamp restates it here).
pub const HOPPER_ARCH: &str = "compute_90a";

/// A `pub const NAME: &str = "…";` from gpu-kernels' source under `root`, read as text: xtask
/// cannot depend on the kernels crate (it must build without the rust-cuda source).
fn kernels_const(root: &Path, name: &str) -> Result<String> {
    let src = fs::read_to_string(root.join("gpu-kernels/src/lib.rs"))?;
    let head = format!("pub const {name}: &str = \"");
    src.lines()
        .find_map(|l| l.trim().strip_prefix(head.as_str()))
        .and_then(|v| v.strip_suffix("\";"))
        .map(str::to_owned)
        .with_context(|| format!("{name} not found in gpu-kernels/src/lib.rs"))
}

/// `PTX_PATH`: where the committed PTX lives, relative to the repository root.
pub fn committed_ptx_rel(root: &Path) -> Result<String> {
    kernels_const(root, "PTX_PATH")
}

/// `PTX_SM90A_PATH`: where the committed Hopper (compute_90a) PTX lives.
pub fn committed_sm90a_rel(root: &Path) -> Result<String> {
    kernels_const(root, "PTX_SM90A_PATH")
}

/// Both committed PTX files, the portable one first.
fn ptx_files(root: &Path) -> Result<[String; 2]> {
    Ok([committed_ptx_rel(root)?, committed_sm90a_rel(root)?])
}

/// The committed PTX (gpu-kernels' `PTX_PATH`) and its stamp, relative to `root`.
fn paths(root: &Path) -> Result<(String, String)> {
    let ptx = committed_ptx_rel(root)?;
    let stamp = format!("{ptx}.stamp");
    Ok((ptx, stamp))
}

/// The files and directories (every file below, recursively) the kernel build reads. This list
/// and [`facts`] are the one definition of "an input of the PTX".
const INPUT_PATHS: &[&str] = &[
    "gpu-kernels/Cargo.toml",
    "gpu-kernels/src",
    "ptx-builder",
    "rust-toolchain.toml",
];

/// The inputs that are not whole files: the rust-cuda revision the workspace pins, the locked
/// versions of everything the kernels and the codegen are built from, and the architecture and
/// compilers that build-ptx drives. Each is a label and the text that is hashed.
fn facts(root: &Path) -> Result<Vec<(String, String)>> {
    Ok(vec![
        (
            "rust-cuda revision (Cargo.toml)".into(),
            rust_cuda_revs(root)?.join(" "),
        ),
        (
            "locked dependencies of gpu-kernels and ptx-builder (Cargo.lock)".into(),
            locked_closure(root, &["gpu-kernels", "ptx-builder"])?.join("\n"),
        ),
        (
            "NVVM architecture and options".into(),
            format!(
                "arch {} and {} (Hopper module); LLVM {}; CUDA {}",
                DEFAULT_ARCH,
                HOPPER_ARCH,
                crate::llvm::LLVM_VERSION,
                crate::cuda::CUDA_WHEELS.join(" ")
            ),
        ),
    ])
}

/// One line of the stamp: a sha256 and what it is of.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    hash: String,
    label: String,
}

fn files_below(root: &Path, rel: &str, out: &mut Vec<String>) -> Result<()> {
    let path = root.join(rel);
    if path.is_dir() {
        for entry in fs::read_dir(&path).with_context(|| format!("reading {}", path.display()))? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            files_below(root, &format!("{rel}/{name}"), out)?;
        }
    } else if path.is_file() {
        out.push(rel.to_string());
    } else {
        bail!(
            "{} (an input of the kernel build) is missing",
            path.display()
        );
    }
    Ok(())
}

/// The stamp's entries for the tree at `root`, inputs first, the PTX files last.
fn entries(root: &Path) -> Result<Vec<Entry>> {
    let mut files = Vec::new();
    for rel in INPUT_PATHS {
        files_below(root, rel, &mut files)?;
    }
    files.sort();
    let mut out = Vec::new();
    for rel in files {
        let bytes = fs::read(root.join(&rel)).with_context(|| format!("reading {rel}"))?;
        out.push(Entry {
            hash: sha256(&bytes),
            label: rel,
        });
    }
    for (label, text) in facts(root)? {
        out.push(Entry {
            hash: sha256(text.as_bytes()),
            label,
        });
    }
    for ptx in ptx_files(root)? {
        let bytes = fs::read(root.join(&ptx)).with_context(|| format!("reading {ptx}"))?;
        out.push(Entry {
            hash: sha256(&bytes),
            label: ptx,
        });
    }
    Ok(out)
}

const HEADER: &str = "\
# GENERATED by `cargo xtask build-ptx`: the sha256 of every input of the kernel build and of the
# PTX it produced. `cargo xtask ci` recomputes them; a difference means the PTX is stale.
";

fn render(entries: &[Entry]) -> String {
    let mut s = HEADER.to_string();
    for e in entries {
        let _ = writeln!(s, "{}  {}", e.hash, e.label);
    }
    s
}

fn parse(text: &str) -> Vec<Entry> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (hash, label) = l.split_once("  ")?;
            Some(Entry {
                hash: hash.into(),
                label: label.into(),
            })
        })
        .collect()
}

/// Writes the stamp for the tree at `root` (build-ptx calls it after writing the PTX).
pub fn write(root: &Path) -> Result<PathBuf> {
    let path = root.join(paths(root)?.1);
    fs::write(&path, render(&entries(root)?))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Fails, with one sentence naming the stale file and the first input that changed, unless the
/// stamp at `root` matches the inputs and the PTX there.
pub fn check(root: &Path) -> Result<()> {
    let fix = "run `cargo xtask build-ptx` (it needs LLVM 7: `cargo xtask llvm7`) and commit the PTX and its stamp";
    let (ptx, stamp) = paths(root)?;
    let Ok(text) = fs::read_to_string(root.join(&stamp)) else {
        bail!("{ptx} has no freshness stamp ({stamp} is missing): {fix}");
    };
    let recorded = parse(&text);
    let now = entries(root)?;
    let changed = now
        .iter()
        .find(|e| !recorded.contains(e))
        .or_else(|| recorded.iter().find(|e| !now.contains(e)));
    let outputs = ptx_files(root)?;
    match changed {
        None => Ok(()),
        Some(e) if outputs.contains(&e.label) => bail!(
            "{} is stale: it differs from the PTX that `cargo xtask build-ptx` recorded in {stamp} \
             (edited by hand?); {fix}",
            e.label
        ),
        Some(e) => bail!(
            "{ptx} is stale: {} changed since `cargo xtask build-ptx` wrote it (see {stamp}); {fix}",
            e.label
        ),
    }
}

/// The `rev`s of the rust-cuda git dependencies in the workspace manifest.
fn rust_cuda_revs(root: &Path) -> Result<Vec<String>> {
    let text = fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?;
    let doc: toml_edit::DocumentMut = text.parse().context("parsing Cargo.toml")?;
    let deps = doc["workspace"]["dependencies"]
        .as_table_like()
        .context("Cargo.toml has no [workspace.dependencies]")?;
    let mut revs: Vec<String> = deps
        .iter()
        .filter_map(|(name, dep)| {
            let git = dep.get("git")?.as_str()?;
            git.contains("rust-cuda").then(|| {
                let rev = dep
                    .get("rev")
                    .and_then(|r| r.as_str())
                    .unwrap_or("(no rev)");
                format!("{name}={rev}")
            })
        })
        .collect();
    revs.sort();
    if revs.is_empty() {
        bail!("Cargo.toml names no rust-cuda git dependency");
    }
    Ok(revs)
}

/// `name version source` of every package in Cargo.lock that `roots` depend on, directly or not.
fn locked_closure(root: &Path, roots: &[&str]) -> Result<Vec<String>> {
    let text = fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let doc: toml_edit::DocumentMut = text.parse().context("parsing Cargo.lock")?;
    let packages = doc["package"]
        .as_array_of_tables()
        .context("Cargo.lock has no [[package]]")?;
    let field =
        |t: &toml_edit::Table, k: &str| t.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    // A dependency is written "name", "name version" or "name version (source)".
    let find = |dep: &str| {
        let mut parts = dep.split(' ');
        let name = parts.next().unwrap_or("");
        let version = parts.next();
        packages.iter().position(|p| {
            field(p, "name") == name && version.is_none_or(|v| field(p, "version") == v)
        })
    };
    let mut seen = vec![false; packages.len()];
    let mut todo: Vec<usize> = Vec::new();
    for r in roots {
        todo.push(find(r).with_context(|| format!("{r} is not in Cargo.lock"))?);
    }
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let p = packages.get(i).expect("index from position");
        if let Some(deps) = p.get("dependencies").and_then(|d| d.as_array()) {
            for d in deps.iter().filter_map(|d| d.as_str()) {
                todo.push(find(d).with_context(|| format!("Cargo.lock: {d} is not a package"))?);
            }
        }
    }
    let mut out: Vec<String> = packages
        .iter()
        .zip(&seen)
        .filter(|(_, s)| **s)
        .map(|(p, _)| {
            format!(
                "{} {} {}",
                field(p, "name"),
                field(p, "version"),
                field(p, "source")
            )
        })
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests;
