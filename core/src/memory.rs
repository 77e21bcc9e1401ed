//! Host memory for sizes that come from a file or an argument (a graph's edge list, the CPU
//! solver's V x V matrix, output staging buffers): checked against what the machine has
//! available before anything is allocated, so that a size too large is one sentence naming both
//! numbers instead of an abort or the OOM killer, then allocated fallibly, so that an allocator
//! that still refuses (a ulimit, a cgroup) is a sentence too.

use anyhow::{Result, anyhow, bail};
use bytemuck::Zeroable;

/// Host memory that new allocations can take without swapping: `MemAvailable` of
/// `/proc/meminfo`, in bytes. `None` where the kernel does not say (no `/proc`, not Linux).
pub fn available_bytes() -> Option<u64> {
    mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` of a `/proc/meminfo` text (given in KiB), in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A byte count for a sentence: GiB from 1 GiB up, else MiB, two decimals.
pub fn human_bytes(bytes: u128) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= 1024.0 * MIB {
        format!("{:.2} GiB", b / (1024.0 * MIB))
    } else {
        format!("{:.2} MiB", b / MIB)
    }
}

/// A size as people write it on a command line (`--device-memory-limit 4GiB`): a number,
/// possibly with a fraction, and a unit: none or `B` for bytes, `KiB`/`MiB`/`GiB`/`TiB` (or
/// `K`/`M`/`G`/`T`, also binary) and `KB`/`MB`/`GB`/`TB` (decimal), in any case, with or
/// without a space. Bytes, or one sentence naming what is wrong. The one size parser.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => {
            return Err(format!(
                "{text:?} is not a size: the unit {unit:?} is none of B, KiB, MiB, GiB, TiB, \
                 KB, MB, GB, TB"
            ));
        }
    };
    let value: f64 = match number.parse() {
        Ok(v) if !number.is_empty() => v,
        _ => return Err(format!("{text:?} is not a size such as 4GiB or 512MiB")),
    };
    let bytes = (value * scale).round();
    if !(bytes.is_finite() && bytes < u64::MAX as f64) {
        return Err(format!("{text:?} is larger than any memory"));
    }
    if scale == 1.0 && number.contains('.') {
        return Err(format!("{text:?} is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Fails with one sentence when `bytes` of host memory for `what` (a noun phrase: "the
/// 100000 x 100000 distance matrix") exceed [`available_bytes`]. Passes where the amount is
/// unknown: the allocation that follows is fallible anyway.
pub fn ensure_available(what: &str, bytes: u128) -> Result<()> {
    match available_bytes() {
        Some(available) if bytes > available as u128 => bail!(
            "{what} needs {} of host memory but only {} is available",
            human_bytes(bytes),
            human_bytes(available as u128)
        ),
        _ => Ok(()),
    }
}

/// `len` zeroed values of `T` for `what`: checked with [`ensure_available`], then one fallible
/// zeroed allocation (untouched pages cost nothing until written, as with `vec![0; len]`).
pub fn zeroed_vec<T: Zeroable>(what: &str, len: usize) -> Result<Vec<T>> {
    let bytes = len as u128 * size_of::<T>() as u128;
    ensure_available(what, bytes)?;
    bytemuck::allocation::try_zeroed_vec(len).map_err(|()| cannot_allocate(what, bytes))
}

/// `count` zeroed buffers of `len` values of `T` for `what`: the total checked once (untouched
/// buffers do not lower `MemAvailable`, so checking them one at a time would pass them all).
pub fn zeroed_vecs<T: Zeroable>(what: &str, count: usize, len: usize) -> Result<Vec<Vec<T>>> {
    let total = count as u128 * len as u128 * size_of::<T>() as u128;
    ensure_available(what, total)?;
    (0..count)
        .map(|_| {
            bytemuck::allocation::try_zeroed_vec(len).map_err(|()| cannot_allocate(what, total))
        })
        .collect()
}

/// Room for `additional` more elements in `v` for `what`: [`ensure_available`], then
/// `try_reserve_exact`.
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    let bytes = additional as u128 * size_of::<T>() as u128;
    ensure_available(what, bytes)?;
    v.try_reserve_exact(additional)
        .map_err(|_| cannot_allocate(what, bytes))
}

fn cannot_allocate(what: &str, bytes: u128) -> anyhow::Error {
    anyhow!(
        "cannot allocate {} of host memory for {what}",
        human_bytes(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available_in_bytes() {
        let text = "MemTotal:       32768000 kB\nMemFree:  100 kB\nMemAvailable:   20480 kB\n";
        assert_eq!(mem_available(text), Some(20480 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: many kB\n"), None);
    }

    #[test]
    fn sizes_parse_in_binary_and_decimal_units() {
        let cases = [
            ("4GiB", 4u64 << 30),
            ("4G", 4 << 30),
            ("512MiB", 512 << 20),
            ("512 mib", 512 << 20),
            ("1.5GiB", 3 << 29),
            ("2TB", 2_000_000_000_000),
            ("100", 100),
            ("100B", 100),
            ("64KB", 64_000),
            ("3k", 3072),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
        for bad in [
            "",
            "GiB",
            "4 GiBs",
            "-1GiB",
            "1.5",
            "1e3MiB",
            "99999999999TiB",
            "4..2G",
        ] {
            let err = parse_size(bad).unwrap_err();
            assert!(
                err.contains(&format!("{bad:?}")) && !err.contains('\n'),
                "{err}"
            );
        }
    }

    #[test]
    fn sizes_read_as_gib_or_mib() {
        assert_eq!(human_bytes(40_000_000_000), "37.25 GiB");
        assert_eq!(human_bytes(3 << 19), "1.50 MiB");
    }

    #[test]
    fn more_than_there_is_is_one_sentence_naming_both_numbers() {
        let Some(available) = available_bytes() else {
            return crate::testdata::skip(
                "more_than_there_is_is_one_sentence_naming_both_numbers",
                "no /proc/meminfo here",
            );
        };
        let want = available as u128 * 2 + (1 << 30);
        let err = zeroed_vec::<i32>("the test matrix", (want / 4) as usize)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("the test matrix needs ")
                && err.contains(&human_bytes(want / 4 * 4))
                && err.contains(" of host memory but only ")
                && err.ends_with(" is available"),
            "{err}"
        );
        let mut v: Vec<u64> = Vec::new();
        assert!(reserve(&mut v, usize::MAX / 16, "the test list").is_err());
        let small = zeroed_vecs::<i32>("two buffers", 2, 1000).unwrap();
        assert!(small.len() == 2 && small.iter().all(|b| b.len() == 1000 && b[999] == 0));
    }
}
