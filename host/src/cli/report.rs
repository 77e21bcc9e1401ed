//! `host report`: benchmark records (from `host bench` on the GPU machine) into charts and
//! markdown tables, here.
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::Args;
use rgk_core::apsp::format::write_atomically;
use rgk_report::{load_records, markdown, rebase_links, relative_to, render_charts};
use serde::Serialize;

use super::{json, output::OutputFile};

#[derive(Args)]
pub struct ReportArgs {
    /// Benchmark record files (JSON array or JSON Lines).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Directory for the PNG charts.
    #[arg(long, default_value = "docs/img")]
    pub charts: PathBuf,
    /// Markdown file to write (stdout if absent; never one of the inputs).
    #[arg(short, long, value_name = "FILE", alias = "markdown")]
    pub output: Option<PathBuf>,
    /// Markdown files appended verbatim (e.g. the ncu table from scripts/gpu-profile.sh).
    #[arg(long, value_name = "FILE")]
    pub include: Vec<PathBuf>,
    /// Print one JSON object (docs/json.md) naming what was written (the markdown itself
    /// when there is no -o/--output) instead of the markdown.
    #[arg(long)]
    pub json: bool,
}

/// What `report --json` prints as its results.
#[derive(Serialize)]
struct Summary {
    records: usize,
    charts: Vec<PathBuf>,
    output: Option<PathBuf>,
    /// The markdown, when it was not written to a file.
    markdown: Option<String>,
}

pub fn run(args: &ReportArgs) -> Result<()> {
    let inputs: Vec<&Path> = args
        .inputs
        .iter()
        .chain(&args.include)
        .map(PathBuf::as_path)
        .collect();
    let out = args
        .output
        .as_deref()
        .map(|p| OutputFile::new(p, &inputs))
        .transpose()?;
    let records = load_records(&args.inputs)?;
    if records.is_empty() {
        bail!("no records in {:?}", args.inputs);
    }
    let charts = render_charts(&records, &args.charts)?;
    // Image links relative to the markdown file's directory.
    let base = args
        .output
        .as_ref()
        .and_then(|m| m.parent().map(PathBuf::from))
        .unwrap_or_default();
    let links: Vec<(String, String)> = charts
        .iter()
        .map(|p| {
            let rel = relative_to(p, &base).display().to_string();
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
        let from = path.parent().unwrap_or(Path::new(""));
        md.push_str(&rebase_links(&text, from, &base));
    }
    if let Some(out) = &out {
        write_atomically(out.path(), |w| Ok(w.write_all(md.as_bytes())?))
            .with_context(|| format!("cannot write {}", out.path().display()))?;
        out.wrote(&format!(
            "{} records, {} chart(s) in {}",
            records.len(),
            charts.len(),
            args.charts.display()
        ));
    }
    if args.json {
        let summary = Summary {
            records: records.len(),
            charts,
            output: args.output.clone(),
            markdown: out.is_none().then_some(md),
        };
        return json::print("report", json::cpu_device(), summary);
    }
    if out.is_none() {
        print!("{md}");
        super::progress::note(&format!(
            "wrote {} chart(s) in {}",
            charts.len(),
            args.charts.display()
        ));
    }
    Ok(())
}
