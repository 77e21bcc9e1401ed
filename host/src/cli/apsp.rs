use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use host::{
    apsp::{
        gpu as agpu,
        input::GraphFile,
        multi::{self, GpuCount, MultiGpu},
        peak::{PEAK_ITERATIONS, addmin_peak},
        pipeline::{Outputs, solve_graph_multi, solve_graph_outputs},
        stream::remove_partial_outputs_on_interrupt,
    },
    gpu::Gpu,
};
use rgk_core::apsp::{format::write_graph, limits, random};

use super::{
    apsp_args::{ApspArgs, io_options, solving_spinner},
    apsp_dist, apsp_ooc,
    apsp_report::{Report, print_report},
    json,
    output::OutputFile,
    progress,
};

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
        if !args.cpu && apsp_dist::ranks(args)?.is_some() {
            return rgk_core::bad_input(
                "--paths runs in one process (one GPU or --gpus N) for now: leave out --distributed",
            );
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
