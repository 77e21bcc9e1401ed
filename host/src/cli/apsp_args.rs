//! `host apsp`'s arguments and the helpers every `apsp` subcommand module shares (I/O options,
//! the spinner): a leaf of the `apsp` CLI modules, so that they import it and not each other.
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use host::apsp::{
    multi::GpuCount,
    stream::{DEFAULT_CHUNK_MIB, DEFAULT_WRITERS, IoMode, IoOptions},
};
use rgk_core::apsp::paths::PathKind;

use super::{PtxArg, progress};

#[derive(Args)]
pub struct ApspArgs {
    /// Input graph: int32 LE `V E`, then E triples `src dst w`.
    pub input: PathBuf,
    /// Output distance matrix, the same as -o/--output (kept for older scripts).
    #[arg(value_name = "OUTPUT", conflicts_with = "output")]
    pub output_positional: Option<PathBuf>,
    /// Distance matrix to write (default: INPUT with extension .out, unless --stats is given);
    /// replaced atomically if it exists, never the input.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Graph statistics from the distances (docs/apsp.md, "Statistics"): one CSV row per
    /// vertex into FILE (eccentricity, reachable, reached_by, closeness, harmonic), and the
    /// graph's diameter, radius, average shortest-path length and unreachable pairs in the
    /// report (`stats` in --json). Without -o/--output or OUTPUT no distance file is written:
    /// the matrix never leaves the GPU. One GPU (or --cpu).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Also write a path matrix into FILE (docs/apsp.md, "Paths"), read by `host path FILE U V`.
    /// One GPU at block factor 64, or --cpu.
    #[arg(long, value_name = "FILE", conflicts_with = "stats")]
    pub paths: Option<PathBuf>,
    /// The path matrix `--paths` writes.
    #[arg(long, value_enum, default_value_t = PathKindArg::Successors, requires = "paths")]
    pub path_kind: PathKindArg,
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
    /// Print one JSON object (docs/json.md) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// GPUs to split the matrix over (block rows per GPU, pivot rows broadcast with NCCL):
    /// a number or `all`. More than one needs NCCL (libnccl.so.2) and block factor 64.
    #[arg(long, default_value = "1", value_name = "N|all")]
    pub gpus: GpuCount,
    /// How the output is written (see docs/apsp.md for what each costs).
    #[arg(long, value_enum, default_value_t = IoMode::default())]
    pub io: IoMode,
    /// Threads writing the output.
    #[arg(long, default_value_t = DEFAULT_WRITERS, value_parser = super::at_least_one::<usize>)]
    pub write_threads: usize,
    /// MiB per chunk of the output: one copy from the GPU and one write.
    #[arg(long, default_value_t = DEFAULT_CHUNK_MIB as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub chunk_mib: u64,
    /// Do not write a placeholder into the output while the GPU computes (buffered I/O writes
    /// one by default, so the result's write lands in pages the cache already holds).
    #[arg(long)]
    pub no_prefault: bool,
    /// Device memory the solver may use, such as 4GiB or 512MiB (default: all that is free).
    /// A matrix that does not fit runs out of core: it stays in pinned host memory and passes
    /// through the GPU a super-block at a time (docs/apsp-scale.md). One GPU, block factor 64.
    #[arg(long, value_name = "SIZE", value_parser = rgk_core::memory::parse_size)]
    pub device_memory_limit: Option<u64>,
    /// Run as one rank of a job (one process per GPU, any number of hosts) started by a
    /// launcher: scripts/apsp-launch.sh, torchrun, mpirun or srun (implied by WORLD_SIZE).
    /// Needs NCCL and a file system every rank shares (docs/apsp-scale.md).
    #[arg(long)]
    pub distributed: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

pub(super) fn io_options(args: &ApspArgs) -> IoOptions {
    IoOptions {
        mode: args.io,
        writers: args.write_threads,
        chunk_mib: args.chunk_mib as usize,
        prefault: !args.no_prefault,
    }
}

pub(super) fn solving_spinner(verify: bool) -> indicatif::ProgressBar {
    progress::spinner(if verify {
        "solving and verifying"
    } else {
        "solving"
    })
}

/// The kind of path matrix `--paths` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PathKindArg {
    /// The vertex after the source on a shortest path (−1: no path).
    Successors,
    /// The vertex before the target, as scipy's `predecessors` (−9999: no path or the diagonal).
    Predecessors,
}

impl From<PathKindArg> for PathKind {
    fn from(k: PathKindArg) -> PathKind {
        match k {
            PathKindArg::Successors => PathKind::Successors,
            PathKindArg::Predecessors => PathKind::Predecessors,
        }
    }
}
