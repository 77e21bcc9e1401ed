//! Running the built `host` binary as a user would: in a fresh directory (`Scratch`), or under
//! a file-size limit that simulates a full disk (`host_command`).
#![allow(dead_code)] // each test file uses part of it

pub mod gemm;
pub mod graphs;

use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use tempfile::TempDir;

/// What one run of `host` left: exit status and both streams.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts exit status `code`, with both streams in the message when it is not.
    pub fn expect(self, code: i32) -> Run {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts that stderr is one line (one sentence), and returns it.
    pub fn one_line_error(&self) -> &str {
        let lines: Vec<_> = self.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "one line expected on stderr:\n{}",
            self.stderr
        );
        assert!(lines[0].starts_with("error: "), "{}", self.stderr);
        lines[0]
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}):\n{}", self.stdout))
    }
}

/// A scratch directory (removed on drop) to run `host` in.
pub struct Scratch {
    pub dir: TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `host ARGS` in the scratch directory.
    pub fn host(&self, args: &[&str]) -> Run {
        self.run(&mut self.command(args))
    }

    /// [`Scratch::host`] with the variables `env` set (a launcher's, for `--distributed`).
    pub fn host_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        self.run(&mut cmd)
    }

    /// [`Scratch::host`] under RLIMIT_AS of `bytes`: an allocation past it fails, as on a
    /// machine with that little memory, whatever the machine running the test has.
    pub fn host_with_address_space(&self, args: &[&str], bytes: u64) -> Run {
        let mut cmd = self.command(args);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self.run(&mut cmd)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(host_bin());
        cmd.args(args)
            .current_dir(self.dir.path())
            // No GPU results, no matter what machine runs the tests, and no progress bars.
            .env_remove("GPU_KERNELS_PTX")
            // Not a rank of a distributed job, whatever launched the tests.
            .env_remove("WORLD_SIZE");
        cmd
    }

    fn run(&self, cmd: &mut Command) -> Run {
        let out = cmd.output().expect("run host");
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Names in the directory, sorted (to see that no output or temporary file was left).
    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

/// A graph file's bytes: `V, E` from the header words, then the triples.
pub fn graph_bytes(v: i32, e: i32, edges: &[(i32, i32, i32)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&v.to_le_bytes());
    b.extend_from_slice(&e.to_le_bytes());
    for &(s, d, w) in edges {
        for x in [s, d, w] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b
}

/// The distance matrix of `graph` in the output format, computed and written the simplest way:
/// one Dijkstra per source (independent of the Floyd–Warshall the CLI runs), row after row.
pub fn reference_output(graph: &Path) -> Vec<u8> {
    use rgk_core::apsp::cpu::{Adjacency, dijkstra};
    let g = rgk_core::apsp::format::read_graph(graph).unwrap();
    let adjacency = Adjacency::new(&g);
    let mut bytes = Vec::with_capacity(g.vertices * g.vertices * 4);
    for s in 0..g.vertices {
        for d in dijkstra(&g, &adjacency, s) {
            bytes.extend_from_slice(&d.to_le_bytes());
        }
    }
    bytes
}

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
