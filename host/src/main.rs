//! `host`: runs the project's Rust GPU kernels and checks them on the CPU.
mod cli;

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, Parser, Subcommand, ValueEnum};
use host::gpu::NoGpu;

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
    /// `sgemm` (the flagship kernel the library picks for the shape), kernel names separated
    /// by commas, a family (`tiled`, `vectorized`, `flagship`) or `all`.
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
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
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
        Command::Occupancy(a) => cli::occupancy::run(&a),
        Command::Bench(a) => cli::bench::run(&a),
        Command::Report(a) => cli::report::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // 2 is clap's usage error; 3 says "no GPU here", which scripts can tell apart.
            let no_gpu = e.downcast_ref::<NoGpu>().or(match e.downcast_ref::<host::Error>() {
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
