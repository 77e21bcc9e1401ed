//! The `host` binary needs no NVIDIA driver to start: it does not link libcuda (the lazy loader
//! of host/build/lazy_cuda.rs resolves the driver at first use), CPU subcommands work without
//! one, and GPU subcommands say in one sentence that there is no driver, with exit code 3.
use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::OnceLock,
};

mod common;

use common::{graph_bytes, reference_output};
use rgk_core::testdata::skip;

/// The binary copied once into a fresh directory, as a user would run it: no cargo, no runner.
/// Once, and before any test spawns a process: a child forked while another thread still holds
/// the copy open for writing keeps that descriptor until it execs, and exec of the copy then
/// fails with "Text file busy". Every test calls this first.
fn copied_exe() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("host_cli_bin_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("host");
        std::fs::copy(env!("CARGO_BIN_EXE_host"), &exe).unwrap();
        exe
    })
}

/// A fresh working directory for one test, and the copied binary.
fn copied_binary(tag: &str) -> (PathBuf, &'static Path) {
    let exe = copied_exe();
    let dir = std::env::temp_dir().join(format!("host_cli_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    (dir, exe)
}

/// Runs the copied binary; retries a few times on "Text file busy" in case a process forked
/// by another test harness thread still holds a descriptor of it.
fn run_in(dir: &Path, exe: &Path, args: &[&str]) -> Output {
    for _ in 0..20 {
        match Command::new(exe).args(args).current_dir(dir).output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other.unwrap(),
        }
    }
    panic!("{} stayed busy", exe.display());
}

fn driver_installed() -> bool {
    let cache = Command::new("ldconfig").arg("-p").output();
    cache.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so.1 "))
}

#[test]
fn binary_has_no_libcuda_dependency() {
    copied_exe();
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

/// `host ARGS` where no driver is installed: exit 3, one sentence on stderr, nothing on stdout
/// (also with `--json`: no half-made envelope).
fn no_driver_case(test: &str, args: &[&str]) {
    let (dir, exe) = copied_binary(test);
    if driver_installed() {
        return skip(test, "an NVIDIA driver is installed here");
    }
    let out = run_in(&dir, exe, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{args:?} stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence expected: {stderr}");
    assert!(stderr.contains("no NVIDIA driver"), "{stderr}");
    assert!(out.stdout.is_empty(), "no partial output expected");
    // Nothing written in the working directory either (an output, a cache, a temporary file).
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(written.is_empty(), "{args:?} wrote {written:?}");
    let _ = std::fs::remove_dir_all(dir);
}

macro_rules! no_driver_cases {
    ($($name:ident: [$($arg:literal),*];)*) => {
        $(#[test] fn $name() { no_driver_case(stringify!($name), &[$($arg),*]); })*
    };
}

// Every subcommand that needs a GPU.
no_driver_cases! {
    gpu_subcommand_without_driver_says_so_with_exit_3: ["matmul", "64"];
    no_driver_matmul_json: ["matmul", "64", "--json"];
    no_driver_info: ["info"];
    no_driver_apsp_peak: ["apsp-peak", "--json"];
    no_driver_occupancy: ["occupancy", "--json"];
    no_driver_bench: ["bench", "threads"];
    no_driver_tune: ["tune", "--cache", "cache/sgemm-tune.json"];
}

/// `host apsp` reads the graph before it needs the driver: a good file on a machine without
/// one is exit 3 (one GPU or several) and leaves only the input (a bad one is exit 1 on any
/// machine: cli_apsp_files.rs).
#[test]
fn no_driver_apsp_with_a_good_graph() {
    let test = "no_driver_apsp_with_a_good_graph";
    let (dir, exe) = copied_binary(test);
    if driver_installed() {
        return skip(test, "an NVIDIA driver is installed here");
    }
    std::fs::write(dir.join("g.in"), graph_bytes(3, 1, &[(0, 1, 5)])).unwrap();
    for args in [
        &["apsp", "g.in", "--json"][..],
        &["apsp", "g.in", "--gpus", "2"],
    ] {
        let out = run_in(&dir, exe, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?} stderr: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one sentence expected: {stderr}");
        assert!(stderr.contains("no NVIDIA driver"), "{stderr}");
        assert!(out.stdout.is_empty(), "no partial output expected");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["g.in"], "{args:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cpu_apsp_runs_from_a_copied_binary() {
    let (dir, exe) = copied_binary("cpu");
    let run = |args: &[&str]| {
        let out = run_in(&dir, exe, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["apsp-gen", "300", "3000", "--seed", "7", "-o", "g.in"]);
    run(&["apsp", "g.in", "--cpu"]);
    // Against one Dijkstra per source, not the Floyd–Warshall the CLI ran.
    assert!(std::fs::read(dir.join("g.out")).unwrap() == reference_output(&dir.join("g.in")));
    let _ = std::fs::remove_dir_all(dir);
}
