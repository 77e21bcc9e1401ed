//! Line charts against a log2 size axis: SGEMM GFLOP/s against N, APSP update rate against V.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use plotters::prelude::*;

use super::{
    Chart, Fill, HEIGHT, LegendEntry, PALETTE, SeriesStyle, Swatch, WIDTH, draw_series_markers,
    font, legend_column, legend_width, log2_axis, pow2_label, series_style, slug, y_max,
};
use crate::bench::BenchRecord;
use crate::format::{fmt_si_tick, fmt_tick};
use crate::select::{family, is_cublas, matmul_gflops, series_labels};

/// One series: (log2 x, y) points sorted by x; a reference is drawn as the black baseline.
struct Line {
    label: String,
    points: Vec<(f64, f64)>,
    reference: bool,
}

impl Line {
    fn new(label: String, mut points: Vec<(f64, f64)>, reference: bool) -> Line {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        Line {
            label,
            points,
            reference,
        }
    }
}

/// What the axes of a line chart say.
#[derive(Clone, Copy)]
struct Axes {
    x: &'static str,
    y: &'static str,
    y_ticks: fn(f64) -> String,
}

/// The records of one series label: the first of them, the label, (log2 size, y) points.
struct Series<'r> {
    first: &'r BenchRecord,
    label: String,
    points: Vec<(f64, f64)>,
}

/// The series of `recs` in the order the records first name them. Records without a y or with
/// size 0 are left out.
fn series<'r>(
    recs: &[&'r BenchRecord],
    y: impl Fn(&BenchRecord) -> Option<f64>,
) -> Vec<Series<'r>> {
    let mut out: Vec<Series<'r>> = Vec::new();
    for (&r, label) in recs.iter().zip(series_labels(recs)) {
        let Some(y) = y(r).filter(|_| r.size > 0) else {
            continue;
        };
        let point = ((r.size as f64).log2(), y);
        match out.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => out.push(Series {
                first: r,
                label,
                points: vec![point],
            }),
        }
    }
    out
}

/// SGEMM throughput against N with cuBLAS as the reference: one chart while every kernel can
/// have its own colour, else one chart per kernel family (each with cuBLAS), so that a reader
/// never has to tell series apart by marker alone across a dozen lines.
pub(super) fn matmul<'a>(recs: &[&BenchRecord], device: &'a str) -> Vec<Chart<'a>> {
    let mut references = Vec::new();
    let mut kernels: Vec<(String, Line)> = Vec::new();
    for Series {
        first,
        label,
        points,
    } in series(recs, matmul_gflops)
    {
        if is_cublas(&first.kernel) {
            references.push(Line::new(format!("{label} (cuBLAS)"), points, true));
        } else {
            kernels.push((family(first).to_string(), Line::new(label, points, false)));
        }
    }
    if kernels.is_empty() && references.is_empty() {
        return Vec::new();
    }
    let axes = Axes {
        x: "matrix size N (log2 scale)",
        y: "throughput (GFLOP/s)",
        y_ticks: fmt_tick,
    };
    let mut groups: BTreeMap<Option<String>, Vec<Line>> = BTreeMap::new();
    let split = kernels.len() > PALETTE.len();
    for (fam, line) in kernels {
        groups.entry(split.then_some(fam)).or_default().push(line);
    }
    if groups.is_empty() {
        groups.insert(None, Vec::new());
    }
    groups
        .into_iter()
        .map(|(fam, kernels)| {
            let (file, caption) = match &fam {
                None => (
                    "matmul_gflops.png".to_string(),
                    format!("SGEMM throughput, square N×N — {device}"),
                ),
                Some(fam) => (
                    format!("matmul_gflops_{}.png", slug(fam)),
                    format!("SGEMM throughput, square N×N, {fam} kernels — {device}"),
                ),
            };
            let lines: Vec<Line> = references
                .iter()
                .map(|r| Line::new(r.label.clone(), r.points.clone(), true))
                .chain(kernels)
                .collect();
            Chart {
                file,
                draw: Box::new(move |path: &Path| line_chart(path, &caption, &axes, &lines)),
            }
        })
        .collect()
}

/// APSP updates per second against V, a line per kernel (block factor).
pub(super) fn apsp_rate<'a>(recs: &[&BenchRecord], device: &'a str) -> Option<Chart<'a>> {
    let lines: Vec<Line> = series(recs, |r| r.updates_per_s.filter(|u| u.is_finite()))
        .into_iter()
        .map(|s| Line::new(s.label, s.points, false))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let caption = format!("APSP (blocked Floyd–Warshall) update rate — {device}");
    let axes = Axes {
        x: "vertices V (log2 scale)",
        y: "updates per second (V³ / compute time)",
        y_ticks: fmt_si_tick,
    };
    Some(Chart {
        file: "apsp_rate.png".into(),
        draw: Box::new(move |path: &Path| line_chart(path, &caption, &axes, &lines)),
    })
}

/// A line chart with the legend in a column to the right of the plot.
fn line_chart(path: &Path, caption: &str, axes: &Axes, lines: &[Line]) -> Result<()> {
    let mut styles = Vec::with_capacity(lines.len());
    let mut plain = 0;
    for line in lines {
        styles.push(if line.reference {
            SeriesStyle::Reference
        } else {
            plain += 1;
            series_style(plain - 1)?
        });
    }
    let entries: Vec<LegendEntry> = lines
        .iter()
        .zip(&styles)
        .map(|(line, &style)| LegendEntry {
            label: line.label.clone(),
            swatch: Swatch::Line(style),
        })
        .collect();

    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root.margin(12, 0, 0, 0).titled(caption, font(28))?;
    let legend = legend_width(&body, &entries)?.min(WIDTH * 2 / 5);
    let (plot_area, legend_area) = body.split_horizontally(WIDTH - legend);

    let x_axis = log2_axis(
        lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| 2f64.powf(p.0))),
    );
    let ymax = y_max(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(20)
        .x_label_area_size(60)
        .y_label_area_size(100)
        .build_cartesian_2d(x_axis, 0f64..ymax)?;
    let y_ticks = axes.y_ticks;
    chart
        .configure_mesh()
        .x_desc(axes.x)
        .y_desc(axes.y)
        .x_label_formatter(&pow2_label)
        .y_label_formatter(&|y| y_ticks(*y))
        .label_style(font(18))
        .axis_desc_style(font(20))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for (line, &style) in lines.iter().zip(&styles) {
        let points = line.points.iter().copied();
        if style.dashed() {
            chart.draw_series(DashedLineSeries::new(points, 8, 5, style.line()))?;
        } else {
            chart.draw_series(LineSeries::new(points, style.line()))?;
        }
        let r = if line.reference { 5 } else { 4 };
        draw_series_markers(&chart, &line.points, style, r, Fill::Solid)?;
    }
    legend_column(&legend_area, &entries)?;
    root.present()?;
    Ok(())
}
