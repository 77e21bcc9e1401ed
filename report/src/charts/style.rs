//! Series styles: a colour and marker pair per series, unique within a chart, and the markers
//! drawn in pixels (plotters' point elements have no diamond or downward triangle).
use anyhow::{Result, bail};
use plotters::prelude::*;

use super::{Area, Plot};

/// Tableau 10: distinct hues that stay apart for most colour-vision deficiencies.
pub(super) const PALETTE: [RGBColor; 10] = [
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
pub(super) enum Marker {
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
pub(super) const MAX_SERIES: usize = PALETTE.len() * MARKERS.len();

/// How a series is drawn. `Reference` is the thick black baseline (cuBLAS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SeriesStyle {
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
pub(super) fn series_style(i: usize) -> Result<SeriesStyle> {
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
    pub(super) fn colour(self) -> RGBColor {
        match self {
            SeriesStyle::Reference => BLACK,
            SeriesStyle::Plain { colour, .. } => colour,
        }
    }

    pub(super) fn marker(self) -> Marker {
        match self {
            SeriesStyle::Reference => Marker::Circle,
            SeriesStyle::Plain { marker, .. } => marker,
        }
    }

    pub(super) fn line(self) -> ShapeStyle {
        match self {
            SeriesStyle::Reference => BLACK.stroke_width(4),
            SeriesStyle::Plain { colour, .. } => colour.stroke_width(2),
        }
    }

    pub(super) fn dashed(self) -> bool {
        matches!(self, SeriesStyle::Plain { dashed: true, .. })
    }
}

/// How a marker is filled: solid on lines; see-through on scatter plots, where points of
/// different series can coincide and the outlines must stay visible.
#[derive(Clone, Copy)]
pub(super) enum Fill {
    Solid,
    Faint,
}

/// Draws `marker` centred at `at` (pixels of `area`), about `2 * r` across.
pub(super) fn draw_marker(
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
pub(super) fn draw_series_markers(
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
