//! `host matmul-cpu`: the CPU SGEMM ladder of `rgk_core::matmul::cpu`, its progress bar and its
//! tables (rgk-core computes and returns rows; what is shown is decided here).
use anyhow::{Result, bail};
use clap::{
    Args,
    builder::{PossibleValuesParser, TypedValueParser},
};
use indicatif::ProgressBar;
use rgk_core::matmul::cpu::{self, LadderProgress, LadderRow, OnceRow, Variant, simd_backend};

use super::{json, progress};

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
    /// Timed runs per variant and size (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 3, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Seed of the random inputs (mixed with the size).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Run each variant exactly once: no warm-up, repeats or f64 check, so that a profiler
    /// around the process (valgrind) sees only the inputs and the variant.
    #[arg(long)]
    pub once: bool,
    /// With --once: make the inputs and run no variant, the baseline a profile subtracts.
    #[arg(long, requires = "once", conflicts_with = "variant")]
    pub inputs_only: bool,
    /// Print one JSON object (docs/json.md) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `--variant` takes the names of [`cpu::Variant`], so that clap lists them in `--help` and
/// rejects any other with exit status 2.
fn cpu_variant_parser() -> impl TypedValueParser<Value = cpu::Variant> {
    PossibleValuesParser::new(cpu::Variant::ALL.map(cpu::Variant::name))
        .try_map(|name| name.parse::<cpu::Variant>())
}

pub fn run(args: &MatmulCpuArgs) -> Result<()> {
    let mut sizes = args.sizes.clone().unwrap_or_else(|| vec![256, 512, 1024]);
    if args.large && !sizes.contains(&2048) {
        sizes.push(2048);
    }
    if let Some(bad) = sizes.iter().find(|&&s| s == 0 || s > 8192) {
        bail!("size {bad} is out of range for the CPU ladder (1..=8192)");
    }
    let only = if args.inputs_only {
        Some(&[][..])
    } else {
        args.variant.as_deref()
    };
    if args.once {
        let rows = cpu::run_once(only, &sizes, args.seed);
        if args.json {
            return json::print("matmul-cpu", json::cpu_device(), &rows);
        }
        print_once(&rows);
        return Ok(());
    }
    let bar = progress::bar(0);
    let rows = cpu::run_ladder(only, &sizes, args.reps, args.seed, &mut |p| show(&bar, p));
    bar.finish_and_clear();
    let rows = rows?;
    if args.json {
        json::print("matmul-cpu", json::cpu_device(), &rows)?;
    } else {
        print_ladder(&rows);
    }
    Ok(())
}

/// The ladder's progress on `bar`: its length, what it is doing, one tick per step.
fn show(bar: &ProgressBar, p: LadderProgress) {
    match p {
        LadderProgress::Steps(n) => bar.set_length(n as u64),
        LadderProgress::Reference { size } => {
            bar.set_message(format!("size {size}: inputs and f64 reference"))
        }
        LadderProgress::Timing { size, variant } => {
            bar.set_message(format!("size {size}: {variant}"))
        }
        LadderProgress::StepDone => bar.inc(1),
    }
}

/// Prints one line per (size, variant): median time, GFLOP/s, speed-up over `naive_ijk` of the
/// same size (over `reorder_ikj` where naive was not run, marked `*`), max scaled error.
fn print_ladder(rows: &[LadderRow]) {
    println!("CPU SGEMM ladder (simd micro-kernel: {})", simd_backend());
    println!(
        "{:>6}  {:<16} {:>12} {:>10} {:>10}  {:>10}",
        "size", "variant", "median ms", "GFLOP/s", "speed-up", "max err"
    );
    let mut used_reorder = false;
    for row in rows {
        let same = |v: Variant| {
            rows.iter()
                .find(|r| r.size == row.size && r.variant == v)
                .map(|r| r.median_s)
        };
        let speedup = match (same(Variant::NaiveIjk), same(Variant::ReorderIkj)) {
            (Some(base), _) => format!("{:.1}x", base / row.median_s),
            (None, Some(base)) => {
                used_reorder = true;
                format!("{:.1}x*", base / row.median_s)
            }
            (None, None) => "-".to_string(),
        };
        println!(
            "{:>6}  {:<16} {:>12.3} {:>10.2} {:>10}  {:>10.3e}",
            row.size,
            row.variant.name(),
            row.median_s * 1e3,
            row.gflops,
            speedup,
            row.max_scaled_error
        );
    }
    if used_reorder {
        println!("* no naive_ijk at this size: speed-up over reorder_ikj");
    }
}

/// Prints one line per run of `cpu::run_once`.
fn print_once(rows: &[OnceRow]) {
    println!(
        "CPU SGEMM, one unchecked run each (simd micro-kernel: {})",
        simd_backend()
    );
    println!(
        "{:>6}  {:<16} {:>12} {:>10}",
        "size", "variant", "ms", "GFLOP/s"
    );
    for row in rows {
        println!(
            "{:>6}  {:<16} {:>12.3} {:>10.2}",
            row.size,
            row.variant.name(),
            row.seconds * 1e3,
            row.gflops
        );
    }
}
