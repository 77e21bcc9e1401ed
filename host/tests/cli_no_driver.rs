//! The `host` binary needs no NVIDIA driver to start: it does not link libcuda (the lazy loader
//! of host/build/lazy_cuda.rs resolves the driver at first use), CPU subcommands work without
//! one, and GPU subcommands say in one sentence that there is no driver, with exit code 3.
use std::{
    path::PathBuf,
    process::{Command, Output},
};

use rgk_core::{
    apsp::{format::read_graph, solve_cpu},
    testdata::skip,
};

/// The binary copied into a fresh directory, as a user would run it: no cargo, no runner.
fn copied_binary(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("host_cli_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("host");
    std::fs::copy(env!("CARGO_BIN_EXE_host"), &exe).unwrap();
    (dir, exe)
}

/// Runs `cmd`, retrying while the kernel says the executable is busy: a test that has just
/// copied the binary can find the copy still open for writing in a child that another test's
/// thread forked at that moment (until that child's exec closes it).
fn run(cmd: &mut Command) -> Output {
    for _ in 0..100 {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r.unwrap(),
        }
    }
    panic!("the executable stayed busy for 2 s");
}

fn driver_installed() -> bool {
    let cache = Command::new("ldconfig").arg("-p").output();
    cache.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so.1 "))
}

#[test]
fn binary_has_no_libcuda_dependency() {
    let Ok(out) = Command::new("readelf")
        .args(["-d", env!("CARGO_BIN_EXE_host")])
        .output()
    else {
        return skip(
            "binary_has_no_libcuda_dependency",
            "readelf is not installed",
        );
    };
    let dynamic = String::from_utf8_lossy(&out.stdout);
    assert!(
        dynamic.contains("(NEEDED)"),
        "no dynamic section?\n{dynamic}"
    );
    assert!(
        !dynamic
            .lines()
            .any(|l| l.contains("NEEDED") && l.contains("libcuda")),
        "the host binary links libcuda:\n{dynamic}"
    );
}

#[test]
fn gpu_subcommand_without_driver_says_so_with_exit_3() {
    if driver_installed() {
        return skip(
            "gpu_subcommand_without_driver_says_so_with_exit_3",
            "an NVIDIA driver is installed here",
        );
    }
    let (dir, exe) = copied_binary("nodriver");
    let out = run(Command::new(&exe).args(["matmul", "64"]).current_dir(&dir));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence expected: {stderr}");
    assert!(stderr.contains("no NVIDIA driver"), "{stderr}");
    assert!(out.stdout.is_empty(), "no partial output expected");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn tune_without_driver_says_so_with_exit_3_and_writes_nothing() {
    if driver_installed() {
        return skip(
            "tune_without_driver_says_so_with_exit_3_and_writes_nothing",
            "an NVIDIA driver is installed here",
        );
    }
    // The built binary itself: a third copy-and-run beside the two tests above makes their
    // copies' "text file busy" race (a fork while a copy is still open for writing) likelier.
    let dir = std::env::temp_dir().join(format!("host_cli_tune_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache/sgemm-tune.json");
    let out = run(Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["tune", "--cache"])
        .arg(&cache)
        .current_dir(&dir));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence expected: {stderr}");
    assert!(stderr.contains("no NVIDIA driver"), "{stderr}");
    assert!(out.stdout.is_empty(), "no partial output expected");
    assert!(!cache.exists(), "nothing measured, nothing written");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cpu_apsp_runs_from_a_copied_binary() {
    let (dir, exe) = copied_binary("cpu");
    let run = |args: &[&str]| {
        let out = run(Command::new(&exe).args(args).current_dir(&dir));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["apsp-gen", "300", "3000", "--seed", "7", "-o", "g.in"]);
    run(&["apsp", "g.in", "--cpu"]);
    let graph = read_graph(&dir.join("g.in")).unwrap();
    let expect: Vec<u8> = solve_cpu(&graph)
        .as_slice()
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect();
    assert!(std::fs::read(dir.join("g.out")).unwrap() == expect);
    let _ = std::fs::remove_dir_all(dir);
}
