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
