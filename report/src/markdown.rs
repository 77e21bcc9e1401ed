//! The Markdown report: a section per suite with its charts and tables, each table naming the
//! device, dates and commits of its records.
//!
//! The tables are formatted here rather than by a table crate: the Markdown styles of `tabled`
//! and `comfy-table` pad cells but cannot mark columns right-aligned (`---:`), which the number
//! columns need (tabled issue #539).
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::format::{fmt_num, fmt_si};
use super::select::{
    STAGES, Suite, family, is_cublas, latest, matmul_gflops, natural_key, performance, stages,
    threads_groups,
};
use crate::bench::BenchRecord;

/// Markdown: one section per suite with tables (numbers formatted sensibly), each naming device,
/// date and commit(s) of its records; image links to the charts given as (title, relative path).
/// A chart belongs to the suite whose name starts its file name (`matmul_…`); others get a
/// section of their own at the end.
pub fn markdown(records: &[BenchRecord], charts: &[(String, String)]) -> String {
    let mut out = String::from("# Benchmark results\n\n");
    let suites: BTreeSet<Suite> = records.iter().map(|r| Suite::of(&r.suite)).collect();
    if suites.is_empty() {
        out.push_str("No benchmark records.\n\n");
    }
    let mut chart_used = vec![false; charts.len()];
    for suite in suites {
        let _ = writeln!(out, "## {}\n", suite_title(&suite));
        if let Some(blurb) = suite_blurb(&suite) {
            let _ = writeln!(out, "{blurb}\n");
        }
        for (i, (title, path)) in charts.iter().enumerate() {
            if chart_belongs_to(path, &suite) {
                let _ = writeln!(out, "![{title}]({path})\n");
                chart_used[i] = true;
            }
        }
        let mut by_device: BTreeMap<&str, Vec<&BenchRecord>> = BTreeMap::new();
        for r in records.iter().filter(|r| Suite::of(&r.suite) == suite) {
            by_device.entry(r.device.as_str()).or_default().push(r);
        }
        let several = by_device.len() > 1;
        for (device, recs) in by_device {
            let recs = latest(recs);
            if several {
                let _ = writeln!(out, "### {}\n", one_line(device));
            }
            let _ = writeln!(out, "{}\n", provenance(device, &recs));
            out.push_str(&match suite {
                Suite::Matmul => matmul_table(&recs),
                Suite::Threads => threads_table(&recs),
                Suite::Apsp => apsp_table(&recs),
                Suite::Other(_) => generic_table(&recs),
            });
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

fn suite_title(suite: &Suite) -> String {
    match suite {
        Suite::Matmul => "SGEMM (suite `matmul`)".into(),
        Suite::Threads => "Threads per block and occupancy (suite `threads`)".into(),
        Suite::Apsp => "All-pairs shortest paths (suite `apsp`)".into(),
        Suite::Other(name) => format!("Suite `{name}`"),
    }
}

fn suite_blurb(suite: &Suite) -> Option<&'static str> {
    match suite {
        Suite::Matmul => Some(
            "Square N×N single-precision matrix multiply; GFLOP/s = 2N³ / median time. \
             \"vs cuBLAS\" is the throughput relative to `cublas_sgemm` at the same N.",
        ),
        Suite::Threads => Some(
            "Tiled SGEMM (GFLOP/s) and Floyd–Warshall phase 3 (updates/s) across block shapes. \
             \"Relative\" is the performance divided by the best of the same kernel family.",
        ),
        Suite::Apsp => Some(
            "Blocked Floyd–Warshall on V vertices, file to file; stage times in milliseconds. \
             Updates/s = V³ / compute time.",
        ),
        Suite::Other(_) => None,
    }
}

fn chart_belongs_to(path: &str, suite: &Suite) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.strip_prefix(suite.name())
        .is_some_and(|rest| rest.starts_with(['_', '.']))
}

/// `text` with line breaks as spaces: a record's strings end up in table rows and headings,
/// which a line break would cut short (found by fuzzing `bench_records`).
fn one_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\n', '\r'], " ")
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
        "Device: **{}** · {date} · {label} {} · {} record{}",
        one_line(device),
        commits.join(", "),
        recs.len(),
        if recs.len() == 1 { "" } else { "s" }
    )
}

/// A Markdown table; columns from `right_from` on are right-aligned (numbers).
fn table(header: &[&str], right_from: usize, rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = (0..header.len())
        .map(|i| if i >= right_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| one_line(c).replace('|', "\\|"))
            .collect();
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
    for group in threads_groups(recs) {
        let best = group.best();
        for &(i, v) in &group.members {
            relative[i] = (best > 0.0).then(|| v / best);
        }
    }
    let mut order: Vec<usize> = (0..recs.len()).collect();
    order.sort_by_key(|&i| {
        let r = recs[i];
        (family(r), r.size, r.threads_per_block, &r.kernel)
    });
    let rows: Vec<Vec<String>> = order
        .into_iter()
        .map(|i| {
            let r = recs[i];
            let perf = performance(r).map_or_else(
                || "—".into(),
                |(metric, v)| format!("{} {}", metric.format(v), metric.unit()),
            );
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
    recs.sort_by_cached_key(|r| (r.size, natural_key(&r.kernel), &r.config));
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
                None => row.extend(std::iter::repeat_n("—".to_string(), STAGES.len() + 1)),
            }
            row
        })
        .collect();
    let capitalised: Vec<String> = STAGES
        .iter()
        .map(|s| s[..1].to_uppercase() + &s[1..])
        .collect();
    let mut header = vec!["Kernel", "V", "Median (ms)", "Reps", "Updates/s"];
    header.extend(capitalised.iter().map(String::as_str));
    header.push("Total (ms)");
    table(&header, 1, &rows)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{rec, synthetic};

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
        let sgemm = md.find("## SGEMM").unwrap();
        let chart = md
            .find("![SGEMM throughput](charts/matmul_gflops.png)")
            .unwrap();
        let threads = md.find("## Threads").unwrap();
        assert!(sgemm < chart && chart < threads, "chart outside its suite");
        assert!(md.contains("## Charts\n\n![Extra](charts/extra.png)"));
        assert!(md.contains("date 2026-04-01T12:00:00Z"));
        // cuBLAS at 8192 runs 50,000 GFLOP/s.
        assert!(md.contains("| 50,000 |"));
    }

    #[test]
    fn charts_go_to_the_suite_their_name_starts_with() {
        assert!(chart_belongs_to(
            "img/matmul_gflops_vec.png",
            &Suite::Matmul
        ));
        assert!(chart_belongs_to("threads_occupancy.png", &Suite::Threads));
        assert!(!chart_belongs_to("img/matmulx.png", &Suite::Matmul));
        assert!(!chart_belongs_to("img/apsp_rate.png", &Suite::Matmul));
    }
}
