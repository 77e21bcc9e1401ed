//! Performance against threads per block, and against theoretical occupancy where that varies:
//! a row of panels per group of records measured against each other (a kernel family at one
//! size), each in its own unit, so that no axis mixes GFLOP/s with updates per second.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use plotters::prelude::*;

use super::{
    Chart, Fill, HEIGHT, LegendEntry, SeriesStyle, Swatch, TickAxis, WIDTH, draw_series_markers,
    font, legend_column, legend_width, log2_axis, pow2_label, series_style, y_max,
};
use crate::bench::BenchRecord;
use crate::select::{Group, series_labels, threads_groups};

/// Height of one row of panels when there are more than two.
const ROW_HEIGHT: u32 = 330;

pub(super) fn chart<'a>(recs: &[&'a BenchRecord], device: &'a str) -> Option<Chart<'a>> {
    let groups = threads_groups(recs);
    if groups.is_empty() {
        return None;
    }
    let recs = recs.to_vec();
    Some(Chart {
        file: "threads_occupancy.png".into(),
        draw: Box::new(move |path: &Path| draw(path, &recs, &groups, device)),
    })
}

/// Percent with no decimals, for occupancy.
fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn draw(path: &Path, recs: &[&BenchRecord], groups: &[Group], device: &str) -> Result<()> {
    // One style per series label, in the order the groups list them.
    let labels = series_labels(recs);
    let mut style_of: BTreeMap<&str, SeriesStyle> = BTreeMap::new();
    let mut entries = Vec::new();
    for g in groups {
        entries.push(LegendEntry {
            label: format!("{} ({})", g.name, g.metric.unit()),
            swatch: Swatch::Heading,
        });
        let mut listed = Vec::new();
        for &(i, _) in &g.members {
            let label = labels[i].as_str();
            let style = match style_of.get(label) {
                Some(&s) => s,
                None => {
                    let s = series_style(style_of.len())?;
                    style_of.insert(label, s);
                    s
                }
            };
            if !listed.contains(&label) {
                listed.push(label);
                entries.push(LegendEntry {
                    label: label.to_string(),
                    swatch: Swatch::Marker(style),
                });
            }
        }
    }

    let members = || groups.iter().flat_map(|g| &g.members);
    let mut occupancies: Vec<f64> = members()
        .filter_map(|&(i, _)| recs[i].occupancy.filter(|o| o.is_finite()))
        .collect();
    occupancies.sort_by(f64::total_cmp);
    occupancies.dedup();
    // An occupancy axis with every point at one value carries nothing: say the value instead.
    let (with_occupancy, note) = match occupancies[..] {
        [] => (
            false,
            Some("theoretical occupancy not recorded".to_string()),
        ),
        [o] => (
            false,
            Some(format!(
                "theoretical occupancy {} in every configuration",
                pct(o)
            )),
        ),
        _ => (true, None),
    };

    let height = HEIGHT.max(130 + ROW_HEIGHT * groups.len() as u32);
    let root = BitMapBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = if with_occupancy {
        "Performance vs threads per block and occupancy"
    } else {
        "Performance vs threads per block"
    };
    let mut body = root
        .margin(12, 0, 0, 0)
        .titled(&format!("{title} — {device}"), font(28))?;
    if let Some(note) = &note {
        body = body.titled(note, font(18))?;
    }
    let legend = legend_width(&body, &entries)?.min(WIDTH * 2 / 5);
    let (panels, legend_area) = body.split_horizontally(WIDTH - legend);
    let columns = if with_occupancy { 2 } else { 1 };
    let cells = panels.split_evenly((groups.len(), columns));

    let tpb_axis = log2_axis(members().map(|&(i, _)| f64::from(recs[i].threads_per_block)));
    let occupancy_axis = TickAxis {
        range: 0.0..1.08,
        ticks: (0..=5).map(|i| f64::from(i) / 5.0).collect(),
    };
    for (row, g) in groups.iter().enumerate() {
        let style = |i: usize| style_of[labels[i].as_str()];
        let by_tpb: Vec<_> = g
            .members
            .iter()
            .filter(|&&(i, _)| recs[i].threads_per_block > 0)
            .map(|&(i, v)| ((f64::from(recs[i].threads_per_block).log2(), v), style(i)))
            .collect();
        let panel = Panel {
            group: g,
            x_desc: "threads per block (log2 scale)",
            x_ticks: &pow2_label,
        };
        panel.draw(&cells[row * columns], tpb_axis.clone(), &by_tpb)?;
        if with_occupancy {
            let by_occupancy: Vec<_> = g
                .members
                .iter()
                .filter_map(|&(i, v)| Some(((recs[i].occupancy?, v), style(i))))
                .collect();
            let panel = Panel {
                group: g,
                x_desc: "theoretical occupancy",
                x_ticks: &|x| pct(*x),
            };
            panel.draw(
                &cells[row * columns + 1],
                occupancy_axis.clone(),
                &by_occupancy,
            )?;
        }
    }
    legend_column(&legend_area, &entries)?;
    root.present()?;
    Ok(())
}

/// One panel: a group's performance, in its unit, against one x quantity.
struct Panel<'a> {
    group: &'a Group,
    x_desc: &'a str,
    x_ticks: &'a dyn Fn(&f64) -> String,
}

impl Panel<'_> {
    fn draw(
        &self,
        area: &super::Area<'_>,
        x_axis: TickAxis,
        points: &[((f64, f64), SeriesStyle)],
    ) -> Result<()> {
        let metric = self.group.metric;
        let ymax = y_max(self.group.members.iter().map(|m| m.1));
        let mut chart = ChartBuilder::on(area)
            .margin(15)
            .x_label_area_size(55)
            .y_label_area_size(90)
            .build_cartesian_2d(x_axis, 0f64..ymax)?;
        let y_ticks = |y: &f64| metric.tick(*y);
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(format!("{} ({})", self.group.name, metric.unit()))
            .x_label_formatter(self.x_ticks)
            .y_label_formatter(&y_ticks)
            .label_style(font(16))
            .axis_desc_style(font(17))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for &(p, style) in points {
            draw_series_markers(&chart, &[p], style, 8, Fill::Faint)?;
        }
        Ok(())
    }
}
