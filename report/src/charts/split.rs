//! The APSP time split, file to file: a stacked bar per (V, kernel) of the stage times, above
//! in seconds and below as shares of the run, with the stage legend in a row underneath.
use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Chart, HEIGHT, LegendEntry, Swatch, TickAxis, WIDTH, font, legend_row, y_max};
use crate::bench::BenchRecord;
use crate::format::fmt_tick;
use crate::select::{STAGES, natural_key, stages};

/// A colour per stage of `STAGES`.
const STAGE_COLORS: [RGBColor; 6] = [
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(23, 190, 207),
    RGBColor(148, 103, 189),
];

pub(super) fn chart<'a>(recs: &[&'a BenchRecord], device: &'a str) -> Option<Chart<'a>> {
    let recs: Vec<&BenchRecord> = recs.iter().copied().filter(|r| r.split.is_some()).collect();
    if recs.is_empty() {
        return None;
    }
    Some(Chart {
        file: "apsp_split.png".into(),
        draw: Box::new(move |path: &Path| draw(&recs, device, path)),
    })
}

fn draw(recs: &[&BenchRecord], device: &str, path: &Path) -> Result<()> {
    let mut kernels: Vec<&str> = recs.iter().map(|r| r.kernel.as_str()).collect();
    kernels.sort_by_key(|k| natural_key(k));
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
            "share of the run's time".to_string()
        } else {
            format!("time per run ({unit})")
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
        .map(|(s, c)| LegendEntry {
            label: s.to_string(),
            swatch: Swatch::Block(c),
        })
        .collect();
    legend_row(&strip, &legend)?;
    root.present()?;
    Ok(())
}
