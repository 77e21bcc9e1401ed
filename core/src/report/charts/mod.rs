//! PNG charts of the benchmark records, and what they share: series styles (every series of a
//! chart a distinct colour and marker pair), the legend (always beside or below the plot, never
//! over the data), log2 axes with ticks at the data.
//!
//! A chart's file name starts with its suite (`matmul_…`, `threads_…`, `apsp_…`): `markdown`
//! places each chart in its suite's section by that prefix.
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::select::{Suite, chart_records};
use crate::bench::BenchRecord;

mod font;
mod lines;
mod split;
mod threads;

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
// Series styles

/// Tableau 10: distinct hues that stay apart for most colour-vision deficiencies.
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
];

/// Most series one chart can style distinctly: every (colour, marker) pair.
const MAX_SERIES: usize = PALETTE.len() * MARKERS.len();

/// How a series is drawn. `Reference` is the thick black baseline (cuBLAS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SeriesStyle {
    Reference,
    Plain {
        colour: RGBColor,
        marker: Marker,
        /// Series past the first ten reuse colours: dashed lines tell them apart at a glance.
        dashed: bool,
    },
}

/// The style of the `i`-th series of a chart: colour `i mod 10`; the marker shifts with every
/// round of ten, so (colour, marker) is unique for `i < MAX_SERIES`, and differs between
/// neighbours even in the first round (shape as well as hue).
fn series_style(i: usize) -> Result<SeriesStyle> {
    if i >= MAX_SERIES {
        bail!("a chart with more than {MAX_SERIES} series would repeat a colour and marker");
    }
    let (round, c) = (i / PALETTE.len(), i % PALETTE.len());
    Ok(SeriesStyle::Plain {
        colour: PALETTE[c],
        marker: MARKERS[(c + round) % MARKERS.len()],
        dashed: round > 0,
    })
}

impl SeriesStyle {
    fn colour(self) -> RGBColor {
        match self {
            SeriesStyle::Reference => BLACK,
            SeriesStyle::Plain { colour, .. } => colour,
        }
    }

    fn marker(self) -> Marker {
        match self {
            SeriesStyle::Reference => Marker::Circle,
            SeriesStyle::Plain { marker, .. } => marker,
        }
    }

    fn line(self) -> ShapeStyle {
        match self {
            SeriesStyle::Reference => BLACK.stroke_width(4),
            SeriesStyle::Plain { colour, .. } => colour.stroke_width(2),
        }
    }

    fn dashed(self) -> bool {
        matches!(self, SeriesStyle::Plain { dashed: true, .. })
    }
}

/// How a marker is filled: solid on lines; see-through on scatter plots, where points of
/// different series can coincide and the outlines must stay visible.
#[derive(Clone, Copy)]
enum Fill {
    Solid,
    Faint,
}

/// Draws `marker` centred at `at` (pixels of `area`), about `2 * r` across.
fn draw_marker(
    area: &Area<'_>,
    at: (i32, i32),
    marker: Marker,
    colour: RGBColor,
    r: i32,
    fill: Fill,
) -> Result<()> {
    let (x, y) = at;
    let offsets: Vec<(f64, f64)> = match marker {
        Marker::Circle => (0..20)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::TAU / 20.0;
                (a.cos(), a.sin())
            })
            .collect(),
        Marker::Square => vec![(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)],
        Marker::TriangleUp => vec![(0.0, -1.2), (1.1, 0.75), (-1.1, 0.75)],
        Marker::TriangleDown => vec![(0.0, 1.2), (1.1, -0.75), (-1.1, -0.75)],
        Marker::Diamond => vec![(0.0, -1.25), (1.0, 0.0), (0.0, 1.25), (-1.0, 0.0)],
    };
    let r = f64::from(r);
    let points: Vec<(i32, i32)> = offsets
        .iter()
        .map(|(dx, dy)| (x + (dx * r).round() as i32, y + (dy * r).round() as i32))
        .collect();
    let fill_style = match fill {
        Fill::Solid => colour.filled(),
        Fill::Faint => colour.mix(0.25).filled(),
    };
    area.draw(&Polygon::new(points.clone(), fill_style))?;
    let mut outline = points;
    outline.push(outline[0]);
    area.draw(&PathElement::new(outline, colour.stroke_width(2)))?;
    Ok(())
}

/// Draws the markers of a series at data points of `chart`.
fn draw_series_markers(
    chart: &Plot<'_, '_>,
    points: &[(f64, f64)],
    style: SeriesStyle,
    r: i32,
    fill: Fill,
) -> Result<()> {
    let plot = chart.plotting_area();
    let (bx, by) = plot.get_base_pixel();
    let area = plot.strip_coord_spec();
    for p in points {
        let (x, y) = chart.backend_coord(p);
        draw_marker(
            &area,
            (x - bx, y - by),
            style.marker(),
            style.colour(),
            r,
            fill,
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Legends

/// What a legend entry shows before its label.
#[derive(Clone, Copy)]
enum Swatch {
    /// A line sample with the series' marker.
    Line(SeriesStyle),
    /// The series' marker alone (scatter plots).
    Marker(SeriesStyle),
    /// A filled square (bar segments).
    Block(RGBColor),
    /// None: the entry is a heading for the entries below it.
    Heading,
}

struct LegendEntry {
    label: String,
    swatch: Swatch,
}

const SWATCH_WIDTH: i32 = 40;
const LEGEND_FONT: u32 = 17;
const LEGEND_ROW: i32 = 26;

fn draw_swatch(area: &Area<'_>, swatch: Swatch, x: i32, y: i32) -> Result<()> {
    match swatch {
        Swatch::Line(style) => {
            let path = vec![(x, y), (x + SWATCH_WIDTH - 6, y)];
            if style.dashed() {
                area.draw(&DashedPathElement::new(path, 6, 4, style.line()))?;
            } else {
                area.draw(&PathElement::new(path, style.line()))?;
            }
            let r = if style == SeriesStyle::Reference {
                5
            } else {
                4
            };
            draw_marker(
                area,
                (x + (SWATCH_WIDTH - 6) / 2, y),
                style.marker(),
                style.colour(),
                r,
                Fill::Solid,
            )
        }
        Swatch::Marker(style) => draw_marker(
            area,
            (x + 12, y),
            style.marker(),
            style.colour(),
            7,
            Fill::Faint,
        ),
        Swatch::Block(colour) => {
            area.draw(&Rectangle::new(
                [(x, y - 9), (x + 18, y + 9)],
                colour.filled(),
            ))?;
            Ok(())
        }
        Swatch::Heading => Ok(()),
    }
}

/// Width in pixels that a legend column needs for `entries`.
fn legend_width(area: &Area<'_>, entries: &[LegendEntry]) -> Result<u32> {
    let mut widest = 0;
    for e in entries {
        let (w, _) = area.estimate_text_size(&e.label, &font(LEGEND_FONT))?;
        widest = widest.max(w);
    }
    Ok(widest + SWATCH_WIDTH as u32 + 30)
}

/// A legend in a column at the top of `area` (the strip right of a plot).
fn legend_column(area: &Area<'_>, entries: &[LegendEntry]) -> Result<()> {
    let style = font(LEGEND_FONT).pos(Pos::new(HPos::Left, VPos::Center));
    let grey = BLACK.mix(0.7);
    let heading = style.clone().color(&grey);
    let mut y = 70;
    for e in entries {
        if let Swatch::Heading = e.swatch {
            y += LEGEND_ROW / 3;
            area.draw(&Text::new(e.label.clone(), (10, y), heading.clone()))?;
        } else {
            draw_swatch(area, e.swatch, 10, y)?;
            area.draw(&Text::new(
                e.label.clone(),
                (10 + SWATCH_WIDTH, y),
                style.clone(),
            ))?;
        }
        y += LEGEND_ROW;
    }
    Ok(())
}

/// A legend in one centred row across `area` (the strip below the plots).
fn legend_row(area: &Area<'_>, entries: &[LegendEntry]) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let style = font(LEGEND_FONT).pos(Pos::new(HPos::Left, VPos::Center));
    let widths: Vec<i32> = entries
        .iter()
        .map(|e| {
            area.estimate_text_size(&e.label, &style)
                .map(|(tw, _)| tw as i32 + SWATCH_WIDTH + 20)
        })
        .collect::<Result<_, _>>()?;
    let mut x = ((w as i32 - widths.iter().sum::<i32>()) / 2).max(10);
    let y = h as i32 / 2;
    for (e, width) in entries.iter().zip(widths) {
        draw_swatch(area, e.swatch, x, y)?;
        let text_x = if let Swatch::Block(_) = e.swatch {
            x + 26
        } else {
            x + SWATCH_WIDTH
        };
        area.draw(&Text::new(e.label.clone(), (text_x, y), style.clone()))?;
        x += width;
    }
    Ok(())
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
    use crate::report::tests::{rec, synthetic};

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
                for family in ["matmul_vec", "matmul_tiled"] {
                    let mut r = rec("matmul", &format!("{family}_v{k}"), n);
                    r.gflops = Some(1000.0 * f64::from(k + 1));
                    records.push(r);
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let paths = render_charts(&records, dir.path()).unwrap();
        assert_eq!(
            names(&paths),
            ["matmul_gflops_tiled.png", "matmul_gflops_vec.png"]
        );
        // Ten kernels or fewer share one chart.
        records.retain(|r| !r.kernel.starts_with("matmul_vec"));
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
