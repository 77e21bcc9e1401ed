//! PNG charts of the benchmark records, and what they share: series styles (every series of a
//! chart a distinct colour and marker pair), the legend (always beside or below the plot, never
//! over the data), log2 axes with ticks at the data.
//!
//! A chart's file name starts with its suite (`matmul_…`, `threads_…`, `apsp_…`): `markdown`
//! places each chart in its suite's section by that prefix.
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::select::{Suite, chart_records};
use crate::bench::BenchRecord;

mod font;
mod legend;
mod lines;
mod split;
mod style;
mod threads;

use legend::{LegendEntry, Swatch, legend_column, legend_row, legend_width};
#[cfg(test)]
use style::MAX_SERIES;
use style::{Fill, PALETTE, SeriesStyle, draw_marker, draw_series_markers, series_style};

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 800;
const FONT: &str = "sans-serif";

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
type Plot<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<TickAxis, RangedCoordf64>>;

/// Draws a chart into the file at the path.
type Draw<'a> = Box<dyn FnOnce(&Path) -> Result<()> + 'a>;

/// One chart to draw: its file name and how to draw it there.
struct Chart<'a> {
    file: String,
    draw: Draw<'a>,
}

/// Renders the charts into out_dir (created if missing) and returns their paths. Skips a chart
/// whose suite has no records.
pub fn render_charts(records: &[BenchRecord], out_dir: &Path) -> Result<Vec<PathBuf>> {
    let (device, matmul) = chart_records(records, &Suite::Matmul);
    let mut charts = lines::matmul(&matmul, device);
    let (device, threads) = chart_records(records, &Suite::Threads);
    charts.extend(threads::chart(&threads, device));
    let (device, apsp) = chart_records(records, &Suite::Apsp);
    charts.extend(split::chart(&apsp, device));
    charts.extend(lines::apsp_rate(&apsp, device));

    let mut out = Vec::new();
    if charts.is_empty() {
        return Ok(out);
    }
    font::ensure_font()?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create chart directory {}", out_dir.display()))?;
    for Chart { file, draw } in charts {
        let path = out_dir.join(file);
        draw(&path).with_context(|| format!("cannot render {}", path.display()))?;
        out.push(path);
    }
    Ok(out)
}

/// A file-name-safe form of a kernel or family name.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn font(size: u32) -> TextStyle<'static> {
    (FONT, size).into_font().into()
}

// ---------------------------------------------------------------------------------------------
// Axes

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
/// those are few, at the powers of two between them, none closer than 0.3 octave (4096 and 5000
/// are 0.29 apart, and their labels touch).
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
        if ticks.iter().all(|t| (t - l).abs() >= 0.3) {
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

/// The top of a y axis from 0 that holds `values` with some headroom.
fn y_max(values: impl Iterator<Item = f64>) -> f64 {
    let m = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
    if m > 0.0 { m * 1.12 } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::tests::{rec, synthetic};
    use gpu_kernels::registry::Family;

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

    fn names(paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn series_styles_are_distinct() {
        let styles: Vec<_> = (0..MAX_SERIES).map(|i| series_style(i).unwrap()).collect();
        let pairs: BTreeSet<_> = styles
            .iter()
            .map(|s| {
                let RGBColor(r, g, b) = s.colour();
                (r, g, b, s.marker() as u8)
            })
            .collect();
        assert_eq!(pairs.len(), MAX_SERIES);
        // Neighbours differ in shape too.
        assert!(styles.windows(2).all(|w| w[0].marker() != w[1].marker()));
        assert!(series_style(MAX_SERIES).is_err());
    }

    #[test]
    fn renders_all_charts() {
        let dir = tempfile::tempdir().unwrap();
        let paths = render_charts(&synthetic(), dir.path()).unwrap();
        assert_eq!(
            names(&paths),
            [
                "matmul_gflops.png",
                "threads_occupancy.png",
                "apsp_split.png",
                "apsp_rate.png"
            ]
        );
        for p in &paths {
            assert_png(p);
        }
        if let Some(keep) = std::env::var_os("REPORT_KEEP_CHARTS") {
            for p in &paths {
                std::fs::copy(p, Path::new(&keep).join(p.file_name().unwrap())).unwrap();
            }
        }
    }

    #[test]
    fn more_series_than_colours_get_a_chart_per_family() {
        let mut records = Vec::new();
        for n in [1024, 2048] {
            let mut r = rec("matmul", "cublas_sgemm", n);
            r.gflops = Some(40_000.0);
            records.push(r);
            for k in 0..8 {
                for family in [Family::Vectorized, Family::Tiled] {
                    let mut r = rec("matmul", &format!("{family}_v{k}"), n);
                    r.family = Some(family);
                    r.gflops = Some(1000.0 * f64::from(k + 1));
                    records.push(r);
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let paths = render_charts(&records, dir.path()).unwrap();
        assert_eq!(
            names(&paths),
            ["matmul_gflops_tiled.png", "matmul_gflops_vectorized.png"]
        );
        // Ten kernels or fewer share one chart.
        records.retain(|r| r.family != Some(Family::Vectorized));
        let paths = render_charts(&records, dir.path()).unwrap();
        assert_eq!(names(&paths), ["matmul_gflops.png"]);
    }

    #[test]
    fn skips_suites_without_records() {
        let dir = tempfile::tempdir().unwrap();
        let records: Vec<_> = synthetic()
            .into_iter()
            .filter(|r| r.suite == "matmul")
            .collect();
        let paths = render_charts(&records, dir.path()).unwrap();
        assert_eq!(paths, [dir.path().join("matmul_gflops.png")]);
        assert_png(&paths[0]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let none = dir.path().join("none");
        assert!(render_charts(&[], &none).unwrap().is_empty());
        assert!(!none.exists());
    }

    #[test]
    fn log2_ticks_are_the_data_and_inside_the_range() {
        let axis = log2_axis([256.0, 1000.0, 1024.0, 4096.0].into_iter());
        let labels: Vec<String> = axis.ticks.iter().map(pow2_label).collect();
        // 1000 is within 0.3 octave of 1024, which wins as a power of two; with three
        // ticks left, the powers of two between fill in.
        assert_eq!(labels, ["256", "512", "1024", "2048", "4096"]);
        assert!(axis.ticks.iter().all(|t| axis.range.contains(t)));
    }
}
