//! `host report`: benchmark records (from `host bench` on the GPU machine) into charts and
//! markdown tables, here.
use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use clap::Args;
use rgk_core::report::{load_records, markdown, render_charts};

#[derive(Args)]
pub struct ReportArgs {
    /// Benchmark record files (JSON array or JSON Lines).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Directory for the PNG charts.
    #[arg(long, default_value = "docs/img")]
    pub charts: PathBuf,
    /// Markdown file to write (stdout if absent).
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Markdown files appended verbatim (e.g. the ncu table from scripts/gpu-profile.sh).
    #[arg(long, value_name = "FILE")]
    pub include: Vec<PathBuf>,
}

pub fn run(args: &ReportArgs) -> Result<()> {
    let records = load_records(&args.inputs)?;
    if records.is_empty() {
        bail!("no records in {:?}", args.inputs);
    }
    let charts = render_charts(&records, &args.charts)?;
    // Image links relative to the markdown file's directory.
    let base = args
        .markdown
        .as_ref()
        .and_then(|m| m.parent().map(PathBuf::from))
        .unwrap_or_default();
    let links: Vec<(String, String)> = charts
        .iter()
        .map(|p| {
            let rel = pathdiff(p, &base);
            (
                p.file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .replace('_', " "),
                rel,
            )
        })
        .collect();
    let mut md = markdown(&records, &links);
    for path in &args.include {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        md.push('\n');
        md.push_str(&text);
    }
    match &args.markdown {
        Some(path) => {
            std::fs::write(path, md).with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "wrote {} and {} chart(s) in {}",
                path.display(),
                charts.len(),
                args.charts.display()
            );
        }
        None => print!("{md}"),
    }
    Ok(())
}

/// `path` relative to `base` when it lies below it, else as given.
fn pathdiff(path: &std::path::Path, base: &std::path::Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}
