//! One module per subcommand, and the conventions they share (docs/json.md, README "Conventions
//! of every subcommand"):
//! - files written: [`output::OutputFile`] (`-o/--output`, never an input, a note when replaced);
//! - `--json`: [`json::print`] (one envelope: schema, command, device, commit, date, results);
//! - progress and notes on stderr: [`progress`] (silent with `--quiet` or off a terminal);
//! - counts that must be at least 1 (`--reps`): [`at_least_one`].
//!
//! A new subcommand `NAME`:
//! 1. `cli/NAME.rs` with `#[derive(Args)] pub struct NameArgs`: a `///` line on every field (the
//!    test `every_argument_has_help` fails otherwise); counts take
//!    `value_parser = super::at_least_one::<usize>`; `--json` says "Print one JSON object
//!    (docs/json.md) instead of …"; `#[command(flatten)] ptx: PtxArg` if it loads kernels;
//!    `#[arg(short, long, value_name = "FILE")] output` (a `///` line saying what is written) if it
//!    writes a file.
//! 2. `pub fn run(args: &NameArgs) -> anyhow::Result<()>`. Before any work,
//!    `let out = OutputFile::new(path, &[inputs])?` (refuses an input); write the file whole with
//!    `rgk_core::apsp::format::write_atomically`; then `out.wrote("what")` (stderr).
//! 3. Results on stdout only. JSON through `json::print("NAME", device, &results)`, with
//!    `gpu.info()?.device(gpus_used)` or `json::cpu_device()`; never a JSON object of its own.
//! 4. Work longer than a few seconds under `progress::bar(len)` or `progress::spinner(msg)`;
//!    other messages for the user through `progress::note`.
//! 5. Errors: `rgk_core::bad_input` for bad input (exit 1); `Gpu::new` gives `NoGpu` (exit 3).
//! 6. main.rs: the variant (its doc line is the `--help` summary) and its `match` arm;
//!    host/tests/cli_e2e.rs: the name in `SUBCOMMANDS` and a `help_cases!` line; docs/json.md:
//!    an example of its `--json`.
pub mod apsp;
pub mod apsp_args;
pub mod apsp_batch;
pub mod apsp_dist;
pub mod apsp_float;
pub mod apsp_ooc;
pub mod apsp_paths;
pub mod apsp_peak;
pub mod apsp_report;
pub mod apsp_small;
pub mod bench;
pub mod bench_shapes;
pub mod info;
pub mod json;
pub mod matmul;
pub mod matmul_args;
pub mod matmul_blas;
pub mod matmul_cpu;
pub mod matmul_tc;
pub mod occupancy;
pub mod output;
pub mod progress;
pub mod report;
pub mod sm90;
pub mod sm90_time;
pub mod tune;

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
