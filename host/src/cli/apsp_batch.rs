//! `host apsp-batch DIR|FILE… -o DIR`: many graphs in one process, each input's distances in
//! `DIR/NAME.out` (`host::apsp::batch_files`). Bad inputs are named with their file and byte
//! offset; the others are still written, and the exit status is 1 at the end.
use anyhow::{Context as _, Result};
use clap::Args;
use host::{
    apsp::{
        batch::{BATCH_CHUNK, BatchTimes, solve_batch_with, variant},
        batch_files::{BatchReport, solve_files},
        peak::{AddMinPeak, PEAK_ITERATIONS, addmin_peak},
    },
    gpu::Gpu,
};
use rgk_core::apsp::{
    batch::{expand_inputs, output_paths},
    solve_cpu,
};
use serde::Serialize;

use super::{PtxArg, progress};

#[derive(Args)]
pub struct ApspBatchArgs {
    /// Graph files (course format), or directories whose files are all graphs.
    #[arg(required = true, value_name = "DIR|FILE")]
    pub inputs: Vec<std::path::PathBuf>,
    /// Directory for the distance files (created if missing): NAME.out for each input NAME.EXT.
    #[arg(short, long, value_name = "DIR")]
    pub output: std::path::PathBuf,
    /// Graphs read, solved and written together (at most 2048).
    #[arg(long, default_value_t = BATCH_CHUNK, value_parser = super::at_least_one::<usize>)]
    pub chunk: usize,
    /// Run the graphs of this kernel's size class through it instead of the class's default
    /// (a register batch kernel of `host info`'s apsp-batch family; for measurements).
    #[arg(long, value_name = "NAME", conflicts_with = "cpu")]
    pub kernel: Option<String>,
    /// Solve on the CPU (the Floyd–Warshall reference) instead of the GPU.
    #[arg(long)]
    pub cpu: bool,
    /// Also measure the add-min peak (`apsp-peak`) and report the batch's share of it.
    #[arg(long)]
    pub peak: bool,
    /// Print one JSON object (docs/json.md) instead of the summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

#[derive(Serialize)]
struct Results {
    #[serde(flatten)]
    report: BatchReport,
    addmin_peak: Option<AddMinPeak>,
    percent_of_peak: Option<f64>,
}

pub fn run(args: &ApspBatchArgs) -> Result<()> {
    let kernel = args.kernel.as_deref().map(variant).transpose()?;
    let inputs = expand_inputs(&args.inputs)?;
    std::fs::create_dir_all(&args.output).with_context(|| {
        format!(
            "cannot create the output directory {}",
            args.output.display()
        )
    })?;
    let outputs = output_paths(&inputs, &args.output)?;
    let pb = progress::spinner(&format!("solving {} graphs", inputs.len()));
    let (report, device, peak) = if args.cpu {
        let cpu = |graphs: &[rgk_core::apsp::format::Graph]| {
            let t = std::time::Instant::now();
            let d = graphs.iter().map(solve_cpu).collect::<Result<Vec<_>>>()?;
            let times = BatchTimes {
                compute_s: t.elapsed().as_secs_f64(),
                updates: graphs.iter().map(|g| (g.vertices as f64).powi(3)).sum(),
                ..Default::default()
            };
            Ok((d, times))
        };
        let report = solve_files(&inputs, &outputs, args.chunk, cpu)?;
        (report, super::json::cpu_device(), None)
    } else {
        let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
        let report = solve_files(&inputs, &outputs, args.chunk, |g| {
            solve_batch_with(&gpu, g, kernel)
        })?;
        let peak = args
            .peak
            .then(|| addmin_peak(&gpu, PEAK_ITERATIONS, 5))
            .transpose()?;
        (report, gpu.info()?.device(1), peak)
    };
    pb.finish_and_clear();
    let failures = report.failures.clone();
    let percent = peak.map(|p| 100.0 * report.updates_per_s / p.updates_per_s);
    if args.json {
        let results = Results {
            report,
            addmin_peak: peak,
            percent_of_peak: percent,
        };
        super::json::print("apsp-batch", device, &results)?;
    } else {
        print_summary(&report, percent, &args.output);
    }
    if failures.is_empty() {
        return Ok(());
    }
    for f in &failures {
        eprintln!("error: {f}");
    }
    rgk_core::bad_input(format!(
        "{} of {} graphs failed (named above); the other {} were written",
        failures.len(),
        inputs.len(),
        inputs.len() - failures.len()
    ))
}

fn print_summary(r: &BatchReport, percent: Option<f64>, dir: &std::path::Path) {
    println!(
        "{} of {} graphs solved into {} in {:.3} s (read {:.3} s, compute {:.4} s, write {:.3} s, \
         overlapped)",
        r.written,
        r.inputs,
        dir.display(),
        r.total_s,
        r.read_s,
        r.times.compute_s,
        r.write_s
    );
    let share = percent.map_or(String::new(), |p| format!(", {p:.1}% of the add-min peak"));
    println!(
        "  {} batch launches, {} batched blocked launches, {} graphs one at a time; {:.3e} \
         updates/s in compute{share}",
        r.times.launches, r.times.blocked_launches, r.times.single, r.updates_per_s
    );
}
