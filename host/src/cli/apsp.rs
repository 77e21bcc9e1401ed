use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use host::{
    apsp::{
        gpu as agpu,
        pipeline::solve_file_with,
        stream::{
            DEFAULT_CHUNK_MIB, DEFAULT_WRITERS, IoMode, IoOptions,
            remove_partial_outputs_on_interrupt,
        },
    },
    gpu::Gpu,
};
use rgk_core::apsp::{format::write_graph, random};

use super::PtxArg;

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
    /// How the output is written (see docs/apsp.md for what each costs).
    #[arg(long, value_enum, default_value_t = IoMode::default())]
    pub io: IoMode,
    /// Threads writing the output.
    #[arg(long, default_value_t = DEFAULT_WRITERS)]
    pub write_threads: usize,
    /// MiB per chunk of the output: one copy from the GPU and one write.
    #[arg(long, default_value_t = DEFAULT_CHUNK_MIB as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub chunk_mib: u64,
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

pub fn run(args: &ApspArgs) -> Result<()> {
    remove_partial_outputs_on_interrupt()?;
    let gpu = if args.cpu {
        None
    } else {
        agpu::config(args.block)?;
        Some(Gpu::new(args.ptx.ptx.as_deref())?)
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("out"));
    // The add-min ceiling, measured briefly in this process so that the compute rate is
    // compared with the same GPU at the same moment (about 60 ms).
    let peak = match &gpu {
        Some(g) if !args.no_peak => Some(agpu::addmin_peak(g, agpu::PEAK_ITERATIONS, 5)?),
        _ => None,
    };
    let pb = args.verify.then(|| super::spinner("solving and verifying"));
    let io = IoOptions {
        mode: args.io,
        writers: args.write_threads,
        chunk_mib: args.chunk_mib as usize,
    };
    let rep = solve_file_with(
        gpu.as_ref(),
        &args.input,
        &output,
        args.block,
        args.verify,
        io,
    )?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    if rep.repeated_edges > 0 {
        eprintln!(
            "note: {} repeated edge(s); each vertex pair keeps its smallest weight",
            rep.repeated_edges
        );
    }
    if args.json {
        let mut value = serde_json::to_value(&rep)?;
        value["input"] = args.input.display().to_string().into();
        value["output"] = output.display().to_string().into();
        if let Some(p) = &peak {
            value["addmin_peak"] = serde_json::to_value(p)?;
            value["percent_of_peak"] = (100.0 * rep.updates_per_s / p.updates_per_s).into();
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
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
    println!(
        "  {:<22} {} I/O, {} writer threads, {} staging buffers of {:.0} MiB",
        "output",
        st.mode,
        st.writers,
        st.buffers,
        st.staging_bytes as f64 / st.buffers.max(1) as f64 / (1u64 << 20) as f64
    );
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
    if let Some(p) = &peak {
        println!(
            "  {:<22} {:>10.1} % of the add-min peak ({:.3e} updates/s, measured just before)",
            "compute vs peak",
            100.0 * rep.updates_per_s / p.updates_per_s,
            p.updates_per_s
        );
    }
    if let Some(v) = &rep.verified {
        println!("  verified: {v}");
    }
    println!("wrote {}", output.display());
    Ok(())
}

pub fn run_gen(args: &ApspGenArgs) -> Result<()> {
    let graph = random::generate(args.vertices, args.edges, args.seed)?;
    write_graph(&args.output, &graph)?;
    println!(
        "wrote {} (V={}, E={}, seed {})",
        args.output.display(),
        graph.vertices,
        graph.edges.len(),
        args.seed
    );
    Ok(())
}
