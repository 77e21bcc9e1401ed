//! `host tune`: sweeps the flagship SGEMM kernels on this GPU, one shape class at a time, and
//! writes the winners to the tuning cache that `sgemm` (and `host matmul`) then use.
use std::{io::IsTerminal as _, path::PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::Args;
use host::{
    gpu::Gpu,
    matmul::tune::{TuneOptions, steps_per_class, tune},
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rgk_core::matmul::tune::{CACHE_ENV, ShapeClass, default_cache_path};

#[derive(Args)]
pub struct TuneArgs {
    /// Cache file to write (default: $RGK_SGEMM_TUNE, else
    /// $XDG_CACHE_HOME/rust-gpu-kernels/sgemm-tune.json, else
    /// ~/.cache/rust-gpu-kernels/sgemm-tune.json).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Shape classes to tune, separated by commas (small, medium, large, huge, short-k); the
    /// cache then holds only these.
    #[arg(long, value_delimiter = ',', value_parser = parse_class)]
    pub classes: Option<Vec<ShapeClass>>,
    /// Timed launches per candidate (front runners get three times as many).
    #[arg(long, default_value_t = 10)]
    pub reps: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the cache and every measurement as one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no table (errors and the JSON of --json still go out).
    #[arg(long)]
    pub quiet: bool,
}

fn parse_class(s: &str) -> Result<ShapeClass, String> {
    ShapeClass::ALL
        .into_iter()
        .find(|c| c.name() == s)
        .ok_or_else(|| {
            let names: Vec<_> = ShapeClass::ALL.iter().map(|c| c.name()).collect();
            format!("unknown shape class {s:?}; known: {}", names.join(", "))
        })
}

pub fn run(args: &TuneArgs) -> Result<()> {
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let path = match &args.cache {
        Some(p) => p.clone(),
        None => default_cache_path().with_context(|| {
            format!(
                "no cache file to write: {CACHE_ENV} is \"off\" and no cache directory is known \
                 (set XDG_CACHE_HOME or HOME, or pass --cache FILE)"
            )
        })?,
    };
    // The GPU first: without one, nothing is measured and nothing is written.
    let gpu = Gpu::new(None)?;
    let classes = args
        .classes
        .clone()
        .unwrap_or_else(|| ShapeClass::ALL.to_vec());
    let bar = ProgressBar::new(steps_per_class() * classes.len() as u64);
    if args.quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("tuning {bar:40} {pos}/{len} {msg} [{elapsed}]")
            .expect("valid template"),
    );
    let opts = TuneOptions {
        classes,
        reps: args.reps,
        seed: args.seed,
    };
    let report = tune(&gpu, &opts, &bar)?;
    bar.finish_and_clear();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // Written whole to a temporary file and renamed, so a reader never sees half a cache.
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, report.cache.to_json())
        .and_then(|()| std::fs::rename(&tmp, &path))
        .with_context(|| format!("writing {}", path.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if !args.quiet {
        println!(
            "{} — {} classes in {:.1} s, written to {}",
            report.cache.gpu,
            opts.classes.len(),
            report.cache.seconds,
            path.display()
        );
        println!(
            "{:<8} {:<9} {:<16} {:<28} {:>5} {:>9} {:>9} {:>7}",
            "class", "B copies", "shape", "winner", "group", "GFLOP/s", "cuBLAS", "%"
        );
        for w in &report.cache.winners {
            let [m, n, k] = w.shape;
            let opt =
                |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
            println!(
                "{:<8} {:<9} {:<16} {:<28} {:>5} {:>9.0} {:>9} {:>7}",
                w.class.name(),
                if w.vec_b { "16-byte" } else { "4-byte" },
                format!("{m}x{n}x{k}"),
                w.kernel,
                w.group,
                w.gflops,
                opt(w.cublas_gflops, 0),
                opt(w.percent_of_cublas, 1)
            );
        }
    }
    Ok(())
}
