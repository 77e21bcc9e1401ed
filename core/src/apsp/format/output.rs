//! The output file: V x V distances, row after row, each an int32 little-endian, `d[i][i] = 0`
//! and [`INF`](super::INF) where there is no path. Every writer of it goes through this
//! encoding: [`write_distances`] here, and the streaming writer of `host` (chunks of rows at
//! offsets [`row_bytes`] apart, [`encode`]d).
use std::path::Path;

use anyhow::{Context, Result, ensure};

use super::write_atomically;

/// Bytes of one distance in the file.
pub const DISTANCE_BYTES: usize = std::mem::size_of::<i32>();

/// Bytes of one row of the output of a graph on `vertices` vertices.
pub fn row_bytes(vertices: usize) -> u64 {
    (DISTANCE_BYTES * vertices) as u64
}

/// Bytes of the whole output of a graph on `vertices` vertices: as many rows.
pub fn output_len(vertices: usize) -> u64 {
    row_bytes(vertices) * vertices as u64
}

/// The bytes that `distances` (whole rows, one after another) take in the file. The format's
/// little-endian int32 are the host's own (a big-endian host does not compile, see the reader),
/// so this is a view of the same memory, not a copy.
pub fn encode(distances: &[i32]) -> &[u8] {
    bytemuck::cast_slice(distances)
}

/// Writes the top-left `v x v` block of a matrix with row pitch `pitch` as the output file, in
/// one pass through [`write_atomically`]. For outputs that fit in memory (tests, references);
/// `host` streams large ones from the GPU with the same [`encode`].
pub fn write_distances(path: &Path, dist: &[i32], v: usize, pitch: usize) -> Result<()> {
    ensure!(pitch >= v, "pitch {pitch} is smaller than V = {v}");
    let needed = if v == 0 { 0 } else { (v - 1) * pitch + v };
    ensure!(
        dist.len() >= needed,
        "distance buffer has {} elements, {v} rows of pitch {pitch} need {needed}",
        dist.len()
    );
    write_atomically(path, |w| {
        for row in 0..v {
            w.write_all(encode(&dist[row * pitch..row * pitch + v]))?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write distances to {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file bytes restated from the format's description, one field at a time.
    fn by_hand(dist: &[i32], v: usize, pitch: usize) -> Vec<u8> {
        (0..v)
            .flat_map(|i| dist[i * pitch..i * pitch + v].iter())
            .flat_map(|d| d.to_le_bytes())
            .collect()
    }

    #[test]
    fn rows_are_little_endian_int32_without_padding() {
        let dir = tempfile::tempdir().unwrap();
        for (v, pitch) in [(0, 0), (1, 1), (3, 5), (70, 96)] {
            let dist: Vec<i32> = (0..v * pitch).map(|i| i as i32 * 7919 - 40_000).collect();
            let path = dir.path().join(format!("d{v}.out"));
            write_distances(&path, &dist, v, pitch).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.len() as u64, output_len(v), "V = {v}");
            assert!(bytes == by_hand(&dist, v, pitch), "V = {v}");
        }
    }
}
