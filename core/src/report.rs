//! Benchmark report: loads the `BenchRecord`s that `host bench` writes on the GPU machine and
//! renders them into PNG charts (`plotters`, bitmap backend) and Markdown tables for the docs.
//!
//! Where several records share a configuration (kernel, config, size, threads per block) on one
//! device, only the one with the latest date is shown, so re-runs replace older numbers. Charts
//! show one device per suite: the one with the most recent record, named in the title.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::bench::BenchRecord;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 800;
const FONT: &str = "sans-serif";

/// Reads records from JSON files: each file holds either one JSON array of records or JSON Lines
/// (one record per line).
pub fn load_records(paths: &[PathBuf]) -> Result<Vec<BenchRecord>> {
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read benchmark records from {}", path.display()))?;
        let records = parse_records(&text)
            .with_context(|| format!("malformed benchmark records in {}", path.display()))?;
        out.extend(records);
    }
    Ok(out)
}

fn parse_records(text: &str) -> Result<Vec<BenchRecord>> {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(text).context("not a JSON array of benchmark records");
    }
    // A stream parser takes JSON Lines and also pretty-printed objects one after another; its
    // errors carry line and column.
    serde_json::Deserializer::from_str(text)
        .into_iter::<BenchRecord>()
        .enumerate()
        .map(|(i, r)| r.with_context(|| format!("record {} (JSON Lines)", i + 1)))
        .collect()
}

/// Renders the charts into out_dir (created if missing) and returns their paths. Skips a chart
/// whose suite has no records.
pub fn render_charts(records: &[BenchRecord], out_dir: &Path) -> Result<Vec<PathBuf>> {
    let matmul = chart_records(records, "matmul");
    let threads = chart_records(records, "threads");
    let apsp = chart_records(records, "apsp");
    let apsp_split: Vec<&BenchRecord> = apsp
        .1
        .iter()
        .copied()
        .filter(|r| r.split.is_some())
        .collect();
    let apsp_rate: Vec<&BenchRecord> = apsp
        .1
        .iter()
        .copied()
        .filter(|r| r.updates_per_s.is_some_and(f64::is_finite) && r.size > 0)
        .collect();

    type Draw = fn(&[&BenchRecord], &str, &Path) -> Result<()>;
    let jobs: [(&str, &str, &[&BenchRecord], Draw); 4] = [
        ("matmul_gflops.png", &matmul.0, &matmul.1, draw_matmul),
        (
            "occupancy_performance.png",
            &threads.0,
            &threads.1,
            draw_threads,
        ),
        ("apsp_split.png", &apsp.0, &apsp_split, draw_apsp_split),
        ("apsp_rate.png", &apsp.0, &apsp_rate, draw_apsp_rate),
    ];
    let mut out = Vec::new();
    if jobs.iter().all(|j| j.2.is_empty()) {
        return Ok(out);
    }
    ensure_font()?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create chart directory {}", out_dir.display()))?;
    for (name, device, recs, draw) in jobs {
        if recs.is_empty() {
            continue;
        }
        let path = out_dir.join(name);
        draw(recs, device, &path).with_context(|| format!("cannot render {}", path.display()))?;
        out.push(path);
    }
    Ok(out)
}

/// A title for a chart file written by `render_charts` (for the `charts` argument of
/// `markdown`).
pub fn chart_title(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    match name {
        "matmul_gflops.png" => "SGEMM throughput vs N".into(),
        "occupancy_performance.png" => "Performance vs threads per block and occupancy".into(),
        "apsp_split.png" => "APSP time split vs V".into(),
        "apsp_rate.png" => "APSP updates per second vs V".into(),
        _ => name.trim_end_matches(".png").replace('_', " "),
    }
}

/// Markdown: one section per suite with tables (numbers formatted sensibly), each naming device,
/// date and commit(s) of its records; image links to the charts given as (title, relative path).
pub fn markdown(records: &[BenchRecord], charts: &[(String, String)]) -> String {
    let mut out = String::from("# Benchmark results\n\n");
    let mut suites: Vec<&str> = records.iter().map(|r| r.suite.as_str()).collect();
    suites.sort_by_key(|s| (suite_rank(s), *s));
    suites.dedup();
    if suites.is_empty() {
        out.push_str("No benchmark records.\n\n");
    }
    let mut chart_used = vec![false; charts.len()];
    for suite in suites {
        let _ = writeln!(out, "## {}\n", suite_title(suite));
        if let Some(blurb) = suite_blurb(suite) {
            let _ = writeln!(out, "{blurb}\n");
        }
        for (i, (title, path)) in charts.iter().enumerate() {
            if chart_suite(path) == Some(suite) {
                let _ = writeln!(out, "![{title}]({path})\n");
                chart_used[i] = true;
            }
        }
        let mut by_device: BTreeMap<&str, Vec<&BenchRecord>> = BTreeMap::new();
        for r in records.iter().filter(|r| r.suite == suite) {
            by_device.entry(r.device.as_str()).or_default().push(r);
        }
        let several = by_device.len() > 1;
        for (device, recs) in by_device {
            let recs = latest(recs);
            if several {
                let _ = writeln!(out, "### {device}\n");
            }
            let _ = writeln!(out, "{}\n", provenance(device, &recs));
            let table = match suite {
                "matmul" => matmul_table(&recs),
                "threads" => threads_table(&recs),
                "apsp" => apsp_table(&recs),
                _ => generic_table(&recs),
            };
            out.push_str(&table);
            out.push('\n');
        }
    }
    let rest: Vec<_> = charts
        .iter()
        .zip(&chart_used)
        .filter(|(_, used)| !**used)
        .collect();
    if !rest.is_empty() {
        out.push_str("## Charts\n\n");
        for ((title, path), _) in rest {
            let _ = writeln!(out, "![{title}]({path})\n");
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Record selection

/// Records of one suite for one chart: the device with the most recent record, deduplicated.
fn chart_records<'a>(records: &'a [BenchRecord], suite: &str) -> (String, Vec<&'a BenchRecord>) {
    let in_suite = records.iter().filter(|r| r.suite == suite);
    // Mixing devices on one chart would compare unlike things.
    let Some(newest) = in_suite.clone().max_by(|a, b| a.date.cmp(&b.date)) else {
        return (String::new(), Vec::new());
    };
    let device = newest.device.clone();
    let recs = latest(in_suite.filter(|r| r.device == device).collect());
    (device, recs)
}

/// One record per (kernel, config, size, threads per block): the latest by date, later input
/// winning ties. Sorted by that key.
fn latest(records: Vec<&BenchRecord>) -> Vec<&BenchRecord> {
    let mut map: BTreeMap<(&str, &str, usize, u32), &BenchRecord> = BTreeMap::new();
    for r in records {
        let key = (
            r.kernel.as_str(),
            r.config.as_str(),
            r.size,
            r.threads_per_block,
        );
        match map.get(&key) {
            Some(old) if old.date > r.date => {}
            _ => {
                map.insert(key, r);
            }
        }
    }
    map.into_values().collect()
}

fn is_cublas(kernel: &str) -> bool {
    kernel == "cublas_sgemm"
}

/// Kernel family for the "threads" suite and the unit it is measured in.
fn family(kernel: &str) -> (&str, &'static str) {
    if kernel.starts_with("matmul_tiled") {
        ("matmul_tiled", "GFLOP/s")
    } else if kernel.starts_with("fw_phase3") || kernel.starts_with("fwt_phase3") {
        // B = 64 runs the register-tiled `fwt_` kernels; one family for every block factor.
        ("fw_phase3", "updates/s")
    } else {
        (kernel, "")
    }
}

/// The performance number of a "threads" record in its family's unit.
fn family_metric(r: &BenchRecord) -> Option<f64> {
    let v = match family(&r.kernel).1 {
        "GFLOP/s" => r.gflops,
        "updates/s" => r.updates_per_s,
        _ => r.gflops.or(r.updates_per_s),
    };
    v.filter(|v| v.is_finite())
}

/// GFLOP/s of a square SGEMM record, derived from the median time when not recorded.
fn matmul_gflops(r: &BenchRecord) -> Option<f64> {
    r.gflops.or_else(|| {
        let n = r.size as f64;
        (r.median_ms > 0.0).then(|| 2.0 * n * n * n / (r.median_ms * 1e-3) / 1e9)
    })
}

/// Block factor of "fw_b32" etc., for ordering.
fn block_factor(kernel: &str) -> u32 {
    let digits: String = kernel
        .rsplit('b')
        .next()
        .unwrap_or_default()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(u32::MAX)
}

/// Series label per record: the kernel, plus its config when a kernel has several.
fn series_labels(recs: &[&BenchRecord]) -> Vec<String> {
    let mut configs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in recs {
        configs.entry(&r.kernel).or_default().insert(&r.config);
    }
    recs.iter()
        .map(|r| {
            if configs[r.kernel.as_str()].len() > 1 {
                format!("{} ({})", r.kernel, r.config)
            } else {
                r.kernel.clone()
            }
        })
        .collect()
}

/// "threads" records grouped into normalisation series: (record index, metric) per series.
fn threads_series(recs: &[&BenchRecord]) -> BTreeMap<String, Vec<(usize, f64)>> {
    let mut sizes: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for r in recs {
        sizes.entry(family(&r.kernel).0).or_default().insert(r.size);
    }
    let mut series: BTreeMap<String, Vec<(usize, f64)>> = BTreeMap::new();
    for (i, r) in recs.iter().enumerate() {
        let Some(v) = family_metric(r) else { continue };
        let fam = family(&r.kernel).0;
        // Normalising across problem sizes would mix unlike runs.
        let key = if sizes[fam].len() > 1 {
            format!("{fam}, N={}", r.size)
        } else {
            fam.to_string()
        };
        series.entry(key).or_default().push((i, v));
    }
    series
}

// ---------------------------------------------------------------------------------------------
// Fonts

const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/google-noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/gnu-free/FreeSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Registers a TTF font as "sans-serif" once: the `ab_glyph` backend ships no font and we avoid
/// font-kit's fontconfig dependency.
fn ensure_font() -> Result<()> {
    static FONT_STATE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match FONT_STATE.get_or_init(load_font) {
        Ok(_) => Ok(()),
        Err(e) => Err(anyhow!("{e}")),
    }
}

fn load_font() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("REPORT_FONT").map(PathBuf::from) {
        return std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(register)
            .map(|()| path.clone())
            .map_err(|e| {
                format!(
                    "REPORT_FONT={}: {e} (point it at a .ttf file, or unset it to use a system \
                     font such as Debian's fonts-dejavu-core)",
                    path.display()
                )
            });
    }
    let mut problems = Vec::new();
    for candidate in FONT_CANDIDATES {
        let path = Path::new(candidate);
        if let Ok(bytes) = std::fs::read(path) {
            match register(bytes) {
                Ok(()) => return Ok(path.to_path_buf()),
                Err(e) => problems.push(format!("{candidate}: {e}")),
            }
        }
    }
    let mut msg = format!(
        "no TrueType font found for chart text (looked for {}); install one (Debian/Ubuntu: \
         apt-get install fonts-dejavu-core) or set REPORT_FONT to a .ttf file",
        FONT_CANDIDATES.join(", ")
    );
    if !problems.is_empty() {
        let _ = write!(msg, "; unusable: {}", problems.join("; "));
    }
    Err(msg)
}

fn register(bytes: Vec<u8>) -> Result<(), String> {
    // plotters keeps &'static font data; this happens once per process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font(FONT, FontStyle::Normal, bytes)
        .map_err(|_| "not a valid TrueType/OpenType font".to_string())
}

// ---------------------------------------------------------------------------------------------
// Charts

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn font(size: u32) -> TextStyle<'static> {
    (FONT, size).into_font().into()
}

/// A linear f64 axis with ticks only where given: plotters' `with_key_points` on f64 loses the
/// value formatter that `configure_mesh` needs.
#[derive(Clone)]
struct TickAxis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for TickAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A log2 axis over positive values: the range in log2 units; ticks at the data values and, when
/// those are few, at the powers of two between them, none closer than a quarter octave.
fn log2_axis(values: impl Iterator<Item = f64>) -> TickAxis {
    let mut logs: Vec<f64> = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .map(f64::log2)
        .collect();
    logs.sort_by(f64::total_cmp);
    logs.dedup();
    let (Some(&lo), Some(&hi)) = (logs.first(), logs.last()) else {
        return TickAxis {
            range: 0.0..1.0,
            ticks: vec![],
        };
    };
    let is_pow2 = |l: f64| (l - l.round()).abs() < 1e-9;
    let (pow2, other): (Vec<f64>, Vec<f64>) = logs.iter().partition(|&&l| is_pow2(l));
    let mut ticks: Vec<f64> = Vec::new();
    let accept = |ticks: &mut Vec<f64>, l: f64| {
        if ticks.iter().all(|t| (t - l).abs() >= 0.25) {
            ticks.push(l);
        }
    };
    for l in pow2.into_iter().chain(other) {
        accept(&mut ticks, l);
    }
    if ticks.len() < 4 {
        for k in lo.ceil() as i64..=hi.floor() as i64 {
            accept(&mut ticks, k as f64);
        }
    }
    ticks.sort_by(f64::total_cmp);
    while ticks.len() > 14 {
        ticks = ticks.into_iter().step_by(2).collect();
    }
    let pad = ((hi - lo) * 0.04).max(0.25);
    TickAxis {
        range: lo - pad..hi + pad,
        ticks,
    }
}

fn pow2_label(x: &f64) -> String {
    format!("{}", 2f64.powf(*x).round())
}

fn y_max(values: impl Iterator<Item = f64>) -> f64 {
    let m = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
    if m > 0.0 { m * 1.12 } else { 1.0 }
}

/// One series of a line chart: (log2 x, y) points; `highlight` draws it thick and black.
struct Line {
    label: String,
    points: Vec<(f64, f64)>,
    highlight: bool,
}

/// The corner of the plot that the lines cross least, for the legend box.
fn emptiest_corner<'a>(
    x: &Range<f64>,
    ymax: f64,
    entries: usize,
    series: impl Iterator<Item = &'a [(f64, f64)]>,
) -> SeriesLabelPosition {
    // The legend's rough share of the plot: wide enough for a kernel name, one row per entry.
    let (w, h) = (0.32, (0.05 * entries as f64 + 0.03).min(0.9));
    let norm = |p: (f64, f64)| ((p.0 - x.start) / (x.end - x.start), p.1 / ymax);
    let mut samples = Vec::new();
    for pts in series {
        let mut pts = pts.to_vec();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        samples.extend(pts.iter().map(|&p| norm(p)));
        for pair in pts.windows(2) {
            let (a, b) = (norm(pair[0]), norm(pair[1]));
            samples.extend((1..16).map(|i| {
                let t = f64::from(i) / 16.0;
                (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
            }));
        }
    }
    let corners = [
        (SeriesLabelPosition::UpperLeft, (0.0, 1.0 - h), (w, 1.0)),
        (
            SeriesLabelPosition::UpperRight,
            (1.0 - w, 1.0 - h),
            (1.0, 1.0),
        ),
        (SeriesLabelPosition::LowerRight, (1.0 - w, 0.0), (1.0, h)),
        (SeriesLabelPosition::LowerLeft, (0.0, 0.0), (w, h)),
    ];
    corners
        .into_iter()
        .min_by_key(|(_, lo, hi)| {
            samples
                .iter()
                .filter(|p| p.0 >= lo.0 && p.0 <= hi.0 && p.1 >= lo.1 && p.1 <= hi.1)
                .count()
        })
        .map(|c| c.0)
        .unwrap_or(SeriesLabelPosition::UpperLeft)
}

fn line_chart(
    path: &Path,
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Line],
    y_fmt: &dyn Fn(&f64) -> String,
) -> Result<()> {
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let x_axis = log2_axis(
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| 2f64.powf(p.0))),
    );
    let x_axis_range = x_axis.range.clone();
    let ymax = y_max(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, font(28))
        .margin(20)
        .x_label_area_size(60)
        .y_label_area_size(100)
        .build_cartesian_2d(x_axis, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&pow2_label)
        .y_label_formatter(y_fmt)
        .label_style(font(18))
        .axis_desc_style(font(20))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let mut idx = 0;
    for Line {
        label,
        points,
        highlight,
    } in series
    {
        let style = if *highlight {
            BLACK.stroke_width(4)
        } else {
            idx += 1;
            color(idx - 1).stroke_width(2)
        };
        let mut pts = points.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), style))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
        let r = if *highlight { 5 } else { 4 };
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, r, style.filled())))?;
    }
    let corner = emptiest_corner(
        &x_axis_range,
        ymax,
        series.len(),
        series.iter().map(|s| &s.points[..]),
    );
    chart
        .configure_series_labels()
        .position(corner)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(font(17))
        .draw()?;
    root.present()?;
    Ok(())
}

fn draw_matmul(recs: &[&BenchRecord], device: &str, path: &Path) -> Result<()> {
    let labels = series_labels(recs);
    let mut by_label: BTreeMap<(bool, String), Vec<(f64, f64)>> = BTreeMap::new();
    for (r, label) in recs.iter().zip(labels) {
        let Some(g) = matmul_gflops(r).filter(|g| g.is_finite()) else {
            continue;
        };
        if r.size == 0 {
            continue;
        }
        // cuBLAS first: drawn under the kernels and listed first in the legend.
        by_label
            .entry((!is_cublas(&r.kernel), label))
            .or_default()
            .push(((r.size as f64).log2(), g));
    }
    let series: Vec<_> = by_label
        .into_iter()
        .map(|((not_cublas, label), pts)| {
            let label = if not_cublas {
                label
            } else {
                format!("{label} (cuBLAS)")
            };
            Line {
                label,
                points: pts,
                highlight: !not_cublas,
            }
        })
        .collect();
    line_chart(
        path,
        &format!("SGEMM throughput, square N×N — {device}"),
        "N (log2 scale)",
        "GFLOP/s",
        &series,
        &|y| fmt_tick(*y),
    )
}

fn draw_apsp_rate(recs: &[&BenchRecord], device: &str, path: &Path) -> Result<()> {
    let labels = series_labels(recs);
    let mut by_label: BTreeMap<(u32, String), Vec<(f64, f64)>> = BTreeMap::new();
    for (r, label) in recs.iter().zip(labels) {
        if let Some(u) = r.updates_per_s {
            by_label
                .entry((block_factor(&r.kernel), label))
                .or_default()
                .push(((r.size as f64).log2(), u));
        }
    }
    let series: Vec<_> = by_label
        .into_iter()
        .map(|((_, label), points)| Line {
            label,
            points,
            highlight: false,
        })
        .collect();
    line_chart(
        path,
        &format!("APSP (blocked Floyd–Warshall) rate — {device}"),
        "V (vertices, log2 scale)",
        "updates per second (V³ / compute time)",
        &series,
        &|y| fmt_si_tick(*y),
    )
}

/// A legend strip drawn by hand below the panels so it never covers data.
fn legend_strip(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    entries: &[(String, RGBColor, bool)],
) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let style = font(17).pos(Pos::new(HPos::Left, VPos::Center));
    let widths: Vec<i32> = entries
        .iter()
        .map(|(label, _, _)| {
            area.estimate_text_size(label, &style)
                .map(|(tw, _)| tw as i32 + 50)
        })
        .collect::<Result<_, _>>()?;
    let total: i32 = widths.iter().sum();
    let mut x = ((w as i32 - total) / 2).max(10);
    let y = h as i32 / 2;
    for ((label, c, square), width) in entries.iter().zip(widths) {
        if *square {
            area.draw(&Rectangle::new([(x, y - 9), (x + 18, y + 9)], c.filled()))?;
        } else {
            area.draw(&Circle::new((x + 9, y), 7, c.filled()))?;
        }
        area.draw(&Text::new(label.clone(), (x + 26, y), style.clone()))?;
        x += width;
    }
    Ok(())
}

fn draw_threads(recs: &[&BenchRecord], device: &str, path: &Path) -> Result<()> {
    let series = threads_series(recs);
    // (series index, threads per block, occupancy, normalised performance, kernel)
    let mut points: Vec<(usize, u32, Option<f64>, f64, &str)> = Vec::new();
    let mut legend = Vec::new();
    for (si, (name, members)) in series.iter().enumerate() {
        let best = members.iter().map(|m| m.1).fold(0.0, f64::max);
        let unit = family(&recs[members[0].0].kernel).1;
        let best_txt = if unit == "updates/s" {
            fmt_si(best)
        } else {
            fmt_num(best)
        };
        legend.push((
            format!("{name} (1.0 = {best_txt} {unit})"),
            color(si),
            false,
        ));
        for &(i, v) in members {
            let r = recs[i];
            let norm = if best > 0.0 { v / best } else { 0.0 };
            let occ = r.occupancy.filter(|o| o.is_finite());
            points.push((si, r.threads_per_block, occ, norm, &r.kernel));
        }
    }

    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root.margin(12, 0, 0, 0).titled(
        &format!("Performance vs threads per block and occupancy — {device}"),
        font(28),
    )?;
    let (panels, strip) = body.split_vertically(HEIGHT - 110);
    let (left, right) = panels.split_horizontally(WIDTH / 2);

    let tpb_points: Vec<_> = points
        .iter()
        .filter(|p| p.1 > 0)
        .map(|p| ((f64::from(p.1).log2(), p.3), color(p.0), p.4))
        .collect();
    scatter_panel(
        &left,
        log2_axis(points.iter().map(|p| f64::from(p.1))),
        "threads per block (log2 scale)",
        &pow2_label,
        &tpb_points,
    )?;
    let occ_points: Vec<_> = points
        .iter()
        .filter_map(|p| Some(((p.2?, p.3), color(p.0), p.4)))
        .collect();
    let occ_axis = TickAxis {
        range: 0.0..1.08,
        ticks: (0..=10).map(|i| f64::from(i) / 10.0).collect(),
    };
    scatter_panel(
        &right,
        occ_axis,
        "theoretical occupancy",
        &|x| format!("{:.0}%", x * 100.0),
        &occ_points,
    )?;

    legend_strip(&strip, &legend)?;
    root.present()?;
    Ok(())
}

/// One panel of the occupancy chart: normalised performance against `x_axis`, each point
/// labelled with its kernel where a label fits without covering another.
fn scatter_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    x_axis: TickAxis,
    x_desc: &str,
    x_fmt: &dyn Fn(&f64) -> String,
    points: &[((f64, f64), RGBColor, &str)],
) -> Result<()> {
    let mut chart = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(55)
        .y_label_area_size(70)
        .build_cartesian_2d(x_axis, 0f64..1.15)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("performance / best of its family (1.0 = best)")
        .x_label_formatter(x_fmt)
        .y_label_formatter(&|y| fmt_tick(*y))
        .label_style(font(16))
        .axis_desc_style(font(17))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;

    let style = font(13);
    let plot = chart.plotting_area();
    let (xr, yr) = plot.get_pixel_range();
    let centres: Vec<(i32, i32)> = points.iter().map(|p| chart.backend_coord(&p.0)).collect();
    // Markers count as occupied so that labels do not hide them.
    let mut taken: Vec<[i32; 4]> = centres
        .iter()
        .map(|&(x, y)| [x - 7, y - 7, x + 7, y + 7])
        .collect();
    let mut offsets = Vec::with_capacity(points.len());
    for (p, &(px, py)) in points.iter().zip(&centres) {
        let (w, h) = plot.estimate_text_size(p.2, &style)?;
        let (w, h) = (w as i32, h as i32);
        let candidates = [
            (9, -h - 2),
            (9, 2),
            (-9 - w, -h - 2),
            (-9 - w, 2),
            (-w / 2, -h - 9),
            (-w / 2, 9),
        ];
        let rect = |(dx, dy): (i32, i32)| [px + dx, py + dy, px + dx + w, py + dy + h];
        let inside =
            |r: &[i32; 4]| r[0] >= xr.start && r[2] <= xr.end && r[1] >= yr.start && r[3] <= yr.end;
        let free = |r: &[i32; 4]| {
            !taken
                .iter()
                .any(|q| r[0] < q[2] && q[0] < r[2] && r[1] < q[3] && q[1] < r[3])
        };
        let chosen = candidates
            .iter()
            .copied()
            .find(|&c| inside(&rect(c)) && free(&rect(c)))
            .or_else(|| candidates.iter().copied().find(|&c| inside(&rect(c))));
        if let Some(c) = chosen {
            taken.push(rect(c));
        }
        offsets.push(chosen);
    }

    chart.draw_series(points.iter().map(|p| Circle::new(p.0, 6, p.1.filled())))?;
    chart.draw_series(points.iter().zip(offsets).filter_map(|(p, off)| {
        let off = off?;
        Some(EmptyElement::at(p.0) + Text::new(p.2.to_string(), off, style.clone()))
    }))?;
    Ok(())
}

const STAGES: [&str; 6] = ["read", "fill", "H2D", "compute", "D2H", "write"];
const STAGE_COLORS: [RGBColor; 6] = [
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(23, 190, 207),
    RGBColor(148, 103, 189),
];

fn stages(r: &BenchRecord) -> [f64; 6] {
    let s = r.split.unwrap_or_default();
    [
        s.read_s,
        s.fill_s,
        s.host_to_device_s,
        s.compute_s,
        s.device_to_host_s,
        s.write_s,
    ]
    .map(|v| if v.is_finite() && v > 0.0 { v } else { 0.0 })
}

fn draw_apsp_split(recs: &[&BenchRecord], device: &str, path: &Path) -> Result<()> {
    let mut kernels: Vec<&str> = recs.iter().map(|r| r.kernel.as_str()).collect();
    kernels.sort_by_key(|k| (block_factor(k), *k));
    kernels.dedup();
    let sizes: Vec<usize> = recs
        .iter()
        .map(|r| r.size)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let nk = kernels.len();
    // One bar per (V, kernel); bars of one V side by side, a gap between groups.
    let mut bars: Vec<(f64, &str, [f64; 6])> = Vec::new();
    for r in recs {
        let g = sizes.iter().position(|&s| s == r.size).unwrap_or(0);
        let k = kernels.iter().position(|&k| k == r.kernel).unwrap_or(0);
        let slot = (g * (nk + 1) + k) as f64;
        let short = r.kernel.strip_prefix("fw_").unwrap_or(&r.kernel);
        bars.push((slot, short, stages(r)));
    }
    let centres: Vec<(f64, String)> = sizes
        .iter()
        .enumerate()
        .map(|(g, v)| {
            (
                (g * (nk + 1)) as f64 + (nk as f64 - 1.0) / 2.0,
                format!("V = {v}"),
            )
        })
        .collect();
    let x_axis = TickAxis {
        range: -0.7..(sizes.len() * (nk + 1)) as f64 - 1.3,
        ticks: centres.iter().map(|c| c.0).collect(),
    };
    let x_fmt = |x: &f64| {
        centres
            .iter()
            .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
            .map(|c| c.1.clone())
            .unwrap_or_default()
    };

    let max_total = bars
        .iter()
        .map(|b| b.2.iter().sum::<f64>())
        .fold(0.0, f64::max);
    let (scale, unit) = if max_total < 1.0 {
        (1e3, "ms")
    } else {
        (1.0, "s")
    };

    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root.margin(12, 0, 0, 0).titled(
        &format!("APSP time split, file to file, per block factor — {device}"),
        font(28),
    )?;
    let (panels, strip) = body.split_vertically(HEIGHT - 100);
    let (upper, lower) = panels.split_vertically((HEIGHT - 100) / 2);
    let bar_label = font(14).pos(Pos::new(HPos::Center, VPos::Bottom));

    for (panel, share) in [(&upper, false), (&lower, true)] {
        let ymax = if share {
            1.12
        } else {
            y_max(std::iter::once(max_total * scale)) * 1.05
        };
        let mut chart = ChartBuilder::on(panel)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d(x_axis.clone(), 0f64..ymax)?;
        let y_desc = if share {
            "share of total".to_string()
        } else {
            format!("time ({unit})")
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc(y_desc)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|y| {
                if share {
                    format!("{:.0}%", y * 100.0)
                } else {
                    fmt_tick(*y)
                }
            })
            .label_style(font(16))
            .axis_desc_style(font(17))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (slot, short, parts) in &bars {
            let total: f64 = parts.iter().sum();
            let factor = if share {
                if total > 0.0 { 1.0 / total } else { 0.0 }
            } else {
                scale
            };
            let mut y0 = 0.0;
            for (j, part) in parts.iter().enumerate() {
                let y1 = y0 + part * factor;
                if y1 > y0 {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(slot - 0.4, y0), (slot + 0.4, y1)],
                        STAGE_COLORS[j].filled(),
                    )))?;
                }
                y0 = y1;
            }
            chart.draw_series(std::iter::once(Text::new(
                short.to_string(),
                (*slot, y0 + ymax * 0.01),
                bar_label.clone(),
            )))?;
        }
    }

    let legend: Vec<_> = STAGES
        .iter()
        .zip(STAGE_COLORS)
        .map(|(s, c)| (s.to_string(), c, true))
        .collect();
    legend_strip(&strip, &legend)?;
    root.present()?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Markdown

fn suite_rank(suite: &str) -> u8 {
    match suite {
        "matmul" => 0,
        "threads" => 1,
        "apsp" => 2,
        _ => 3,
    }
}

fn suite_title(suite: &str) -> String {
    match suite {
        "matmul" => "SGEMM (suite `matmul`)".into(),
        "threads" => "Threads per block and occupancy (suite `threads`)".into(),
        "apsp" => "All-pairs shortest paths (suite `apsp`)".into(),
        other => format!("Suite `{other}`"),
    }
}

fn suite_blurb(suite: &str) -> Option<&'static str> {
    match suite {
        "matmul" => Some(
            "Square N×N single-precision matrix multiply; GFLOP/s = 2N³ / median time. \
             \"vs cuBLAS\" is the throughput relative to `cublas_sgemm` at the same N.",
        ),
        "threads" => Some(
            "Tiled SGEMM (GFLOP/s) and Floyd–Warshall phase 3 (updates/s) across block shapes. \
             \"Relative\" is the performance divided by the best of the same kernel family.",
        ),
        "apsp" => Some(
            "Blocked Floyd–Warshall on V vertices, file to file; stage times in milliseconds. \
             Updates/s = V³ / compute time.",
        ),
        _ => None,
    }
}

fn chart_suite(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if name.starts_with("matmul") {
        Some("matmul")
    } else if name.starts_with("occupancy") || name.starts_with("threads") {
        Some("threads")
    } else if name.starts_with("apsp") {
        Some("apsp")
    } else {
        None
    }
}

fn provenance(device: &str, recs: &[&BenchRecord]) -> String {
    let dates: BTreeSet<&str> = recs.iter().map(|r| r.date.as_str()).collect();
    let date = match (dates.first(), dates.last()) {
        (Some(a), Some(b)) if a == b => format!("date {a}"),
        (Some(a), Some(b)) => format!("dates {a} to {b}"),
        _ => "no date".into(),
    };
    let mut by_date: Vec<&&BenchRecord> = recs.iter().collect();
    by_date.sort_by(|a, b| a.date.cmp(&b.date));
    let mut commits: Vec<&str> = Vec::new();
    for r in by_date {
        if !commits.contains(&r.commit.as_str()) {
            commits.push(&r.commit);
        }
    }
    let label = if commits.len() == 1 {
        "commit"
    } else {
        "commits"
    };
    let commits: Vec<String> = commits.iter().map(|c| format!("`{c}`")).collect();
    format!(
        "Device: **{device}** · {date} · {label} {} · {} record{}",
        commits.join(", "),
        recs.len(),
        if recs.len() == 1 { "" } else { "s" }
    )
}

fn table(header: &[&str], right_from: usize, rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = (0..header.len())
        .map(|i| if i >= right_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

fn code(s: &str) -> String {
    format!("`{s}`")
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.filter(|v| v.is_finite()).map_or_else(|| "—".into(), f)
}

fn pct(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

fn regs(r: &BenchRecord) -> String {
    r.registers.map_or_else(|| "—".into(), |v| v.to_string())
}

fn min_max(r: &BenchRecord) -> String {
    format!("{}–{}", fmt_num(r.min_ms), fmt_num(r.max_ms))
}

fn matmul_table(recs: &[&BenchRecord]) -> String {
    let cublas: BTreeMap<usize, f64> = recs
        .iter()
        .filter(|r| is_cublas(&r.kernel))
        .filter_map(|r| Some((r.size, matmul_gflops(r)?)))
        .collect();
    let mut recs = recs.to_vec();
    recs.sort_by_key(|r| {
        (
            !is_cublas(&r.kernel),
            r.kernel.clone(),
            r.size,
            r.config.clone(),
        )
    });
    let rows: Vec<Vec<String>> = recs
        .iter()
        .map(|r| {
            let g = matmul_gflops(r);
            let vs = match (g, cublas.get(&r.size)) {
                (Some(g), Some(&c)) if c > 0.0 && !is_cublas(&r.kernel) => pct(g / c),
                _ => "—".into(),
            };
            vec![
                code(&r.kernel),
                r.config.clone(),
                r.size.to_string(),
                r.threads_per_block.to_string(),
                regs(r),
                opt(r.occupancy, pct),
                fmt_num(r.median_ms),
                min_max(r),
                r.reps.to_string(),
                opt(g, fmt_num),
                vs,
            ]
        })
        .collect();
    table(
        &[
            "Kernel",
            "Config",
            "N",
            "Threads/block",
            "Registers",
            "Occupancy",
            "Median (ms)",
            "Min–max (ms)",
            "Reps",
            "GFLOP/s",
            "vs cuBLAS",
        ],
        2,
        &rows,
    )
}

fn threads_table(recs: &[&BenchRecord]) -> String {
    let mut relative = vec![None; recs.len()];
    for members in threads_series(recs).values() {
        let best = members.iter().map(|m| m.1).fold(0.0, f64::max);
        for &(i, v) in members {
            relative[i] = (best > 0.0).then(|| v / best);
        }
    }
    let mut order: Vec<usize> = (0..recs.len()).collect();
    order.sort_by_key(|&i| {
        let r = recs[i];
        (
            family(&r.kernel).0.to_string(),
            r.size,
            r.threads_per_block,
            r.kernel.clone(),
        )
    });
    let rows: Vec<Vec<String>> = order
        .into_iter()
        .map(|i| {
            let r = recs[i];
            let unit = family(&r.kernel).1;
            let perf = match (family_metric(r), unit) {
                (Some(v), "updates/s") => format!("{} updates/s", fmt_si(v)),
                (Some(v), "GFLOP/s") => format!("{} GFLOP/s", fmt_num(v)),
                (Some(v), _) if r.gflops.is_some() => format!("{} GFLOP/s", fmt_num(v)),
                (Some(v), _) => format!("{} updates/s", fmt_si(v)),
                (None, _) => "—".into(),
            };
            vec![
                code(&r.kernel),
                r.config.clone(),
                r.size.to_string(),
                r.threads_per_block.to_string(),
                regs(r),
                opt(r.occupancy, pct),
                fmt_num(r.median_ms),
                perf,
                opt(relative[i], |v| format!("{v:.2}")),
            ]
        })
        .collect();
    table(
        &[
            "Kernel",
            "Config",
            "Size",
            "Threads/block",
            "Registers",
            "Occupancy",
            "Median (ms)",
            "Performance",
            "Relative",
        ],
        2,
        &rows,
    )
}

fn apsp_table(recs: &[&BenchRecord]) -> String {
    let mut recs = recs.to_vec();
    recs.sort_by_key(|r| {
        (
            r.size,
            block_factor(&r.kernel),
            r.kernel.clone(),
            r.config.clone(),
        )
    });
    let ms = |v: f64| fmt_num(v * 1e3);
    let rows: Vec<Vec<String>> = recs
        .iter()
        .map(|r| {
            let mut row = vec![
                code(&r.kernel),
                r.size.to_string(),
                fmt_num(r.median_ms),
                r.reps.to_string(),
                opt(r.updates_per_s, fmt_si),
            ];
            match r.split {
                Some(_) => {
                    let parts = stages(r);
                    row.extend(parts.iter().map(|&v| ms(v)));
                    row.push(ms(parts.iter().sum()));
                }
                None => row.extend(std::iter::repeat_n("—".to_string(), 7)),
            }
            row
        })
        .collect();
    table(
        &[
            "Kernel",
            "V",
            "Median (ms)",
            "Reps",
            "Updates/s",
            "Read",
            "Fill",
            "H2D",
            "Compute",
            "D2H",
            "Write",
            "Total (ms)",
        ],
        1,
        &rows,
    )
}

fn generic_table(recs: &[&BenchRecord]) -> String {
    let rows: Vec<Vec<String>> = recs
        .iter()
        .map(|r| {
            vec![
                code(&r.kernel),
                r.config.clone(),
                r.size.to_string(),
                r.threads_per_block.to_string(),
                fmt_num(r.median_ms),
                min_max(r),
                r.reps.to_string(),
                opt(r.gflops, fmt_num),
                opt(r.updates_per_s, fmt_si),
            ]
        })
        .collect();
    table(
        &[
            "Kernel",
            "Config",
            "Size",
            "Threads/block",
            "Median (ms)",
            "Min–max (ms)",
            "Reps",
            "GFLOP/s",
            "Updates/s",
        ],
        2,
        &rows,
    )
}

// ---------------------------------------------------------------------------------------------
// Number formatting

/// About three significant digits; thousands separators from 1000 up.
fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let a = x.abs();
    if a >= 1000.0 {
        let digits = (a.round() as u128).to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        return if x < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        };
    }
    if a == 0.0 {
        return "0".into();
    }
    let mag = a.log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// `fmt_num` without trailing zeros, for axis ticks.
fn fmt_tick(x: f64) -> String {
    let s = fmt_num(x);
    if s.contains('.') && !s.contains(',') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Like `fmt_si`, for axis ticks.
fn fmt_si_tick(x: f64) -> String {
    match fmt_si(x).split_once(' ') {
        Some((num, prefix)) => format!(
            "{} {prefix}",
            fmt_tick(num.replace(',', "").parse().unwrap_or(x))
        ),
        None => fmt_tick(x),
    }
}

/// SI prefix with about three significant digits: 1.23e11 -> "123 G".
fn fmt_si(x: f64) -> String {
    const PREFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    if !x.is_finite() || x == 0.0 {
        return fmt_num(x);
    }
    for (scale, p) in PREFIXES {
        if x.abs() >= scale {
            return format!("{} {p}", fmt_num(x / scale));
        }
    }
    fmt_num(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ApspSplit;

    fn scratch(name: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        std::env::temp_dir().join(format!("host-report-{}-{nanos}-{name}", std::process::id()))
    }

    fn rec(suite: &str, kernel: &str, size: usize) -> BenchRecord {
        BenchRecord {
            suite: suite.into(),
            kernel: kernel.into(),
            config: "tile 64x64x8, block 16x16, item 4x4".into(),
            size,
            threads_per_block: 256,
            registers: Some(64),
            median_ms: 1.5,
            min_ms: 1.4,
            max_ms: 1.9,
            reps: 10,
            gflops: None,
            updates_per_s: None,
            occupancy: Some(0.5),
            split: None,
            device: "NVIDIA H100 80GB HBM3".into(),
            date: "2026-04-01T12:00:00Z".into(),
            commit: "abc1234".into(),
        }
    }

    fn synthetic() -> Vec<BenchRecord> {
        let mut out = Vec::new();
        let sizes = [256, 512, 1000, 1024, 2048, 3000, 4096, 8192];
        for (k, kernel) in [
            "cublas_sgemm",
            "matmul_naive",
            "matmul_tiled",
            "matmul_regblock",
        ]
        .iter()
        .enumerate()
        {
            for &n in &sizes {
                let mut r = rec("matmul", kernel, n);
                let peak = [50_000.0, 2_000.0, 9_000.0, 30_000.0][k];
                r.gflops = Some(peak * (n as f64 / 8192.0).powf(0.4));
                out.push(r);
            }
        }
        for (tile, occ, gflops) in [(8u32, 1.0, 4000.0), (16, 1.0, 9000.0), (32, 0.67, 7000.0)] {
            let mut r = rec("threads", &format!("matmul_tiled_{tile}"), 4096);
            r.threads_per_block = tile * tile;
            r.occupancy = Some(occ);
            r.gflops = Some(gflops);
            out.push(r);
        }
        for (b, t, occ, rate) in [
            (16u32, 16u32, 1.0, 1e11),
            (32, 32, 0.67, 2.5e11),
            (64, 32, 0.5, 3e11),
        ] {
            let mut r = rec("threads", &format!("fw_phase3_b{b}"), 8192);
            r.threads_per_block = t * t;
            r.occupancy = Some(occ);
            r.updates_per_s = Some(rate);
            out.push(r);
        }
        for b in [16, 32, 64] {
            for v in [2000usize, 5000, 10000, 20000, 30000] {
                let mut r = rec("apsp", &format!("fw_b{b}"), v);
                let compute = (v as f64).powi(3) / (1e11 * (b as f64 / 16.0).sqrt());
                let io = (v * v) as f64 * 4.0 / 1e9;
                r.split = Some(ApspSplit {
                    read_s: io * 5.0,
                    fill_s: io,
                    host_to_device_s: io / 10.0,
                    compute_s: compute,
                    device_to_host_s: io / 10.0,
                    write_s: io * 8.0,
                });
                r.median_ms = compute * 1e3;
                r.updates_per_s = Some((v as f64).powi(3) / compute);
                out.push(r);
            }
        }
        out
    }

    #[test]
    fn loads_json_array_and_json_lines() {
        let records = synthetic();
        let array = scratch("array.json");
        let lines = scratch("lines.jsonl");
        std::fs::write(&array, serde_json::to_string_pretty(&records[..3]).unwrap()).unwrap();
        let jsonl: String = records[3..7]
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        std::fs::write(&lines, jsonl).unwrap();
        let loaded = load_records(&[array.clone(), lines.clone()]).unwrap();
        assert_eq!(loaded, records[..7]);

        let bad = scratch("bad.jsonl");
        let mut text = serde_json::to_string(&records[0]).unwrap();
        text.push_str("\n{\"suite\": \"matmul\", not json}\n");
        std::fs::write(&bad, text).unwrap();
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&bad)).unwrap_err()
        );
        assert!(err.contains(&bad.display().to_string()), "{err}");
        assert!(err.contains("line 2"), "{err}");

        let bad_array = scratch("bad.json");
        std::fs::write(&bad_array, "[{\"suite\": \"matmul\"}]").unwrap();
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&bad_array)).unwrap_err()
        );
        assert!(err.contains(&bad_array.display().to_string()), "{err}");

        let missing = scratch("missing.json");
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&missing)).unwrap_err()
        );
        assert!(err.contains(&missing.display().to_string()), "{err}");

        for p in [array, lines, bad, bad_array] {
            let _ = std::fs::remove_file(p);
        }
    }

    fn assert_png(path: &Path) {
        let bytes = std::fs::read(path).unwrap();
        assert!(bytes.len() > 1000, "{} is too small", path.display());
        assert_eq!(
            &bytes[..8],
            b"\x89PNG\r\n\x1a\n",
            "{} is not a PNG",
            path.display()
        );
    }

    #[test]
    fn renders_all_charts() {
        let dir = scratch("charts");
        let paths = render_charts(&synthetic(), &dir).unwrap();
        let names: Vec<_> = paths
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "matmul_gflops.png",
                "occupancy_performance.png",
                "apsp_split.png",
                "apsp_rate.png"
            ]
        );
        for p in &paths {
            assert_png(p);
        }
        if std::env::var_os("REPORT_KEEP_CHARTS").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn skips_suites_without_records() {
        let dir = scratch("matmul-only");
        let records: Vec<_> = synthetic()
            .into_iter()
            .filter(|r| r.suite == "matmul")
            .collect();
        let paths = render_charts(&records, &dir).unwrap();
        assert_eq!(paths, [dir.join("matmul_gflops.png")]);
        assert_png(&paths[0]);
        let files = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(files, 1);
        let _ = std::fs::remove_dir_all(&dir);

        let dir = scratch("none");
        assert!(render_charts(&[], &dir).unwrap().is_empty());
        assert!(!dir.exists());
    }

    #[test]
    fn markdown_has_rows_and_provenance() {
        let mut records = synthetic();
        let mut other = rec("apsp", "fw_b32", 512);
        other.device = "NVIDIA H200".into();
        other.commit = "def5678".into();
        records.push(other);
        let charts = vec![
            (
                "SGEMM throughput".to_string(),
                "charts/matmul_gflops.png".to_string(),
            ),
            ("Split".to_string(), "charts/apsp_split.png".to_string()),
            ("Extra".to_string(), "charts/extra.png".to_string()),
        ];
        let md = markdown(&records, &charts);
        for r in &records {
            assert!(
                md.contains(&format!("| `{}` |", r.kernel)),
                "no row for {}",
                r.kernel
            );
            assert!(md.contains(&r.device));
            assert!(md.contains(&r.commit));
        }
        assert!(md.contains("## SGEMM"));
        assert!(md.contains("## All-pairs shortest paths"));
        assert!(md.contains("![SGEMM throughput](charts/matmul_gflops.png)"));
        assert!(md.contains("## Charts\n\n![Extra](charts/extra.png)"));
        assert!(md.contains("date 2026-04-01T12:00:00Z"));
        // cuBLAS at 8192 runs 50,000 GFLOP/s.
        assert!(md.contains("| 50,000 |"));
    }

    #[test]
    fn latest_record_wins() {
        let mut old = rec("matmul", "matmul_tiled", 1024);
        old.gflops = Some(1.0);
        let mut new = old.clone();
        new.date = "2026-05-01T00:00:00Z".into();
        new.gflops = Some(2.0);
        let picked = latest(vec![&new, &old]);
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].gflops, Some(2.0));
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_num(18234.6), "18,235");
        assert_eq!(fmt_num(123.4), "123");
        assert_eq!(fmt_num(1.234), "1.23");
        assert_eq!(fmt_num(0.01234), "0.0123");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_si(2.5e11), "250 G");
        assert_eq!(fmt_si(1.5e6), "1.50 M");
    }
}
