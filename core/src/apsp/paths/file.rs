//! The path file (`host apsp --paths FILE`, read by `host path`), all little-endian, the one
//! owner of its layout:
//!
//! | bytes | what |
//! |---|---|
//! | 0..8 | the magic `RGKPATHS` |
//! | 8..12 | int32 V |
//! | 12..16 | int32 kind: 0 successors, 1 predecessors ([`PathKind::code`]) |
//! | 16.. | V x V int32, row-major: cell `(i, j)` at byte `16 + 4 (i V + j)` (64-bit offsets) |
//!
//! The cells are those of [`PathKind`]. A path is read with one positioned read per cell it
//! needs ([`PathFile`]), never the whole file.
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{PathKind, PathMatrix, walk};
use crate::apsp::format::{encode, write_atomically};

/// The file's first 8 bytes.
pub const PATH_MAGIC: [u8; 8] = *b"RGKPATHS";
/// Bytes before the first cell.
pub const PATH_HEADER_BYTES: u64 = 16;

/// The header of a `kind` file of `vertices` vertices.
pub fn path_header(kind: PathKind, vertices: usize) -> Result<[u8; PATH_HEADER_BYTES as usize]> {
    let v = i32::try_from(vertices)
        .with_context(|| format!("V = {vertices} does not fit the path file's int32"))?;
    let mut h = [0u8; PATH_HEADER_BYTES as usize];
    h[..8].copy_from_slice(&PATH_MAGIC);
    h[8..12].copy_from_slice(&v.to_le_bytes());
    h[12..16].copy_from_slice(&(kind.code() as i32).to_le_bytes());
    Ok(h)
}

/// Byte offset of cell `(i, j)` in a file of `vertices` vertices.
pub fn cell_offset(vertices: usize, i: usize, j: usize) -> u64 {
    PATH_HEADER_BYTES + 4 * (i as u64 * vertices as u64 + j as u64)
}

/// Byte offset of row `i` (its first cell).
pub fn row_offset(vertices: usize, i: usize) -> u64 {
    cell_offset(vertices, i, 0)
}

/// Bytes of the whole file.
pub fn path_file_len(vertices: usize) -> u64 {
    cell_offset(vertices, vertices, 0)
}

/// Writes `m` as a path file in one pass through a temporary file (for matrices in memory: the
/// CPU solver, tests; `host` streams the GPU's from the device).
pub fn write_path_matrix(path: &Path, m: &PathMatrix) -> Result<()> {
    let header = path_header(m.kind, m.vertices)?;
    write_atomically(path, |w| {
        w.write_all(&header)?;
        w.write_all(encode(&m.cells))?;
        Ok(())
    })
    .with_context(|| format!("cannot write the paths to {}", path.display()))
}

/// An open path file: its header read and checked against its length; cells read on demand.
#[derive(Debug)]
pub struct PathFile {
    file: File,
    path: PathBuf,
    pub kind: PathKind,
    pub vertices: usize,
}

impl PathFile {
    /// Opens `path`; one sentence (a [`crate::BadInput`]) for a file that is not a path file.
    pub fn open(path: &Path) -> Result<PathFile> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let len = file.metadata()?.len();
        let mut h = [0u8; PATH_HEADER_BYTES as usize];
        let bad =
            |why: String| crate::bad_input(format!("{} is not a path file: {why}", path.display()));
        if len < PATH_HEADER_BYTES {
            return bad(format!(
                "it has {len} bytes, fewer than the {PATH_HEADER_BYTES}-byte header"
            ));
        }
        file.read_exact_at(&mut h, 0)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if h[..8] != PATH_MAGIC {
            return bad(
                "it does not start with RGKPATHS (write one with `host apsp --paths`)".into(),
            );
        }
        let v = i32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
        let code = i32::from_le_bytes(h[12..16].try_into().expect("4 bytes"));
        let Some(kind) = u32::try_from(code).ok().and_then(PathKind::from_code) else {
            return bad(format!(
                "its kind {code} is neither 0 (successors) nor 1 (predecessors)"
            ));
        };
        let Ok(vertices) = usize::try_from(v) else {
            return bad(format!("its V = {v} is negative"));
        };
        if len != path_file_len(vertices) {
            return bad(format!(
                "it has {len} bytes, but V = {vertices} needs {}",
                path_file_len(vertices)
            ));
        }
        Ok(PathFile {
            file,
            path: path.to_path_buf(),
            kind,
            vertices,
        })
    }

    /// Cell `(i, j)`, one positioned read.
    pub fn cell(&self, i: usize, j: usize) -> Result<i32> {
        let mut b = [0u8; 4];
        self.file
            .read_exact_at(&mut b, cell_offset(self.vertices, i, j))
            .with_context(|| format!("cannot read cell ({i}, {j}) of {}", self.path.display()))?;
        Ok(i32::from_le_bytes(b))
    }

    /// The vertices of a shortest path from `u` to `v`, as [`PathMatrix::path`], reading only
    /// the cells on the way.
    pub fn path(&self, u: usize, v: usize) -> Result<Option<Vec<u32>>> {
        walk(self.kind, self.vertices, u, v, |i, j| self.cell(i, j))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_documented_one() {
        let m = PathMatrix {
            kind: PathKind::Predecessors,
            vertices: 2,
            cells: vec![-9999, 0, 1, -9999],
        };
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p");
        write_path_matrix(&f, &m).unwrap();
        let mut want = b"RGKPATHS".to_vec();
        for x in [2i32, 1, -9999, 0, 1, -9999] {
            want.extend(x.to_le_bytes());
        }
        assert_eq!(std::fs::read(&f).unwrap(), want);
        let p = PathFile::open(&f).unwrap();
        assert_eq!((p.kind, p.vertices, p.cell(1, 0).unwrap()), (m.kind, 2, 1));
        assert_eq!(p.path(0, 1).unwrap(), Some(vec![0, 1]));
        assert_eq!(
            cell_offset(70_000, 69_999, 1),
            16 + 4 * (69_999 * 70_000 + 1)
        );
    }

    #[test]
    fn a_file_that_is_not_a_path_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p");
        for (bytes, why) in [
            (b"RGK".to_vec(), "fewer than the 16-byte header"),
            (
                b"RGKPATHX\x01\0\0\0\0\0\0\0\0\0\0\0".to_vec(),
                "does not start with RGKPATHS",
            ),
            (b"RGKPATHS\x01\0\0\0\x07\0\0\0\0\0\0\0".to_vec(), "kind 7"),
            (
                b"RGKPATHS\x02\0\0\0\0\0\0\0\0\0\0\0".to_vec(),
                "V = 2 needs 32",
            ),
        ] {
            std::fs::write(&f, &bytes).unwrap();
            let e = PathFile::open(&f).unwrap_err();
            assert!(e.downcast_ref::<crate::BadInput>().is_some(), "{e}");
            assert!(e.to_string().contains(why), "{e}");
        }
    }
}
