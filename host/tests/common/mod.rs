//! Helpers shared by the tests that run the `host` binary on APSP files.
#![allow(dead_code)]
use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host_apsp_out_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `host` binary: `HOST_BIN` where the tests run away from the build (the GPU machine's
/// bundle), else the one cargo built.
pub fn host_bin() -> PathBuf {
    let bin = std::env::var_os("HOST_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_host")), PathBuf::from);
    // Absolute: the commands run in other directories.
    std::fs::canonicalize(&bin).unwrap_or_else(|e| panic!("{}: {e}", bin.display()))
}

/// `host` with `args` in `dir`; with `fsize_limit`, under RLIMIT_FSIZE of that many bytes and
/// SIGXFSZ ignored, so that writing past it fails with EFBIG: a full disk that root (CI) cannot
/// bypass, unlike directory permissions.
pub fn host_command(dir: &Path, args: &[&str], fsize_limit: Option<u64>) -> Command {
    let mut cmd = Command::new(host_bin());
    cmd.args(args).current_dir(dir);
    if let Some(limit) = fsize_limit {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let lim = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

pub fn host(dir: &Path, args: &[&str], fsize_limit: Option<u64>) -> Output {
    host_command(dir, args, fsize_limit).output().unwrap()
}

/// Outputs and temporary files in `dir`.
pub fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n.ends_with(".out"))
        .collect()
}

/// The run failed with one sentence on stderr and left neither output nor temporary file.
pub fn assert_failed_cleanly(out: &Output, dir: &Path, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: succeeded; stderr: {stderr}");
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "{what}: one sentence expected: {stderr}"
    );
    let left = leftovers(dir);
    assert!(left.is_empty(), "{what}: left behind {left:?}");
}
