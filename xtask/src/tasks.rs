//! build-ptx, ci and gpu-bundle.
use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

use crate::{
    env::{self as xenv, State},
    ptxas,
};

/// The documented location of the PTX the host loads by default.
pub const PTX_PATH: &str = "target/ptx/gpu_kernels.ptx";

pub fn build_ptx_cmd(args: &[String]) -> Result<()> {
    let mut arch = "compute_90".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--arch" => {
                arch = it
                    .next()
                    .context("--arch needs a value, e.g. compute_90")?
                    .clone()
            }
            other => bail!("build-ptx: unknown argument {other:?} (expected --arch compute_XX)"),
        }
    }
    build_ptx(&arch).map(|_| ())
}

/// Checks that setup found everything the codegen needs, with setup's diagnosis if not.
fn codegen_ready() -> Result<State> {
    let state = State::load();
    state.require_cuda()?;
    match &state.llvm_config {
        Some(p) if p.exists() => Ok(state),
        _ => bail!(
            "LLVM 7.x is missing, so rust-cuda's codegen cannot be built. `cargo xtask setup` says what \
             to do; with LLVM 7 built, run `LLVM_CONFIG=/path/to/llvm-config cargo xtask setup`."
        ),
    }
}

pub fn build_ptx(arch: &str) -> Result<Vec<ptxas::KernelReport>> {
    let Some(sm) = arch.strip_prefix("compute_") else {
        bail!("--arch must look like compute_90, got {arch:?}");
    };
    let state = codegen_ready()?;
    let root = xenv::repo_root();
    let ptx = root.join(PTX_PATH);
    // ptx-builder is built in the dev profile: the PTX itself is always compiled with
    // optimizations by cuda_builder, and this shares one codegen build with clippy and tests.
    let mut cargo = xenv::cargo(&state)?;
    cargo
        .args(["run", "--locked", "-p", "ptx-builder", "--"])
        .arg(&ptx)
        .env("GPU_KERNELS_ARCH", arch);
    xenv::run(&mut cargo)?;

    let cubin = ptx.with_file_name(format!("gpu_kernels.sm_{sm}.cubin"));
    let ptxas_bin = state.require_cuda()?.join("bin/ptxas");
    let (reports, report_text) = ptxas_report(&ptxas_bin, sm, &ptx, &cubin, &[])?;
    fs::write(
        ptx.with_file_name(format!("ptxas.sm_{sm}.txt")),
        &report_text,
    )?;
    print_table(&reports, sm);
    let mut problems = resource_problems(&reports, "");

    // The host JIT-compiles the Floyd–Warshall kernels under a register cap: check them under it too.
    let cap = fw_register_cap(&root)?;
    let capped_cubin = ptx.with_file_name(format!("gpu_kernels.sm_{sm}.maxrreg{cap}.cubin"));
    let cap_arg = format!("-maxrregcount={cap}");
    let (capped, _) = ptxas_report(&ptxas_bin, sm, &ptx, &capped_cubin, &[&cap_arg])?;
    let capped: Vec<_> = capped
        .into_iter()
        .filter(|k| k.name.starts_with("fw_"))
        .collect();
    println!("Floyd–Warshall kernels as the host loads them ({cap_arg}):");
    print_table(&capped, sm);
    problems.extend(resource_problems(&capped, &format!(" under {cap_arg}")));
    let ptx_text = fs::read_to_string(&ptx)?;
    for (func, line) in ptxas::generic_accesses(&ptx_text) {
        problems.push(format!(
            "{func}: generic memory access `{line}` (expected ld/st with a state space)"
        ));
    }
    if reports.is_empty() {
        problems.push("ptxas reported no kernels".into());
    }
    if !problems.is_empty() {
        bail!("PTX check failed:\n  {}", problems.join("\n  "));
    }
    println!("PTX: {}  cubin: {}", ptx.display(), cubin.display());
    Ok(reports)
}

/// Runs `ptxas -arch=sm_<sm> -v [extra] ptx -o cubin`; returns the per-kernel reports sorted by
/// name, and the raw report.
fn ptxas_report(
    ptxas_bin: &Path,
    sm: &str,
    ptx: &Path,
    cubin: &Path,
    extra: &[&str],
) -> Result<(Vec<ptxas::KernelReport>, String)> {
    let out = Command::new(ptxas_bin)
        .arg(format!("-arch=sm_{sm}"))
        .arg("-v")
        .args(extra)
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .with_context(|| format!("running {}", ptxas_bin.display()))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        eprintln!("{text}");
        bail!("ptxas {} rejected {}", extra.join(" "), ptx.display());
    }
    let mut reports = ptxas::parse_report(&text);
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((reports, text))
}

/// Spills and stack frames, each a failure (`context` says under which ptxas options).
fn resource_problems(reports: &[ptxas::KernelReport], context: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for k in reports {
        if k.spill_stores > 0 || k.spill_loads > 0 {
            problems.push(format!(
                "{} spills ({} B stored, {} B loaded){context}",
                k.name, k.spill_stores, k.spill_loads
            ));
        }
        if k.stack_bytes > 0 {
            problems.push(format!(
                "{} uses a {} B stack frame (a register array went to local memory?){context}",
                k.name, k.stack_bytes
            ));
        }
    }
    problems
}

/// `FW_MAX_REGISTERS` from gpu-kernels' source: xtask cannot depend on the kernels crate (it
/// must build without the rust-cuda source), and the constant must stay defined once.
fn fw_register_cap(root: &Path) -> Result<u32> {
    let src = fs::read_to_string(root.join("gpu-kernels/src/apsp/mod.rs"))?;
    src.lines()
        .find_map(|l| l.trim().strip_prefix("pub const FW_MAX_REGISTERS: u32 = "))
        .and_then(|v| v.trim_end_matches(';').trim().parse().ok())
        .context("FW_MAX_REGISTERS not found in gpu-kernels/src/apsp/mod.rs")
}

fn print_table(reports: &[ptxas::KernelReport], sm: &str) {
    let w = reports
        .iter()
        .map(|k| k.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!("\nptxas -arch=sm_{sm} -v");
    println!(
        "{:<w$}  {:>4}  {:>9}  {:>6}  {:>11}",
        "kernel", "regs", "smem (B)", "stack", "spill (B)"
    );
    for k in reports {
        println!(
            "{:<w$}  {:>4}  {:>9}  {:>6}  {:>5}/{:<5}",
            k.name, k.registers, k.smem_bytes, k.stack_bytes, k.spill_stores, k.spill_loads
        );
    }
    println!();
}

/// The README's test command.
pub fn ci() -> Result<()> {
    let state = codegen_ready()?;
    let root = xenv::repo_root();
    let xtask_manifest = root.join("xtask/Cargo.toml");
    let banner = |s: &str| println!("\n==> {s}");

    banner("cargo fmt --check");
    xenv::run(xenv::cargo(&state)?.args(["fmt", "--all", "--check"]))?;
    xenv::run(
        xenv::cargo(&state)?
            .args(["fmt", "--check", "--manifest-path"])
            .arg(&xtask_manifest),
    )?;

    banner("cargo clippy -D warnings");
    xenv::run(xenv::cargo(&state)?.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    xenv::run(
        xenv::cargo(&state)?
            .args(["clippy", "--all-targets", "--manifest-path"])
            .arg(&xtask_manifest)
            .args(["--", "-D", "warnings"]),
    )?;

    banner("cargo xtask build-ptx");
    build_ptx("compute_90")?;

    banner("cargo test");
    xenv::run(xenv::cargo(&state)?.args(["test", "--workspace", "--locked"]))?;
    xenv::run(
        xenv::cargo(&state)?
            .args(["test", "--manifest-path"])
            .arg(&xtask_manifest),
    )?;
    Ok(())
}

/// Builds everything the GPU machine runs (it has no Rust) into `.device/bundle`:
/// the host binary, the host's test binaries, the PTX and its cubin.
pub fn gpu_bundle() -> Result<()> {
    let state = State::load();
    build_ptx("compute_90")?;
    let root = xenv::repo_root();
    let bundle = root.join(".device/bundle");
    let _ = fs::remove_dir_all(&bundle);
    fs::create_dir_all(bundle.join("tests"))?;
    xenv::run(xenv::cargo(&state)?.args(["build", "--release", "--locked", "-p", "host"]))?;
    copy(&root.join("target/release/host"), &bundle.join("host"))?;

    let out = xenv::cargo(&state)?
        .args([
            "test",
            "--release",
            "--locked",
            "-p",
            "host",
            "--no-run",
            "--message-format=json",
        ])
        .output()?;
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        bail!("building the host's test binaries failed");
    }
    let mut tests = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if !line.contains("\"reason\":\"compiler-artifact\"") || !line.contains("\"test\":true") {
            continue;
        }
        if let Some(exe) = json_string_field(line, "executable") {
            let exe = PathBuf::from(exe);
            let name = exe.file_name().unwrap().to_string_lossy();
            // test binaries are named NAME-HASH; the runner wants the plain name.
            let plain = name.rsplit_once('-').map(|(n, _)| n).unwrap_or(&name);
            // Only the GPU tests: the CPU ones run in CI, where the shared test data is.
            if plain.starts_with("gpu_") {
                copy(&exe, &bundle.join("tests").join(plain))?;
                tests += 1;
            }
        }
    }
    let ptx_dir = root.join("target/ptx");
    for entry in fs::read_dir(&ptx_dir)? {
        let p = entry?.path();
        copy(&p, &bundle.join(p.file_name().unwrap()))?;
    }
    // Provenance for benchmark records: the GPU machine has the tree but not its git history.
    let describe = Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(&root)
        .output()?;
    fs::write(
        bundle.join("COMMIT"),
        String::from_utf8_lossy(&describe.stdout).trim(),
    )?;
    // The shared test cases live beside the checkout, which does not travel to the GPU machine.
    let testdata = root.join("../shared/testdata/apsp");
    if testdata.is_dir() {
        let dst = bundle.join("testdata/apsp");
        fs::create_dir_all(&dst)?;
        for entry in fs::read_dir(&testdata)? {
            let p = entry?.path();
            copy(&p, &dst.join(p.file_name().unwrap()))?;
        }
    }
    println!(
        "bundle: {} (host, {tests} GPU test binaries, PTX); run it there with scripts/gpu-run.sh",
        bundle.display()
    );
    Ok(())
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

fn json_string_field(line: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\":\"");
    let start = line.find(&pat)? + pat.len();
    let end = start + line[start..].find('"')?;
    Some(line[start..end].replace("\\\\", "\\"))
}
