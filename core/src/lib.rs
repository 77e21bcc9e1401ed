//! The CUDA-free core of rust-gpu-kernels: everything that runs without a GPU, a driver or the
//! CUDA toolkit. The GPU runners (`host`) and the CLI build on it.
//!
//! - [`apsp`]: the course file format, a seeded graph generator, CPU references (multithreaded
//!   Floyd–Warshall, Dijkstra) and the check of a GPU answer against them.
//! - [`matmul`]: the CPU SGEMM ladder, padding to tile multiples, and the f64 reference every
//!   SGEMM result is checked against.
//! - [`occupancy`]: the theoretical-occupancy calculator.
//! - [`bench`](mod@bench): benchmark records (the report made from them is the `rgk-report`
//!   crate).
//! - [`envelope`]: the one shape of every `--json` output (schema, device, commit, date, results).
//! - [`memory`]: host memory for sizes that come from a file, checked before and allocated
//!   fallibly.
pub mod apsp;
pub mod bench;
pub mod envelope;
pub mod matmul;
pub mod memory;
pub mod minplus;
pub mod occupancy;
pub mod ranks;
pub mod testdata;

/// Marks an error caused by invalid input (a malformed file, an out-of-range argument), as
/// opposed to a failure of the machine. The message names the problem in one sentence; the GPU
/// library sorts errors into kinds by looking for this type in the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// `Err(BadInput(message))` as an `anyhow::Error`.
pub fn bad_input<T>(message: impl Into<String>) -> anyhow::Result<T> {
    Err(BadInput(message.into()).into())
}
