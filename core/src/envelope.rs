//! The one shape of every `--json` output of the `host` CLI (docs/json.md):
//!
//! ```json
//! { "schema": 1, "command": "apsp", "device": { ... }, "commit": "...", "date": "...",
//!   "results": ... }
//! ```
//!
//! `device` is a [`Device`] whatever ran the work (a GPU, or the CPU for CPU-only commands),
//! `commit` the source revision the binary was built from, `date` the UTC time of the run
//! (RFC 3339) and `results` the subcommand's records.
use serde::{Deserialize, Serialize};

use crate::bench::now_utc;

/// Version of the envelope and of the records inside it; bumped when a field changes meaning
/// or disappears (adding a field does not bump it).
pub const SCHEMA: u32 = 1;

/// What ran the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Gpu,
    Cpu,
}

/// The machine a result was measured on; the same fields for a GPU and for the CPU, `null`
/// where a field has no meaning for the kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Device {
    pub kind: DeviceKind,
    /// Product name: "NVIDIA H100 80GB HBM3", or the CPU's model name.
    pub name: String,
    /// How many such devices did the work.
    pub count: u32,
    /// Streaming multiprocessors of one GPU, or logical CPUs used.
    pub processors: u32,
    /// Memory of one GPU, or the machine's RAM (None where unknown).
    pub memory_bytes: Option<u64>,
    /// "9.0" for a GPU; None for the CPU.
    pub compute_capability: Option<String>,
    /// Rated SM clock of a GPU; None for the CPU.
    pub clock_mhz: Option<u32>,
    /// CUDA driver version of a GPU ("13.0"); None for the CPU.
    pub driver: Option<String>,
}

impl Device {
    /// This machine's CPU as a [`Device`]: the model name from /proc/cpuinfo, `threads` logical
    /// CPUs (those the work may use), the RAM from /proc/meminfo.
    pub fn cpu(threads: usize) -> Device {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let name = field(&cpuinfo, "model name").unwrap_or_else(|| std::env::consts::ARCH.into());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_bytes = field(&meminfo, "MemTotal").and_then(|v| {
            let kib: u64 = v.trim_end_matches("kB").trim().parse().ok()?;
            Some(kib * 1024)
        });
        Device {
            kind: DeviceKind::Cpu,
            name,
            count: 1,
            processors: u32::try_from(threads).unwrap_or(u32::MAX),
            memory_bytes,
            compute_capability: None,
            clock_mhz: None,
            driver: None,
        }
    }
}

/// The value of the first `key : value` line of a /proc file.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// One `--json` output: see the module documentation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope<T> {
    pub schema: u32,
    /// The subcommand that wrote it ("apsp", "matmul-cpu", ...).
    pub command: String,
    pub device: Device,
    pub commit: String,
    /// UTC, RFC 3339 (`2026-11-22T07:30:00Z`).
    pub date: String,
    pub results: T,
}

impl<T> Envelope<T> {
    /// The envelope of `results`, dated now.
    pub fn new(command: &str, device: Device, commit: &str, results: T) -> Self {
        Envelope {
            schema: SCHEMA,
            command: command.into(),
            device,
            commit: commit.into(),
            date: now_utc(),
            results,
        }
    }
}

/// The source revision a binary was built from: `GPU_KERNELS_COMMIT` if set at run time (for
/// binaries built outside a checkout), else `built` (captured by the build script), else
/// "unknown".
pub fn commit(built: Option<&str>) -> String {
    std::env::var("GPU_KERNELS_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or(built.filter(|c| !c.is_empty()).map(String::from))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_the_documented_keys() {
        let e = Envelope::new("apsp", Device::cpu(2), "abc123", vec![1, 2]);
        let v = serde_json::to_value(&e).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            ["command", "commit", "date", "device", "results", "schema"]
        );
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["device"]["kind"], "cpu");
        assert_eq!(v["device"]["processors"], 2);
        assert_eq!(v["results"], serde_json::json!([1, 2]));
    }

    #[test]
    fn cpu_fields_come_from_proc_files() {
        let text = "processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\nMemTotal:       1024 kB\n";
        assert_eq!(
            field(text, "model name").as_deref(),
            Some("Some CPU @ 2.0GHz")
        );
        assert_eq!(field(text, "MemTotal").as_deref(), Some("1024 kB"));
        assert_eq!(field(text, "flags"), None);
    }

    #[test]
    fn commit_falls_back_to_unknown() {
        // The variable is not set in tests; if a caller sets it, it wins, which is also right.
        if std::env::var_os("GPU_KERNELS_COMMIT").is_none() {
            assert_eq!(commit(None), "unknown");
            assert_eq!(commit(Some("")), "unknown");
            assert_eq!(commit(Some("5f37333")), "5f37333");
        }
    }
}
