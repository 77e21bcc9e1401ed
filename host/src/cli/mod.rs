//! One module per subcommand, and the conventions they share (docs/json.md, README "Commands"):
//! - files written: [`output::OutputFile`] (`-o/--output`, never an input, a note when replaced);
//! - `--json`: [`json::print`] (one envelope: schema, device, commit, date, results);
//! - progress and notes on stderr: [`progress`] (silent with `--quiet` or off a terminal);
//! - counts that must be at least 1 (`--reps`): [`at_least_one`].
pub mod apsp;
pub mod apsp_peak;
pub mod bench;
pub mod info;
pub mod json;
pub mod matmul;
pub mod occupancy;
pub mod output;
pub mod progress;
pub mod report;

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Clone)]
pub struct PtxArg {
    /// PTX file to load instead of the PTX built into the binary (also: GPU_KERNELS_PTX).
    #[arg(long, value_name = "FILE")]
    pub ptx: Option<PathBuf>,
}

/// The value parser of every count that must be at least 1 (`--reps`, `--iterations`): clap
/// refuses 0 with exit status 2 and "must be at least 1", the same way for every subcommand.
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
    T::Err: std::fmt::Display,
{
    let v: T = s.parse().map_err(|e: T::Err| e.to_string())?;
    if v < T::from(1) {
        return Err("must be at least 1".into());
    }
    Ok(v)
}
