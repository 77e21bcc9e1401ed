//! Which records a chart or table shows, and what the kernel names and metrics mean: the suite
//! of a record, kernel families, the performance number of a record and the latest-wins rule.
use std::collections::{BTreeMap, BTreeSet};

use gpu_kernels::registry;

use super::format::{fmt_num, fmt_si, fmt_si_tick, fmt_tick};
use crate::bench::BenchRecord;

/// A benchmark suite. Records carry it as a string; the ones the report knows get their own
/// tables and charts, any other is shown in a generic table. The order is the report's order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Suite {
    /// Square SGEMM, GFLOP/s against N.
    Matmul,
    /// Performance against threads per block and occupancy.
    Threads,
    /// APSP file to file: time split and update rate against V.
    Apsp,
    Other(String),
}

impl Suite {
    pub(super) fn of(name: &str) -> Suite {
        match name {
            "matmul" => Suite::Matmul,
            "threads" => Suite::Threads,
            "apsp" => Suite::Apsp,
            other => Suite::Other(other.to_string()),
        }
    }

    /// The name records carry.
    pub(super) fn name(&self) -> &str {
        match self {
            Suite::Matmul => "matmul",
            Suite::Threads => "threads",
            Suite::Apsp => "apsp",
            Suite::Other(name) => name,
        }
    }
}

/// What a performance number counts, from the field a record fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Metric {
    Gflops,
    UpdatesPerSecond,
}

impl Metric {
    pub(super) fn unit(self) -> &'static str {
        match self {
            Metric::Gflops => "GFLOP/s",
            Metric::UpdatesPerSecond => "updates/s",
        }
    }

    /// A value in this unit, for table cells.
    pub(super) fn format(self, v: f64) -> String {
        match self {
            Metric::Gflops => fmt_num(v),
            Metric::UpdatesPerSecond => fmt_si(v),
        }
    }

    /// A value in this unit, for axis ticks.
    pub(super) fn tick(self, v: f64) -> String {
        match self {
            Metric::Gflops => fmt_tick(v),
            Metric::UpdatesPerSecond => fmt_si_tick(v),
        }
    }
}

/// A record's performance number: GFLOP/s when it has them, else updates per second.
pub(super) fn performance(r: &BenchRecord) -> Option<(Metric, f64)> {
    let (metric, v) = match (r.gflops, r.updates_per_s) {
        (Some(g), _) => (Metric::Gflops, g),
        (None, Some(u)) => (Metric::UpdatesPerSecond, u),
        (None, None) => return None,
    };
    v.is_finite().then_some((metric, v))
}

/// The records of one suite on the device with the most recent record, deduplicated by
/// [`latest`]: mixing devices on one chart would compare unlike things.
pub(super) fn chart_records<'a>(
    records: &'a [BenchRecord],
    suite: &Suite,
) -> (&'a str, Vec<&'a BenchRecord>) {
    let in_suite = records.iter().filter(|r| Suite::of(&r.suite) == *suite);
    let Some(newest) = in_suite.clone().max_by(|a, b| a.date.cmp(&b.date)) else {
        return ("", Vec::new());
    };
    let device = newest.device.as_str();
    let recs = latest(in_suite.filter(|r| r.device == device).collect());
    (device, recs)
}

/// One record per (kernel, config, size, threads per block): the latest by date, later input
/// winning ties. Sorted by that key, kernels in [`natural_key`] order.
pub(super) fn latest(records: Vec<&BenchRecord>) -> Vec<&BenchRecord> {
    let mut map: BTreeMap<(&str, &str, usize, u32), &BenchRecord> = BTreeMap::new();
    for r in records {
        let key = (
            r.kernel.as_str(),
            r.config.as_str(),
            r.size,
            r.threads_per_block,
        );
        match map.get(&key) {
            Some(old) if old.date > r.date => {}
            _ => {
                map.insert(key, r);
            }
        }
    }
    let mut out: Vec<&BenchRecord> = map.into_values().collect();
    // Stable: equal natural keys keep the map's order.
    out.sort_by_cached_key(|r| natural_key(&r.kernel));
    out
}

/// The SGEMM reference every kernel is compared with.
pub(super) fn is_cublas(kernel: &str) -> bool {
    kernel == "cublas_sgemm"
}

/// A record's kernel family: the one it carries, else the registry's for its kernel, else the
/// kernel's own name (cuBLAS, whole APSP solves: each a family of its own).
pub(super) fn family(r: &BenchRecord) -> &str {
    r.family
        .or_else(|| registry::family_of(&r.kernel))
        .map_or(r.kernel.as_str(), |f| f.name())
}

/// GFLOP/s of a square SGEMM record, derived from the median time when not recorded.
pub(super) fn matmul_gflops(r: &BenchRecord) -> Option<f64> {
    r.gflops
        .or_else(|| {
            let n = r.size as f64;
            (r.median_ms > 0.0).then(|| 2.0 * n * n * n / (r.median_ms * 1e-3) / 1e9)
        })
        .filter(|g| g.is_finite())
}

/// A sort key that orders the numbers inside names by value: `fw_b16` < `fw_b32` < `fw_b64`,
/// `matmul_tiled_t8` < `matmul_tiled_t16`. Each part is a run of non-digits and the number after
/// it (`u128`, saturating: longer numbers only need to sort consistently).
pub(super) fn natural_key(name: &str) -> Vec<(&str, u128)> {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let text_end = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (text, tail) = rest.split_at(text_end);
        let digits_end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, tail) = tail.split_at(digits_end);
        let number = digits.bytes().fold(0u128, |n, d| {
            n.saturating_mul(10).saturating_add(u128::from(d - b'0'))
        });
        key.push((text, number));
        rest = tail;
    }
    key
}

/// Series label per record: the kernel, plus its config when a kernel has several.
pub(super) fn series_labels(recs: &[&BenchRecord]) -> Vec<String> {
    let mut configs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in recs {
        configs.entry(&r.kernel).or_default().insert(&r.config);
    }
    recs.iter()
        .map(|r| {
            if configs[r.kernel.as_str()].len() > 1 {
                format!("{} ({})", r.kernel, r.config)
            } else {
                r.kernel.clone()
            }
        })
        .collect()
}

/// Records of the "threads" suite measured against each other: one family at one size, in one
/// unit. Members are record indices with their performance.
pub(super) struct Group {
    pub(super) name: String,
    pub(super) metric: Metric,
    pub(super) members: Vec<(usize, f64)>,
}

impl Group {
    pub(super) fn best(&self) -> f64 {
        self.members.iter().map(|m| m.1).fold(0.0, f64::max)
    }
}

/// "threads" records grouped by family, size (when a family ran at several: comparing across
/// sizes would mix unlike runs) and unit, in that order.
pub(super) fn threads_groups(recs: &[&BenchRecord]) -> Vec<Group> {
    let mut sizes: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for r in recs {
        sizes.entry(family(r)).or_default().insert(r.size);
    }
    let mut groups: Vec<Group> = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let Some((metric, v)) = performance(r) else {
            continue;
        };
        let fam = family(r);
        let name = if sizes[fam].len() > 1 {
            format!("{fam}, size {}", r.size)
        } else {
            fam.to_string()
        };
        match groups
            .iter_mut()
            .find(|g| g.name == name && g.metric == metric)
        {
            Some(g) => g.members.push((i, v)),
            None => groups.push(Group {
                name,
                metric,
                members: vec![(i, v)],
            }),
        }
    }
    groups.sort_by(|a, b| a.name.cmp(&b.name));
    groups
}

/// The stages of an APSP run, file to file, in order.
pub(super) const STAGES: [&str; 6] = ["read", "fill", "H2D", "compute", "D2H", "write"];

/// Seconds per stage of a record (`STAGES` order); missing or invalid times count as 0.
pub(super) fn stages(r: &BenchRecord) -> [f64; 6] {
    let s = r.split.unwrap_or_default();
    [
        s.read_s,
        s.fill_s,
        s.host_to_device_s,
        s.compute_s,
        s.device_to_host_s,
        s.write_s,
    ]
    .map(|v| if v.is_finite() && v > 0.0 { v } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::rec;

    #[test]
    fn latest_record_wins() {
        let mut old = rec("matmul", "matmul_tiled", 1024);
        old.gflops = Some(1.0);
        let mut new = old.clone();
        new.date = "2026-05-01T00:00:00Z".into();
        new.gflops = Some(2.0);
        let picked = latest(vec![&new, &old]);
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].gflops, Some(2.0));
    }

    #[test]
    fn natural_order_sorts_numbers_by_value() {
        let mut names = [
            "fw_b64",
            "matmul_tiled_t8",
            "fw_b16",
            "matmul_tiled_t16",
            "fw_b32",
            "fw",
        ];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(
            names,
            [
                "fw",
                "fw_b16",
                "fw_b32",
                "fw_b64",
                "matmul_tiled_t8",
                "matmul_tiled_t16"
            ]
        );
        assert!(natural_key("k99999999999999999999999999999999999999999") > natural_key("k9"));
    }

    #[test]
    fn families_and_suites() {
        // Every kernel of the registry has the registry's family, whether or not its record
        // carries it; a record's own family wins; other names are their own family.
        for k in registry::KERNELS {
            let mut r = rec("matmul", k.name, 1024);
            assert_eq!(family(&r), k.family.name(), "{}", k.name);
            r.family = Some(k.family);
            assert_eq!(family(&r), k.family.name(), "{}", k.name);
        }
        let mut r = rec("matmul", "custom_kernel", 1024);
        assert_eq!(family(&r), "custom_kernel");
        r.family = Some(registry::Family::Tiled);
        assert_eq!(family(&r), "tiled");
        assert_eq!(family(&rec("matmul", "cublas_sgemm", 1)), "cublas_sgemm");
        assert_eq!(family(&rec("apsp", "fw_b64", 1)), "fw_b64");
        for name in ["matmul", "threads", "apsp", "custom"] {
            assert_eq!(Suite::of(name).name(), name);
        }
        assert!(Suite::Matmul < Suite::Threads && Suite::Apsp < Suite::of("a"));
    }

    #[test]
    fn threads_groups_split_sizes_and_units() {
        let mut a = rec("threads", "matmul_tiled_t8", 1024);
        a.gflops = Some(10.0);
        let mut b = rec("threads", "matmul_tiled_t16", 2048);
        b.gflops = Some(30.0);
        let mut c = rec("threads", "fw_phase3_b16", 8192);
        c.updates_per_s = Some(1e11);
        let d = rec("threads", "fw_phase3_b32", 8192);
        let groups = threads_groups(&[&a, &b, &c, &d]);
        let names: Vec<_> = groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["fw_phase3", "tiled, size 1024", "tiled, size 2048"]);
        assert_eq!(groups[0].metric, Metric::UpdatesPerSecond);
        // d has no performance number and is left out.
        assert_eq!(groups[0].members, [(2, 1e11)]);
        assert_eq!(groups[2].best(), 30.0);
    }
}
