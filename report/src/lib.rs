//! The benchmark report (`host report`): loads the `BenchRecord`s that `host bench` writes on the
//! GPU machine and renders them into PNG charts (`plotters`, bitmap backend) and Markdown tables
//! for the docs. Its own crate so that `rgk-core` stays the formats, the CPU references, occupancy
//! and the record types, without a plotting library.
//!
//! Where several records share a configuration (kernel, config, size, threads per block) on one
//! device, only the one with the latest date is shown, so re-runs replace older numbers. Charts
//! show one device per suite: the one with the most recent record, named in the title.
//!
//! - this module: reading records;
//! - `select`: which records a chart or table shows and what their names and numbers mean;
//! - `charts`: the PNG charts; `markdown`: the tables; `format`: numbers; `links`: included
//!   Markdown's links, rebased to the report's directory.
use std::path::PathBuf;

use anyhow::{Context, Result};

// The records are rgk-core's; every module here names them `crate::bench`.
use rgk_core::bench;
// `select.rs` names the test helpers below `crate::report::tests`, as when the report was a
// module of rgk-core (a rename left for after the kernel-family work in that file).
#[cfg(test)]
use crate as report;

use bench::BenchRecord;

mod charts;
mod format;
mod links;
mod markdown;
mod select;

pub use charts::render_charts;
pub use links::{rebase_links, relative_to};
pub use markdown::markdown;

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

/// Parses benchmark records held in memory: one JSON array of records, or JSON Lines (any
/// whitespace between objects). Errors name the record and its line and column.
pub fn parse_records(text: &str) -> Result<Vec<BenchRecord>> {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bench::ApspSplit;

    pub(crate) fn rec(suite: &str, kernel: &str, size: usize) -> BenchRecord {
        BenchRecord {
            suite: suite.into(),
            kernel: kernel.into(),
            family: None,
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
            seed: None,
            device: "NVIDIA H100 80GB HBM3".into(),
            date: "2026-04-01T12:00:00Z".into(),
            commit: "abc1234".into(),
        }
    }

    pub(crate) fn synthetic() -> Vec<BenchRecord> {
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
        let dir = tempfile::tempdir().unwrap();
        let records = synthetic();
        let array = dir.path().join("array.json");
        let lines = dir.path().join("lines.jsonl");
        std::fs::write(&array, serde_json::to_string_pretty(&records[..3]).unwrap()).unwrap();
        let jsonl: String = records[3..7]
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        std::fs::write(&lines, jsonl).unwrap();
        let loaded = load_records(&[array.clone(), lines.clone()]).unwrap();
        assert_eq!(loaded, records[..7]);

        let bad = dir.path().join("bad.jsonl");
        let mut text = serde_json::to_string(&records[0]).unwrap();
        text.push_str("\n{\"suite\": \"matmul\", not json}\n");
        std::fs::write(&bad, text).unwrap();
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&bad)).unwrap_err()
        );
        assert!(err.contains(&bad.display().to_string()), "{err}");
        assert!(err.contains("line 2"), "{err}");

        let bad_array = dir.path().join("bad.json");
        std::fs::write(&bad_array, "[{\"suite\": \"matmul\"}]").unwrap();
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&bad_array)).unwrap_err()
        );
        assert!(err.contains(&bad_array.display().to_string()), "{err}");

        let missing = dir.path().join("missing.json");
        let err = format!(
            "{:#}",
            load_records(std::slice::from_ref(&missing)).unwrap_err()
        );
        assert!(err.contains(&missing.display().to_string()), "{err}");
    }
}
