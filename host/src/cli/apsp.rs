use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use host::{
    apsp::{
        gpu as agpu,
        input::GraphFile,
        multi::{self, GpuCount, MultiGpu, MultiTimes},
        ooc::OocReport,
        peak::{AddMinPeak, PEAK_ITERATIONS, addmin_peak},
        pipeline::{FileReport, Outputs, solve_graph_multi, solve_graph_outputs},
        stats::StatsRun,
        stream::{
            DEFAULT_CHUNK_MIB, DEFAULT_WRITERS, IoMode, IoOptions,
            remove_partial_outputs_on_interrupt,
        },
    },
    gpu::Gpu,
};
use rgk_core::apsp::{format::write_graph, limits, random};

use rgk_core::envelope::Device;

use super::{PtxArg, apsp_dist, apsp_ooc, json, output::OutputFile, progress};

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
    #[arg(long, value_enum, default_value_t = super::apsp_paths::PathKindArg::Successors, requires = "paths")]
    pub path_kind: super::apsp_paths::PathKindArg,
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

#[derive(Args)]
pub struct ApspGenArgs {
    /// Number of vertices V (at least 1; a V that no solver of the project can hold is refused).
    pub vertices: usize,
    /// Number of distinct directed edges E (at most V(V-1)), weights uniform in 0..=1000.
    pub edges: usize,
    /// Seed of the generator: the same V, E and seed give the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Graph file to write (replaced atomically if it exists).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

pub fn run(args: &ApspArgs) -> Result<()> {
    remove_partial_outputs_on_interrupt()?;
    // Checked before any work: an output that is the input is refused at once.
    let given = args.output_positional.as_ref().or(args.output.as_ref());
    // With --stats the distance file is written only when asked for.
    let out = match (given, &args.stats) {
        (None, Some(_)) => None,
        _ => Some(OutputFile::or_default(
            given.map(PathBuf::as_path),
            args.input.with_extension("out"),
            &[&args.input],
        )?),
    };
    let stats_out = stats_file(args, out.as_ref())?;
    if let (Some(paths), Some(out)) = (&args.paths, &out) {
        let paths = OutputFile::new(paths, &[&args.input, out.path()])?;
        if paths.path() == out.path() {
            return rgk_core::bad_input(
                "--paths names the distance file too: give the paths another file",
            );
        }
        if !args.cpu && args.gpus != GpuCount::Count(1) {
            return rgk_core::bad_input("--paths runs on one GPU for now: leave out --gpus");
        }
        return super::apsp_paths::run(args, out, &paths);
    }
    let several = !args.cpu && args.gpus != GpuCount::Count(1);
    if let (Some(_), GpuCount::Count(n)) = (&stats_out, args.gpus)
        && several
    {
        return refuse_stats_on(n as usize);
    }
    if several {
        multi::config(args.block)?;
        if args.device_memory_limit.is_some() {
            return rgk_core::bad_input(
                "--device-memory-limit runs one GPU out of core: leave out --gpus",
            );
        }
    }
    if !args.cpu {
        agpu::config(args.block)?;
    }
    // The graph is read and validated before the driver is needed: a bad file is named on any
    // machine, and a good one on a machine without a GPU gets "no GPU" (exit status 3).
    let pb = progress::spinner("reading the graph");
    let input = GraphFile::read(&args.input);
    pb.finish_and_clear();
    let input = input?;
    if let Some(ranks) = apsp_dist::ranks(args)? {
        let Some(out) = out else {
            return refuse_stats_on(ranks.world_size);
        };
        return apsp_dist::run(args, &ranks, input, &out);
    }
    if several {
        let gpus = MultiGpu::open(args.gpus, args.ptx.ptx.as_deref())?;
        // `--gpus all` with one GPU is the one-GPU path.
        if gpus.len() > 1 {
            let Some(out) = out.filter(|_| stats_out.is_none()) else {
                return refuse_stats_on(gpus.len());
            };
            return run_multi(args, &gpus, input, &out);
        }
    }
    let gpu = if args.cpu {
        None
    } else {
        Some(Gpu::new(args.ptx.ptx.as_deref())?)
    };
    let device = match &gpu {
        Some(g) => g.info()?.device(1),
        None => json::cpu_device(),
    };
    if let Some(g) = &gpu
        && let Some((plan, budget)) = apsp_ooc::out_of_core(args, g, &input)?
    {
        return apsp_ooc::run(
            args,
            g,
            device,
            input,
            out,
            stats_out.is_some(),
            (plan, budget),
        );
    }
    // The add-min ceiling, measured briefly in this process so that the compute rate is
    // compared with the same GPU at the same moment (about 60 ms).
    let peak = match &gpu {
        Some(g) if !args.no_peak => Some(addmin_peak(g, PEAK_ITERATIONS, 5)?),
        _ => None,
    };
    let pb = solving_spinner(args.verify);
    let outputs = Outputs {
        distances: out.as_ref().map(OutputFile::path),
        stats: stats_out.is_some(),
    };
    let solved = solve_graph_outputs(
        gpu.as_ref(),
        input,
        outputs,
        args.block,
        args.verify,
        io_options(args),
    );
    pb.finish_and_clear();
    let (rep, stats) = solved?;
    let stats = match (&stats_out, stats) {
        (Some(file), Some(run)) => {
            run.stats.write_csv(file.path())?;
            file.wrote(&format!("statistics of {} vertices", rep.vertices));
            Some((file, run))
        }
        _ => None,
    };
    let report = Report {
        out: out.as_ref(),
        stats,
        device,
        peak: peak.as_ref(),
        multi: None,
        ooc: None,
    };
    print_report(args, &rep, report)
}

/// `--stats` with `--gpus N`, N > 1: the reduction needs the whole matrix on one GPU (each GPU
/// holds only its block rows, so the column sums would need a reduction across GPUs).
fn refuse_stats_on<T>(gpus: usize) -> Result<T> {
    rgk_core::bad_input(format!(
        "--stats runs on one GPU for now, not on the {gpus} of --gpus: leave out --gpus"
    ))
}

/// The `--stats` file, checked like every output: never the input, nor the distance file.
fn stats_file(args: &ApspArgs, out: Option<&OutputFile>) -> Result<Option<OutputFile>> {
    let Some(path) = &args.stats else {
        return Ok(None);
    };
    if let Some(out) = out
        && out.path() == path
    {
        return rgk_core::bad_input(format!(
            "--stats {} names the distance file too: give the statistics another file",
            path.display()
        ));
    }
    let mut inputs = vec![args.input.as_path()];
    inputs.extend(out.map(OutputFile::path));
    Ok(Some(OutputFile::new(path, &inputs)?))
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

/// `host apsp --gpus N` with N > 1.
fn run_multi(args: &ApspArgs, gpus: &MultiGpu, input: GraphFile, out: &OutputFile) -> Result<()> {
    // The ceiling of one GPU (GPU 0); the rate of N GPUs is compared with N times it.
    gpus.gpus[0].make_current()?;
    let device = gpus.gpus[0].info()?.device(gpus.len() as u32);
    let peak = match args.no_peak {
        false => Some(addmin_peak(&gpus.gpus[0], PEAK_ITERATIONS, 5)?),
        true => None,
    };
    let pb = solving_spinner(args.verify);
    let solved = solve_graph_multi(
        gpus,
        input,
        out.path(),
        args.block,
        args.verify,
        io_options(args),
    );
    pb.finish_and_clear();
    let (rep, times) = solved?;
    let report = Report {
        out: Some(out),
        stats: None,
        device,
        peak: peak.as_ref(),
        multi: Some((gpus, &times)),
        ooc: None,
    };
    print_report(args, &rep, report)
}

/// Everything `print_report` prints besides the solve's own report.
pub(super) struct Report<'a> {
    /// The distance file, when one was written.
    pub(super) out: Option<&'a OutputFile>,
    /// The statistics and their file (`--stats`).
    pub(super) stats: Option<(&'a OutputFile, StatsRun)>,
    pub(super) device: Device,
    pub(super) peak: Option<&'a AddMinPeak>,
    pub(super) multi: Option<(&'a MultiGpu, &'a MultiTimes)>,
    /// Out of core (`--device-memory-limit`, or a matrix larger than the GPU).
    pub(super) ooc: Option<&'a OocReport>,
}

pub(super) fn print_report(args: &ApspArgs, rep: &FileReport, report: Report) -> Result<()> {
    let Report {
        out,
        stats,
        device,
        peak,
        multi,
        ooc,
    } = report;
    // N GPUs are measured against N times one GPU's add-min ceiling.
    let n = multi.map_or(1.0, |(g, _)| g.len() as f64);
    if rep.repeated_edges > 0 {
        progress::note(&format!(
            "note: {} repeated edge(s); each vertex pair keeps its smallest weight",
            rep.repeated_edges
        ));
    }
    if let Some(out) = out {
        out.wrote(&format!("{0} x {0} distances", rep.vertices));
    }
    if args.json {
        let mut value = serde_json::to_value(rep)?;
        value["input"] = args.input.display().to_string().into();
        value["output"] = out.map(|o| o.path().display().to_string()).into();
        if let Some((file, run)) = &stats {
            value["stats"] = serde_json::json!({
                "output": file.path().display().to_string(),
                "graph": run.stats.graph,
                "times": run.times,
            });
        }
        if let Some(p) = peak {
            value["addmin_peak"] = serde_json::to_value(p)?;
            value["percent_of_peak"] = (100.0 * rep.updates_per_s / (n * p.updates_per_s)).into();
        }
        if let Some((gpus, times)) = multi {
            value["gpus"] = gpus.len().into();
            value["nccl"] = gpus.nccl().map(|(v, _)| v.to_string()).into();
            value["per_gpu"] = serde_json::to_value(&times.per_gpu)?;
        }
        if let Some(o) = ooc {
            value["out_of_core"] = serde_json::to_value(o)?;
        }
        return json::print("apsp", device, value);
    }
    let block = rep.block.map_or(String::new(), |b| format!(", block {b}"));
    println!(
        "APSP V={} E={} on {}{block}",
        rep.vertices, rep.edges, rep.device
    );
    let s = &rep.split;
    let st = &rep.stream;
    for (what, secs) in [
        ("read", s.read_s),
        ("load kernels, alloc", rep.setup_s),
        ("fill matrix", s.fill_s),
        ("host→device", s.host_to_device_s),
        ("compute", s.compute_s),
        ("prepare output", rep.prepare_s),
        ("device→host", s.device_to_host_s),
        ("write", s.write_s),
        ("stream (copy + write)", st.wall_s),
        ("total (file to file)", rep.total_s),
        ("overlapped", rep.overlapped_s),
    ] {
        println!("  {what:<22} {secs:>10.4} s");
    }
    if out.is_some() {
        println!(
            "  {:<22} {} I/O, {} writer threads, {} staging buffers of {:.0} MiB, {:.0} MiB placeholder written during compute",
            "output",
            st.mode,
            st.writers,
            st.buffers,
            st.staging_bytes as f64 / st.buffers.max(1) as f64 / (1u64 << 20) as f64,
            st.prefaulted_bytes as f64 / (1u64 << 20) as f64
        );
    }
    if let Some(b) = rep.peak_rss_bytes {
        println!(
            "  {:<22} {:>10.1} MiB",
            "peak memory (RSS)",
            b as f64 / (1u64 << 20) as f64
        );
    }
    println!(
        "  {:<22} {:>10.3e} updates/s (V^3 / compute)",
        "rate", rep.updates_per_s
    );
    if let Some(p) = peak {
        let of = if n > 1.0 {
            format!("{n} x ")
        } else {
            String::new()
        };
        println!(
            "  {:<22} {:>10.1} % of {of}the add-min peak ({:.3e} updates/s per GPU, measured just before)",
            "compute vs peak",
            100.0 * rep.updates_per_s / (n * p.updates_per_s),
            p.updates_per_s
        );
    }
    if let Some((gpus, times)) = multi {
        if let Some((version, path)) = gpus.nccl() {
            println!("  NCCL {version} ({path})");
        }
        println!(
            "  {:<5} {:>12} {:>10} {:>12} {:>10} {:>10} {:>10}",
            "GPU", "block rows", "GiB", "compute s", "wait s", "send s", "busy %"
        );
        for s in &times.per_gpu {
            println!(
                "  {:<5} {:>12} {:>10.2} {:>12.4} {:>10.4} {:>10.4} {:>10.1}",
                s.ordinal,
                format!("{}+{}", s.first_block_row, s.block_rows),
                s.bytes as f64 / (1u64 << 30) as f64,
                s.compute_s,
                s.wait_s,
                s.send_s,
                100.0 * s.compute_s / times.compute_s.max(1e-12)
            );
        }
    }
    if let Some(o) = ooc {
        apsp_ooc::print(o);
    }
    if let Some((file, run)) = &stats {
        print_stats(file, run);
    }
    if let Some(v) = &rep.verified {
        println!("  verified: {v}");
    }
    Ok(())
}

/// The graph's statistics under the report's table.
fn print_stats(file: &OutputFile, run: &StatsRun) {
    let g = &run.stats.graph;
    let t = &run.times;
    println!(
        "  statistics ({} per vertex; reduce {:.4} s, copy {:.4} s, finish {:.4} s)",
        file.path().display(),
        t.reduce_s,
        t.device_to_host_s,
        t.finish_s
    );
    let connected = if g.strongly_connected {
        "strongly connected"
    } else {
        "not strongly connected: over the pairs with a path"
    };
    println!("    {:<30} {} ({connected})", "diameter", g.diameter);
    println!("    {:<30} {}", "radius", g.radius);
    println!(
        "    {:<30} {}",
        "average shortest-path length", g.average_shortest_path_length
    );
    println!(
        "    {:<30} {} of {}",
        "unreachable pairs",
        g.unreachable_pairs,
        g.unreachable_pairs + g.reachable_pairs
    );
}

pub fn run_gen(args: &ApspGenArgs) -> Result<()> {
    let out = OutputFile::new(&args.output, &[])?;
    // A file that no solver could read into memory is refused before it is written.
    limits::ensure_some_solver_holds(args.vertices)?;
    let graph = random::generate(args.vertices, args.edges, args.seed)?;
    write_graph(out.path(), &graph)?;
    out.wrote(&format!(
        "V={}, E={}, seed {}",
        graph.vertices,
        graph.edges.len(),
        args.seed
    ));
    Ok(())
}
