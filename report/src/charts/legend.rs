//! Legends, drawn by hand at a fixed place beside or below the plots so that they never cover
//! data: a column right of a plot, or a row under a group of panels.
use anyhow::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Area, Fill, SeriesStyle, draw_marker, font};

/// What a legend entry shows before its label.
#[derive(Clone, Copy)]
pub(super) enum Swatch {
    /// A line sample with the series' marker.
    Line(SeriesStyle),
    /// The series' marker alone (scatter plots).
    Marker(SeriesStyle),
    /// A filled square (bar segments).
    Block(RGBColor),
    /// None: the entry is a heading for the entries below it.
    Heading,
}

pub(super) struct LegendEntry {
    pub(super) label: String,
    pub(super) swatch: Swatch,
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
pub(super) fn legend_width(area: &Area<'_>, entries: &[LegendEntry]) -> Result<u32> {
    let mut widest = 0;
    for e in entries {
        let (w, _) = area.estimate_text_size(&e.label, &font(LEGEND_FONT))?;
        widest = widest.max(w);
    }
    Ok(widest + SWATCH_WIDTH as u32 + 30)
}

/// A legend in a column at the top of `area` (the strip right of a plot).
pub(super) fn legend_column(area: &Area<'_>, entries: &[LegendEntry]) -> Result<()> {
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
pub(super) fn legend_row(area: &Area<'_>, entries: &[LegendEntry]) -> Result<()> {
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
