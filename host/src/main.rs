//! `host`: runs the project's Rust GPU kernels and checks them on the CPU.
mod cli;

use std::{path::PathBuf, process::ExitCode};

use clap::{
    Args, Parser, Subcommand, ValueEnum,
    builder::{PossibleValuesParser, TypedValueParser},
};
use host::gpu::NoGpu;
use rgk_core::matmul::cpu;

#[derive(Parser)]
#[command(
    version,
    about = "Rust GPU kernels (SGEMM, all-pairs shortest paths): run, time and check them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each GPU's properties and the kernels found in the PTX.
    Info(PtxArg),
    /// Multiply random matrices on the GPU with the Rust kernels (and cuBLAS), check against an f64 reference.
    Matmul(MatmulArgs),
    /// The CPU matmul optimisation ladder (naive → loop order → blocking → SIMD → threads).
    MatmulCpu(MatmulCpuArgs),
    /// All-pairs shortest paths for a graph file (course format); writes the distance matrix.
    Apsp(ApspArgs),
    /// Write a random graph file in the course format.
    ApspGen(ApspGenArgs),
    /// The int32 add-min throughput ceiling (fused VIADDMNMX) that `apsp` compares against.
    ApspPeak(cli::apsp_peak::ApspPeakArgs),
    /// Theoretical occupancy of every kernel, cross-checked against the driver.
    Occupancy(OccupancyArgs),
    /// Benchmark sweeps on the GPU, one JSON record per configuration.
    Bench(cli::bench::BenchArgs),
    /// Turn benchmark records into PNG charts and markdown tables.
    Report(cli::report::ReportArgs),
}

#[derive(Args, Clone)]
pub struct PtxArg {
    /// PTX file to load instead of the PTX built into the binary (also: GPU_KERNELS_PTX).
    #[arg(long, value_name = "FILE")]
    pub ptx: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Verify {
    /// Full check up to 4096 in every dimension, a sample of rows above.
    Auto,
    Full,
    Sample,
    None,
}

#[derive(Args)]
pub struct MatmulArgs {
    /// Square size: M = N = K (overridden per dimension by --m/--n/--k).
    pub size: Option<usize>,
    #[arg(long)]
    pub m: Option<usize>,
    #[arg(long)]
    pub n: Option<usize>,
    #[arg(long)]
    pub k: Option<usize>,
    /// `sgemm` (the flagship kernel the library picks for the shape), kernel names separated by
    /// commas, a family (`tiled`, `vectorized`, `flagship`, `naive`, `coalesced`, `blocktile1d`,
    /// `blocktile2d`, `bank`, `autotuned`, `warptile`, `dbuf`), `all`, or `ladder`: one kernel per
    /// rung of the SGEMM study (siboehm/SGEMM_CUDA) and the flagship, printed as the study's table.
    #[arg(long, default_value = "sgemm")]
    pub kernel: String,
    /// Timed launches per kernel (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 10)]
    pub reps: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[arg(long, value_enum, default_value_t = Verify::Auto)]
    pub verify: Verify,
    /// Skip cuBLAS.
    #[arg(long)]
    pub no_cublas: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

#[derive(Args)]
pub struct MatmulCpuArgs {
    /// Also run 2048.
    #[arg(long)]
    pub large: bool,
    /// Sizes to run instead of 256 512 1024.
    #[arg(long, value_delimiter = ',')]
    pub sizes: Option<Vec<usize>>,
    /// Run only these variants, comma-separated, in this order (default: the whole ladder).
    #[arg(long, value_delimiter = ',', value_name = "NAME", value_parser = cpu_variant_parser())]
    pub variant: Option<Vec<cpu::Variant>>,
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Run each variant exactly once: no warm-up, repeats or f64 check, so that a profiler
    /// around the process (valgrind) sees only the inputs and the variant.
    #[arg(long)]
    pub once: bool,
    /// With --once: make the inputs and run no variant, the baseline a profile subtracts.
    #[arg(long, requires = "once", conflicts_with = "variant")]
    pub inputs_only: bool,
    #[arg(long)]
    pub json: bool,
}

/// `--variant` takes the names of [`cpu::Variant`], so that clap lists them in `--help` and
/// rejects any other with exit status 2.
fn cpu_variant_parser() -> impl TypedValueParser<Value = cpu::Variant> {
    PossibleValuesParser::new(cpu::Variant::ALL.map(cpu::Variant::name))
        .try_map(|name| name.parse::<cpu::Variant>())
}

#[derive(Args)]
pub struct ApspArgs {
    /// Input graph: int32 LE `V E`, then E triples `src dst w`.
    pub input: PathBuf,
    /// Output distance matrix (default: INPUT with extension .out).
    pub output: Option<PathBuf>,
    /// Block factor of the blocked Floyd–Warshall kernels (16, 32 or 64).
    #[arg(long, default_value_t = host::apsp::gpu::DEFAULT_BLOCK)]
    pub block: u32,
    /// Compute on the CPU (multithreaded Floyd–Warshall) instead of the GPU.
    #[arg(long)]
    pub cpu: bool,
    /// Check the result: CPU Floyd–Warshall for V ≤ 4000, else Dijkstra from 64 random sources.
    #[arg(long)]
    pub verify: bool,
    /// Skip the add-min peak measurement (about 60 ms) that the compute rate is compared with.
    #[arg(long)]
    pub no_peak: bool,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

#[derive(Args)]
pub struct ApspGenArgs {
    pub vertices: usize,
    pub edges: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

#[derive(Args)]
pub struct OccupancyArgs {
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cli::info::run(&a),
        Command::Matmul(a) => cli::matmul::run(&a),
        Command::MatmulCpu(a) => cli::matmul::run_cpu(&a),
        Command::Apsp(a) => cli::apsp::run(&a),
        Command::ApspGen(a) => cli::apsp::run_gen(&a),
        Command::ApspPeak(a) => cli::apsp_peak::run(&a),
        Command::Occupancy(a) => cli::occupancy::run(&a),
        Command::Bench(a) => cli::bench::run(&a),
        Command::Report(a) => cli::report::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // 2 is clap's usage error; 3 says "no GPU here", which scripts can tell apart.
            let no_gpu = e
                .downcast_ref::<NoGpu>()
                .or(match e.downcast_ref::<host::Error>() {
                    Some(host::Error::NoGpu(n)) => Some(n),
                    _ => None,
                });
            if let Some(no_gpu) = no_gpu {
                eprintln!("error: {no_gpu}");
                return ExitCode::from(3);
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, error::ErrorKind};

    use super::*;

    fn matmul_cpu(args: &[&str]) -> Result<MatmulCpuArgs, clap::Error> {
        let argv = ["host", "matmul-cpu"].iter().chain(args);
        match Cli::try_parse_from(argv)?.command {
            Command::MatmulCpu(a) => Ok(a),
            _ => panic!("parsed as another subcommand"),
        }
    }

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn variant_list_parses_in_order() {
        let a = matmul_cpu(&["--variant", "threaded_static,naive_ijk", "--sizes", "1000"]).unwrap();
        assert_eq!(
            a.variant,
            Some(vec![cpu::Variant::ThreadedStatic, cpu::Variant::NaiveIjk])
        );
        assert_eq!(matmul_cpu(&[]).unwrap().variant, None);
    }

    #[test]
    fn unknown_variant_is_one_error_with_exit_status_2() {
        let err = matmul_cpu(&["--variant", "blocked8"])
            .err()
            .expect("rejected");
        assert_eq!(err.kind(), ErrorKind::InvalidValue);
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        let first = msg.lines().next().unwrap_or_default();
        assert!(
            first.contains("'blocked8'") && first.contains("--variant"),
            "{msg}"
        );
        assert!(
            msg.contains("threaded_rayon"),
            "lists the valid names: {msg}"
        );
    }

    #[test]
    fn inputs_only_needs_once_and_no_variant() {
        assert!(matmul_cpu(&["--once", "--inputs-only"]).is_ok());
        let err = matmul_cpu(&["--inputs-only"]).err().expect("rejected");
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
        let err = matmul_cpu(&["--once", "--inputs-only", "--variant", "blocked16"]);
        assert_eq!(
            err.err().map(|e| e.kind()),
            Some(ErrorKind::ArgumentConflict)
        );
    }
}
