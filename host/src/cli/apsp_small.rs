//! `host apsp-small GRAPH`: the compute time of one graph under each way of running the rounds
//! (`host::apsp::small::Schedule`), with the add-min peak measured in the same process, and
//! whether each schedule's distances equal those of the classic launches byte for byte.
use anyhow::{Result, bail};
use clap::Args;
use gpu_kernels::apsp::{SMALL_PROBES, SmallProbeKind};
use host::{
    apsp::{
        gpu::{self as agpu, DEFAULT_BLOCK},
        input::GraphFile,
        peak::{AddMinPeak, PEAK_ITERATIONS, addmin_peak},
        round_costs::{RoundCosts, round_costs},
        rows::DeviceRows,
        small::{Schedule, default_schedule},
        small_floor::{LaunchFloor, launch_floor},
        small_probe::{ItemProbe, TraceSummary, probe_items, trace},
    },
    gpu::{Gpu, Timing},
};
use serde::Serialize;

use super::PtxArg;

#[derive(Args)]
pub struct ApspSmallArgs {
    /// Graph file (course format).
    pub input: std::path::PathBuf,
    /// Schedules to time (repeat the flag); all that fit the block factor by default.
    #[arg(long, value_enum)]
    pub schedule: Vec<Schedule>,
    /// Block factor the matrix is padded to (and of the launches' kernels).
    #[arg(long, default_value_t = DEFAULT_BLOCK)]
    pub block: u32,
    /// Timed solves per schedule (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 5, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Also time every schedule with the stream held this many µs before the start event (a
    /// spinning one-thread kernel), so that the CPU has queued the whole solve before the GPU
    /// starts it: the events then time the GPU's work alone, without the CPU's launch calls.
    /// 0: not.
    #[arg(long, default_value_t = 0)]
    pub hold_us: u64,
    /// Also run the probes of the chain (`host::apsp::small_probe`): the first pivot block's
    /// product and closure on one block alone at each closure style, and the pull kernel with
    /// every item stamped, its chain taken apart per round (needs V > 64).
    #[arg(long)]
    pub probe: bool,
    /// Print one JSON object (docs/json.md) instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

#[derive(Serialize)]
struct Run {
    schedule: Schedule,
    /// Compute time (CUDA events around the rounds) per solve, ms.
    compute: Timing,
    /// V³ / median compute time.
    updates_per_s: f64,
    percent_of_peak: f64,
    /// The distances equal those of `launches`, byte for byte.
    identical: bool,
    /// As `compute` and `percent_of_peak` with the stream held before the start event
    /// (`--hold-us`), if asked for.
    held_compute: Option<Timing>,
    held_percent_of_peak: Option<f64>,
}

#[derive(Serialize)]
struct Results {
    vertices: usize,
    block: u32,
    default_schedule: Schedule,
    addmin_peak: AddMinPeak,
    runs: Vec<Run>,
    /// Each phase of the classic launches alone, per launch, at B = 32 and 64: what a round's
    /// critical path costs.
    round_costs: Vec<RoundCosts>,
    /// An empty launch, plain and cooperative: the floor under every schedule.
    launch_floor: LaunchFloor,
    /// `--probe`: each item probe, then each traced solve.
    probe_items: Vec<ItemProbe>,
    traces: Vec<TraceSummary>,
}

/// Solves (the stream held `hold_ns` before the start event when not 0) and returns the
/// compute seconds and the V x V distances.
fn solve(
    gpu: &Gpu,
    g: &GraphFile,
    block: u32,
    s: Schedule,
    hold_ns: u64,
) -> Result<(f64, Vec<i32>)> {
    let sol = agpu::start_on_device_held(gpu, &g.graph, block, s, hold_ns)?.finish()?;
    let v = g.graph.vertices;
    let mut dist = vec![0i32; v * v];
    sol.copy_rows(0, &mut dist)?;
    Ok((sol.times.compute_s, dist))
}

pub fn run(args: &ApspSmallArgs) -> Result<()> {
    agpu::config(args.block)?;
    let input = GraphFile::read(&args.input)?;
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let schedules: Vec<Schedule> = match args.schedule.is_empty() {
        true => Schedule::ALL
            .into_iter()
            .filter(|s| s.fits(args.block))
            .collect(),
        false => args.schedule.clone(),
    };
    if let Some(s) = schedules.iter().find(|s| !s.fits(args.block)) {
        bail!("schedule {s:?} does not fit block factor {}", args.block);
    }
    let peak = addmin_peak(&gpu, PEAK_ITERATIONS, 5)?;
    let (_, reference) = solve(&gpu, &input, args.block, Schedule::Launches, 0)?;
    let v = input.graph.vertices;
    let percent =
        |t: &Timing| 100.0 * (v as f64).powi(3) / (t.median_ms * 1e-3) / peak.updates_per_s;
    let mut runs = Vec::new();
    for s in schedules {
        let mut identical = solve(&gpu, &input, args.block, s, 0)?.1 == reference;
        // Timed solves: plain, then held (`--hold-us`), each after its own warm-up above.
        let mut times = [Vec::new(), Vec::new()];
        let holds = match args.hold_us {
            0 => vec![0],
            us => vec![0, us * 1000],
        };
        for (i, &hold_ns) in holds.iter().enumerate() {
            for _ in 0..args.reps {
                let (t, d) = solve(&gpu, &input, args.block, s, hold_ns)?;
                identical &= d == reference;
                times[i].push(t * 1e3);
            }
        }
        let [plain, held] = times;
        let compute = Timing::from_samples(plain);
        let held_compute = (!held.is_empty()).then(|| Timing::from_samples(held));
        let updates_per_s = (v as f64).powi(3) / (compute.median_ms * 1e-3);
        runs.push(Run {
            schedule: s,
            percent_of_peak: percent(&compute),
            held_percent_of_peak: held_compute.as_ref().map(percent),
            compute,
            held_compute,
            updates_per_s,
            identical,
        });
    }
    let round_costs = [32, 64]
        .into_iter()
        .map(|b| round_costs(&gpu, &input.graph, b, args.reps))
        .collect::<Result<Vec<_>>>()?;
    let launch_floor = launch_floor(&gpu, args.reps)?;
    let (mut probe_items_run, mut traces) = (Vec::new(), Vec::new());
    if args.probe {
        probe_items_run = probe_items(&gpu, &input.graph, args.reps)?;
        for cfg in SMALL_PROBES.iter().filter(|c| {
            matches!(
                c.kind,
                SmallProbeKind::Trace | SmallProbeKind::StripTrace { .. }
            )
        }) {
            traces.push(trace(&gpu, &input.graph, cfg, &reference, args.reps)?);
        }
    }
    let results = Results {
        probe_items: probe_items_run,
        traces,
        launch_floor,
        vertices: v,
        block: args.block,
        default_schedule: default_schedule(v, args.block),
        addmin_peak: peak,
        runs,
        round_costs,
    };
    let failed = results.runs.iter().any(|r| !r.identical)
        || results.traces.iter().any(|t| !t.identical)
        || results.probe_items.iter().any(|p| !p.correct);
    if args.json {
        super::json::print("apsp-small", gpu.info()?.device(1), &results)?;
    } else {
        println!(
            "V = {v}, block {}, peak {:.3e} add-mins/s (default schedule {:?})",
            args.block, results.addmin_peak.updates_per_s, results.default_schedule
        );
        for r in &results.runs {
            let held = match (&r.held_compute, r.held_percent_of_peak) {
                (Some(t), Some(p)) => format!("  held {:>9.4} ms {:>6.1}%", t.median_ms, p),
                _ => String::new(),
            };
            println!(
                "  {:<13} median {:>9.4} ms  {:>6.1}% of peak{held}  {}",
                format!("{:?}", r.schedule),
                r.compute.median_ms,
                r.percent_of_peak,
                if r.identical {
                    "identical"
                } else {
                    "DIFFERENT"
                }
            );
        }
        for c in &results.round_costs {
            println!(
                "  B = {} ({} rounds), per launch: phase 1 {:.2} µs, phase 2 {:.2} µs, \
                 phase 3 {:.2} µs; a round of launches {:.2} µs",
                c.block, c.rounds, c.phase1_us, c.phase2_us, c.phase3_us, c.round_us
            );
        }
        let f = &results.launch_floor;
        println!(
            "  an empty launch: plain {:.2} µs, cooperative ({} blocks) {:.2} µs",
            f.plain.median_ms * 1e3,
            f.grid,
            f.cooperative.median_ms * 1e3
        );
        print_probes(&results.probe_items, &results.traces);
    }
    if failed {
        bail!("a schedule's or a probe's distances differ from the classic launches' or the CPU's");
    }
    Ok(())
}

/// How a probe's kernel closes the pivot block (its table's `close_steps`).
fn closure_label(steps: u32) -> String {
    match steps {
        0 => "by quadrants".to_string(),
        s => format!("{s} steps/barrier"),
    }
}

fn print_probes(items: &[ItemProbe], traces: &[TraceSummary]) {
    for p in items {
        println!(
            "  probe {:<22} {}x{} cells, {}: load {:>6.0}, product {:>6.0}, \
             closure {:>6.0} ({:.1}/step), store {:>5.0} cycles; item {:.2} µs  {}",
            p.kernel,
            p.cells,
            p.cells,
            closure_label(p.close_steps),
            p.load_cycles,
            p.product_cycles,
            p.closure_cycles,
            p.cycles_per_step,
            p.store_cycles,
            p.item_us,
            if p.correct { "correct" } else { "WRONG" }
        );
    }
    for t in traces {
        println!(
            "  trace {:<22} {}: {:.4} ms, chain {:.2} µs a round (closing item's \
             dependencies met {:.2} µs after the pivot) ({} rounds, {:.3} cycles/ns)  {}",
            t.kernel,
            closure_label(t.close_steps),
            t.compute.median_ms,
            t.chain_round_us,
            t.pivot_to_close_deps_us,
            t.rounds,
            t.cycles_per_ns,
            if t.identical {
                "identical"
            } else {
                "DIFFERENT"
            }
        );
        for (what, p) in [
            ("closing items", &t.close_items),
            ("chain phase 2", &t.chain_phase2),
            ("bulk phase 3", &t.bulk),
        ] {
            println!(
                "    {what:<14} wait {:>6.2}  load {:>5.2}  product {:>5.2}  closure {:>5.2}  \
                 publish {:>5.2} µs  ({} items)",
                p.wait_us, p.load_us, p.product_us, p.closure_us, p.publish_us, p.items
            );
        }
        println!(
            "    hand-offs: closure published → phase 2 ready {:.2} µs, phase 2 published → \
             closing item ready {:.2} µs",
            t.close_to_phase2_us, t.phase2_to_close_us
        );
    }
}
