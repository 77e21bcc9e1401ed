//! Running the built `host` binary in a fresh directory, as a user would.
#![allow(dead_code)] // each test file uses part of it

use std::{
    path::{Path, PathBuf},
    process::Command,
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
        let out = Command::new(env!("CARGO_BIN_EXE_host"))
            .args(args)
            .current_dir(self.dir.path())
            // No GPU results, no matter what machine runs the tests, and no progress bars.
            .env_remove("GPU_KERNELS_PTX")
            .output()
            .expect("run host");
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
