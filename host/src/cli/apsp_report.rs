//! What `host apsp` prints after a solve (the report, the statistics), shared by the in-core,
//! several-GPU and out-of-core paths.

use anyhow::Result;
use host::apsp::{
    multi::{MultiGpu, MultiTimes},
    ooc::OocReport,
    peak::AddMinPeak,
    pipeline::FileReport,
    stats::StatsRun,
};

use rgk_core::envelope::Device;

use super::{apsp_args::ApspArgs, json, output::OutputFile, progress};

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
        print_out_of_core(o);
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

/// The plan's lines under the report's table.
fn print_out_of_core(o: &OocReport) {
    let t = &o.times;
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    println!(
        "  out of core: {} x {} super-blocks of {} cells a side ({} blocks), {:.2} GiB of the \
         {:.2} GiB allowed on the GPU, {:.2} GiB pinned on the host",
        t.rounds,
        t.rounds,
        t.side,
        t.super_blocks,
        gib(t.device_bytes),
        gib(o.budget_bytes),
        gib(t.host_bytes)
    );
    println!(
        "  {:<22} {:>10.2} GiB in, {:.2} GiB out ({:.1} GB/s each way over the compute time)",
        "PCIe",
        gib(t.bytes_in),
        gib(t.bytes_out),
        t.bytes_in as f64 / t.compute_s.max(1e-12) / 1e9
    );
}
