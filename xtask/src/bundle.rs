//! gpu-bundle: what the GPU machine runs (it has no Rust), built here and packed to travel.
use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Result, bail};

use crate::env::{self as xenv, State};
use crate::tasks::{PTX_DIR, check_ptx, committed_ptx_paths, copy, json_string_field};

/// Where the bundle's builds go: apart from `target/`, since they differ from the CI build
/// (SASS for the device's GPU alone), so that neither rebuilds the other's host.
const DEVICE_TARGET: &str = "target/device";

/// The device tool's GPU: the only architecture whose SASS the bundle carries (see
/// `RGK_SASS_ONLY` in host/build/sass.rs); other GPUs JIT-compile the embedded PTX.
const DEVICE_SASS: &str = "90";

/// Builds everything the GPU machine runs (it has no Rust) into `.device/bundle`:
/// the host binary, the host's test binaries, the PTX and its cubin; then packs the host and
/// the test binaries that `--tests a,b` names (every one without it), stripped, into one
/// solid `.device/pack/bundle.tar.xz`, which fits the device tool's 64 MiB transfer beside
/// the tree where the bundle does not. Carry `.device/pack`; scripts/gpu-run.sh unpacks it.
pub fn gpu_bundle(args: &[String]) -> Result<()> {
    let packed: Option<Vec<String>> = match args {
        [] => None,
        [flag, list] if flag == "--tests" => Some(list.split(',').map(str::to_owned).collect()),
        _ => bail!("gpu-bundle takes no arguments or `--tests gpu_a,gpu_b`"),
    };
    let state = State::load();
    // The host embeds the committed PTX; the cubin and ptxas report beside it are for SASS.
    for ptx in committed_ptx_paths()? {
        check_ptx(&state, &ptx)?;
    }
    let root = xenv::repo_root();
    let bundle = root.join(".device/bundle");
    let _ = fs::remove_dir_all(&bundle);
    fs::create_dir_all(bundle.join("tests"))?;
    let cargo = || -> Result<Command> {
        let mut c = xenv::cargo(&state)?;
        c.env("CARGO_TARGET_DIR", root.join(DEVICE_TARGET))
            .env("RGK_SASS_ONLY", DEVICE_SASS);
        Ok(c)
    };
    xenv::run(cargo()?.args(["build", "--release", "--locked", "-p", "host"]))?;
    copy(
        &root.join(DEVICE_TARGET).join("release/host"),
        &bundle.join("host"),
    )?;

    let out = cargo()?
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
    // Not the PTX itself: the binary must run on what it embeds. Other architectures' PTX
    // (build-ptx --arch) travels for comparisons with --ptx.
    for entry in fs::read_dir(root.join(PTX_DIR))? {
        let p = entry?.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name != "gpu_kernels.ptx" {
            copy(&p, &bundle.join(&name))?;
        }
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
    pack(&root, packed.as_deref())
}

/// `.device/pack/bundle.tar.xz`: the bundle without its test binaries but those in `tests`
/// (all when `None`), the binaries stripped. One xz stream with a dictionary larger than a
/// binary, so that the copies of the embedded PTX and SASS after the first cost almost nothing.
fn pack(root: &Path, tests: Option<&[String]>) -> Result<()> {
    let bundle = root.join(".device/bundle");
    let dir = root.join(".device/pack");
    let _ = fs::remove_dir_all(&dir);
    let stage = dir.join("bundle");
    fs::create_dir_all(stage.join("tests"))?;
    let mut bins = vec![stage.join("host")];
    for entry in fs::read_dir(&bundle)? {
        let p = entry?.path();
        let name = p.file_name().unwrap().to_owned();
        if p.is_file() {
            copy(&p, &stage.join(&name))?;
        } else if name == "testdata" {
            xenv::run(Command::new("cp").arg("-r").arg(&p).arg(&stage))?;
        }
    }
    for entry in fs::read_dir(bundle.join("tests"))? {
        let p = entry?.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if tests.is_none_or(|t| t.contains(&name)) {
            copy(&p, &stage.join("tests").join(&name))?;
            bins.push(stage.join("tests").join(&name));
        }
    }
    if let Some(t) = tests {
        let missing: Vec<&String> = t
            .iter()
            .filter(|n| !stage.join("tests").join(n).is_file())
            .collect();
        if !missing.is_empty() {
            bail!("no test binaries {missing:?} in the bundle");
        }
    }
    xenv::run(Command::new("strip").args(&bins))?;
    let archive = dir.join("bundle.tar.xz");
    xenv::run(
        Command::new("tar")
            .arg("-C")
            .arg(&dir)
            .args(["-c", "-I", "xz -T1 --lzma2=preset=6,dict=192MiB", "-f"])
            .arg(&archive)
            .arg("bundle"),
    )?;
    fs::remove_dir_all(&stage)?;
    let mib = fs::metadata(&archive)?.len() as f64 / (1 << 20) as f64;
    println!(
        "pack: {} ({mib:.1} MiB, {} test binaries); carry .device/pack",
        archive.display(),
        bins.len() - 1
    );
    Ok(())
}
