//! `host tune`: sweeps the flagship SGEMM kernels on this GPU, one shape class at a time, and
//! writes the winners to the tuning cache that `sgemm` (and `host matmul`) then use.
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::Args;
use host::{
    gpu::Gpu,
    tune::{TuneOptions, steps_per_class, tune},
};
use rgk_core::{
    apsp::format::write_atomically,
    matmul::tune::{CACHE_ENV, ShapeClass, default_cache_path},
};

use super::{json, output::OutputFile, progress};

#[derive(Args)]
pub struct TuneArgs {
    /// Cache file to write (default: $RGK_SGEMM_TUNE, else
    /// $XDG_CACHE_HOME/rust-gpu-kernels/sgemm-tune.json, else
    /// ~/.cache/rust-gpu-kernels/sgemm-tune.json); replaced atomically if it exists.
    #[arg(short, long, visible_alias = "cache", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Shape classes to tune, separated by commas (small, medium, large, huge, short-k); the
    /// cache then holds only these.
    #[arg(long, value_delimiter = ',', value_parser = parse_class)]
    pub classes: Option<Vec<ShapeClass>>,
    /// Timed launches per candidate (front runners get three times as many).
    #[arg(long, default_value_t = 10, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object (docs/json.md) with the cache and every measurement instead of
    /// the table.
    #[arg(long)]
    pub json: bool,
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
    let path = match &args.output {
        Some(p) => p.clone(),
        None => default_cache_path().with_context(|| {
            format!(
                "no cache file to write: {CACHE_ENV} is \"off\" and no cache directory is known \
                 (set XDG_CACHE_HOME or HOME, or pass -o/--output FILE)"
            )
        })?,
    };
    let out = OutputFile::new(&path, &[])?;
    // The GPU first: without one, nothing is measured and nothing is written.
    let gpu = Gpu::new(None)?;
    let classes = args
        .classes
        .clone()
        .unwrap_or_else(|| ShapeClass::ALL.to_vec());
    let bar = progress::bar(steps_per_class() * classes.len() as u64);
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
    write_atomically(&path, |w| {
        Ok(w.write_all(report.cache.to_json().as_bytes())?)
    })?;
    out.wrote(&format!("{} shape classes", opts.classes.len()));
    if args.json {
        return json::print("tune", gpu.info()?.device(1), &report);
    } else {
        println!(
            "{} — {} classes in {:.1} s",
            report.cache.gpu,
            opts.classes.len(),
            report.cache.seconds
        );
        println!(
            "{:<8} {:<9} {:<16} {:<28} {:>5} {:<13} {:>9} {:>9} {:>7}",
            "class", "B copies", "shape", "winner", "group", "schedule", "GFLOP/s", "cuBLAS", "%"
        );
        for w in &report.cache.winners {
            let [m, n, k] = w.shape;
            let opt =
                |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
            println!(
                "{:<8} {:<9} {:<16} {:<28} {:>5} {:<13} {:>9.0} {:>9} {:>7}",
                w.class.name(),
                if w.vec_b { "16-byte" } else { "4-byte" },
                format!("{m}x{n}x{k}"),
                w.kernel,
                w.group,
                w.schedule.name(),
                w.gflops,
                opt(w.cublas_gflops, 0),
                opt(w.percent_of_cublas, 1)
            );
        }
    }
    Ok(())
}
