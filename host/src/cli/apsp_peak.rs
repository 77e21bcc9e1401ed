//! `host apsp-peak`: the int32 add-min ceiling that `host apsp` compares its compute rate with.
use anyhow::Result;
use clap::Args;
use host::{
    apsp::peak::{AddMinPeak, PEAK_ITERATIONS, addmin_peak},
    gpu::Gpu,
};

use super::PtxArg;

#[derive(Args)]
pub struct ApspPeakArgs {
    /// Timed launches (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 20, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Loop iterations per launch (32 add-mins per thread each).
    #[arg(long, default_value_t = PEAK_ITERATIONS, value_parser = super::at_least_one::<u32>)]
    pub iterations: u32,
    /// Print one JSON object (docs/json.md) instead of the text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

pub fn run(args: &ApspPeakArgs) -> Result<()> {
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let info = gpu.info()?;
    let peak = addmin_peak(&gpu, args.iterations, args.reps)?;
    if args.json {
        return super::json::print("apsp-peak", info.device(1), peak);
    }
    print_peak(&info.name, &peak);
    Ok(())
}

pub fn print_peak(device: &str, p: &AddMinPeak) {
    println!(
        "int32 add-min peak on {device}: {} blocks x {} threads, {} iterations x {} add-mins each",
        p.blocks,
        p.threads_per_block,
        p.iterations,
        gpu_kernels::apsp::PEAK_UPDATES_PER_ITERATION
    );
    println!(
        "  launch: median {:.3} ms (min {:.3}, max {:.3}, {} reps)",
        p.timing.median_ms, p.timing.min_ms, p.timing.max_ms, p.timing.reps
    );
    println!(
        "  {:.3e} updates/s = {:.1} per SM per clock at the rated {} MHz ({} SMs)",
        p.updates_per_s, p.per_sm_per_clock, p.clock_mhz, p.multiprocessors
    );
}
