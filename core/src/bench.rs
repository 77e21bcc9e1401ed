//! Benchmark records: one JSON object per measured configuration, written by `host bench` on
//! the GPU machine and rendered into tables and charts by `host report` (see `report`).
use gpu_kernels::registry::Family;
use serde::{Deserialize, Serialize};

/// Seconds per stage of one APSP run, file to file.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ApspSplit {
    pub read_s: f64,
    pub fill_s: f64,
    pub host_to_device_s: f64,
    pub compute_s: f64,
    pub device_to_host_s: f64,
    pub write_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BenchRecord {
    /// "matmul" (GFLOP/s vs N), "apsp" (time split vs V), "threads" (performance vs threads per
    /// block / occupancy: tiled SGEMM and FW phase 3).
    pub suite: String,
    /// Kernel name, "cublas_sgemm", or "fw_b16"/"fw_b32"/"fw_b64" for a whole APSP solve.
    pub kernel: String,
    /// The kernel's family in the registry (`gpu_kernels::registry`), by name; absent for
    /// cuBLAS, whole APSP solves and records from before it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "family_name")]
    pub family: Option<Family>,
    /// Human-readable configuration, e.g. "tile 64x64x32, block 16x16, item 4x4".
    pub config: String,
    /// N for square SGEMM, V for APSP.
    pub size: usize,
    pub threads_per_block: u32,
    pub registers: Option<u32>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub reps: usize,
    pub gflops: Option<f64>,
    pub updates_per_s: Option<f64>,
    /// Theoretical occupancy (0..1) from the project's calculator.
    pub occupancy: Option<f64>,
    pub split: Option<ApspSplit>,
    /// `host bench --seed`: the inputs are a function of it (absent in records from before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub device: String,
    /// UTC, ISO 8601.
    pub date: String,
    pub commit: String,
}

/// One problem of `host bench sgemm-shapes` (suite "sgemm-shapes"): the library's time with its
/// default choice and cuBLAS's matching call's, on the same inputs (docs/json.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ShapeRecord {
    pub suite: String,
    /// The suite file's line: `M N K OPS BATCH`.
    pub problem: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// op(A) op(B): "NN", "TN", "NT" or "TT".
    pub ops: String,
    pub batch: usize,
    /// Median and fastest of `reps` timed calls, milliseconds.
    pub rgk_ms: f64,
    pub rgk_min_ms: f64,
    pub cublas_ms: Option<f64>,
    pub cublas_min_ms: Option<f64>,
    pub reps: usize,
    /// 2·M·N·K·batch / median time.
    pub rgk_gflops: f64,
    pub cublas_gflops: Option<f64>,
    /// 100 · cuBLAS's median / the library's: above 100, the library is faster.
    pub percent_of_cublas: Option<f64>,
    /// The library's result against the f64 reference (sampled problems and rows).
    pub checked_cells: usize,
    pub failures: usize,
    pub max_scaled_error: f64,
    pub seed: u64,
    pub device: String,
    pub date: String,
    pub commit: String,
}

/// The last record of `host bench sgemm-shapes` (suite "sgemm-shapes-summary").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ShapeSummary {
    pub suite: String,
    pub problems: usize,
    /// Geometric mean of `percent_of_cublas` over the problems that have it.
    pub geomean_percent_of_cublas: Option<f64>,
    pub min_percent_of_cublas: Option<f64>,
    /// The problems below 90% of cuBLAS.
    pub below_90_percent: Vec<String>,
    pub device: String,
    pub date: String,
    pub commit: String,
}

/// Geometric mean of positive `values` (`None` when there are none).
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    let v: Vec<f64> = values.iter().copied().filter(|x| *x > 0.0).collect();
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// A [`Family`] as its name ([`Family::name`]) in JSON.
mod family_name {
    use gpu_kernels::registry::Family;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(f: &Option<Family>, s: S) -> Result<S::Ok, S::Error> {
        match f {
            Some(f) => s.serialize_some(f.name()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Family>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|name| {
                Family::from_name(&name)
                    .ok_or_else(|| D::Error::custom(format!("unknown kernel family {name:?}")))
            })
            .transpose()
    }
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_mean_of_ratios() {
        assert_eq!(geometric_mean(&[]), None);
        let g = geometric_mean(&[50.0, 200.0]).unwrap();
        assert!((g - 100.0).abs() < 1e-9, "{g}");
        assert!((geometric_mean(&[90.0]).unwrap() - 90.0).abs() < 1e-9);
    }

    #[test]
    fn date_is_iso_8601_utc() {
        let d = now_utc();
        assert_eq!(d.len(), 20, "{d}");
        assert!(
            d.ends_with('Z') && &d[4..5] == "-" && &d[10..11] == "T",
            "{d}"
        );
        let year: u32 = d[..4].parse().unwrap();
        assert!((2024..2200).contains(&year), "{d}");
    }

    #[test]
    fn records_round_trip_through_json() {
        let r = BenchRecord {
            suite: "apsp".into(),
            kernel: "fw_phase3_b64".into(),
            family: Some(Family::FwPhase3),
            config: "block 64".into(),
            size: 10_000,
            threads_per_block: 1024,
            registers: None,
            median_ms: 1.5,
            min_ms: 1.0,
            max_ms: 2.0,
            reps: 1,
            gflops: None,
            updates_per_s: Some(1e12),
            occupancy: Some(0.5),
            split: Some(ApspSplit {
                compute_s: 0.0015,
                ..Default::default()
            }),
            seed: Some(1),
            device: "GPU".into(),
            date: now_utc(),
            commit: "abc".into(),
        };
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains(r#""family":"fw_phase3""#), "{json}");
        let back: BenchRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // Records without the field (cuBLAS, older records) read as no family; an unknown
        // family is an error naming it.
        let old = json.replace(r#""family":"fw_phase3","#, "");
        let back: BenchRecord = serde_json::from_str(&old).unwrap();
        assert_eq!(back.family, None);
        let bad = json.replace("fw_phase3", "warp_drive");
        let e = serde_json::from_str::<BenchRecord>(&bad).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown kernel family \"warp_drive\""),
            "{e}"
        );
    }
}
