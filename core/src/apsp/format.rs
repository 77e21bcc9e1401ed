//! The classic course format, all int32 little-endian; this module is its one owner.
//!
//! Input: `V, E`, then E triples `(src, dst, w)` with `0 <= w <=` [`MAX_WEIGHT`] (this file: the
//! graph and its reader). Output: V*V row-major distances with `d[i][i] = 0` and [`INF`] for "no
//! path" (`output`: its encoding, used by every writer of it). Beside them: the padded distance
//! matrix the solvers start from (`matrix`), and whole-file writes through a temporary file
//! (`files`).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail, ensure};
use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

mod files;
mod matrix;
mod output;

pub use files::{persist, temp_beside, write_atomically};
/// "No path": defined beside the kernels, which write it into the initial matrix on the GPU.
pub use gpu_kernels::apsp::format::INF;
pub use matrix::{count_repeated, distance_pitch, fill_distance_rows, fill_distances};
pub use output::{DISTANCE_BYTES, encode, output_len, row_bytes, write_distances};

/// Largest edge weight the file format allows.
pub const MAX_WEIGHT: i32 = 1000;

// A shortest path has at most V - 1 edges, so its length stays below INF for every V up to
// INF / MAX_WEIGHT (over a million vertices, a 4 TB output): "no path" is never a distance.
const _: () = assert!(INF / MAX_WEIGHT > 1_000_000);

// The files are little-endian and are cast straight into memory.
#[cfg(not(target_endian = "little"))]
compile_error!("the APSP file format is read by casting bytes; a little-endian host is required");

/// Size of the `V, E` header in bytes.
const HEADER_BYTES: usize = 8;
/// Size of one `(src, dst, w)` record in bytes.
const EDGE_BYTES: usize = std::mem::size_of::<Edge>();

/// One directed edge exactly as stored in the file.
/// The derive checks at compile time that the layout has no padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Edge {
    pub src: i32,
    pub dst: i32,
    pub w: i32,
}

const _: () = assert!(EDGE_BYTES == 12 && std::mem::align_of::<Edge>() == 4);

/// A validated graph: `0 <= src, dst < vertices`, `src != dst`, `0 <= w <= MAX_WEIGHT`.
/// Repeated `(src, dst)` pairs are allowed; the smallest weight wins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub vertices: usize,
    pub edges: Vec<Edge>,
}

fn read_i32(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

/// Why an edge is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdgeProblem {
    Src(i32, i32),
    Dst(i32, i32),
    SelfLoop(i32),
    Weight(i32),
}

impl EdgeProblem {
    /// Byte offset of the offending field within the 12-byte record.
    fn field_offset(self) -> usize {
        match self {
            EdgeProblem::Src(..) | EdgeProblem::SelfLoop(_) => 0,
            EdgeProblem::Dst(..) => 4,
            EdgeProblem::Weight(_) => 8,
        }
    }
}

impl std::fmt::Display for EdgeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            EdgeProblem::Src(src, v) => write!(f, "has src = {src} outside 0..{v}"),
            EdgeProblem::Dst(dst, v) => write!(f, "has dst = {dst} outside 0..{v}"),
            EdgeProblem::SelfLoop(s) => write!(f, "is a self-loop (src = dst = {s})"),
            EdgeProblem::Weight(w) => write!(f, "has weight w = {w} outside 0..={MAX_WEIGHT}"),
        }
    }
}

/// The first invalid edge of a graph on `v` vertices, if any (the checks of [`Graph`]).
fn first_bad_edge(v: i32, edges: &[Edge]) -> Option<(usize, EdgeProblem)> {
    let valid = |e: &Edge| {
        (0..v).contains(&e.src)
            && (0..v).contains(&e.dst)
            && e.src != e.dst
            && (0..=MAX_WEIGHT).contains(&e.w)
    };
    let i = edges
        .par_iter()
        .with_min_len(1 << 16)
        .position_first(|e| !valid(e))?;
    let Edge { src, dst, w } = edges[i];
    let problem = if !(0..v).contains(&src) {
        EdgeProblem::Src(src, v)
    } else if !(0..v).contains(&dst) {
        EdgeProblem::Dst(dst, v)
    } else if src == dst {
        EdgeProblem::SelfLoop(src)
    } else {
        EdgeProblem::Weight(w)
    };
    Some((i, problem))
}

impl Graph {
    /// A graph from an in-memory edge list, validated like a file: `vertices >= 1`, endpoints
    /// in `0..vertices`, no self-loops, weights in `0..=MAX_WEIGHT`. Errors are
    /// [`BadInput`](crate::BadInput).
    pub fn from_edges(vertices: usize, edges: Vec<Edge>) -> Result<Graph> {
        let Ok(v) = i32::try_from(vertices) else {
            return crate::bad_input(format!(
                "V = {vertices} does not fit the format's int32 vertex count"
            ));
        };
        if v < 1 {
            return crate::bad_input("a graph needs at least one vertex (V = 0)");
        }
        if let Some((i, problem)) = first_bad_edge(v, &edges) {
            return crate::bad_input(format!("edge {i} {problem}"));
        }
        Ok(Graph { vertices, edges })
    }
}

/// Parses and validates a graph file held in memory (any alignment). Errors are
/// [`BadInput`](crate::BadInput) and name the byte offset of the problem.
pub fn parse_graph(bytes: &[u8]) -> Result<Graph> {
    parse(bytes).map_err(|e| crate::BadInput(format!("{e:#}")).into())
}

fn parse(bytes: &[u8]) -> Result<Graph> {
    let len = bytes.len();
    ensure!(
        len >= HEADER_BYTES,
        "file is {len} bytes, too short for the 8-byte header (V, E) at byte offset 0"
    );
    let v = read_i32(bytes, 0);
    let e = read_i32(bytes, 4);
    ensure!(
        v >= 1,
        "vertex count V = {v} at byte offset 0 must be at least 1"
    );
    ensure!(
        e >= 0,
        "edge count E = {e} at byte offset 4 must not be negative"
    );
    let max_edges = v as u64 * (v as u64 - 1);
    ensure!(
        e as u64 <= max_edges,
        "edge count E = {e} at byte offset 4 exceeds V*(V-1) = {max_edges} for V = {v}"
    );
    let expected = HEADER_BYTES as u64 + EDGE_BYTES as u64 * e as u64;
    let actual = len as u64;
    if actual < expected {
        bail!(
            "file is truncated: E = {e} needs 8 + 12*E = {expected} bytes but the file has \
             {actual} (data ends at byte offset {actual})"
        );
    }
    if actual > expected {
        bail!(
            "file has {} trailing bytes: E = {e} needs 8 + 12*E = {expected} bytes but the file \
             has {actual} (extra data starts at byte offset {expected})",
            actual - expected
        );
    }

    // One memcpy into an aligned Vec, whatever the alignment of `bytes` (pod_collect_to_vec
    // would need bytemuck's `extern_crate_alloc` feature).
    let mut edges: Vec<Edge> =
        crate::memory::zeroed_vec(&format!("the list of {e} edges"), e as usize)?;
    bytemuck::cast_slice_mut::<Edge, u8>(&mut edges).copy_from_slice(&bytes[HEADER_BYTES..]);
    if let Some((i, problem)) = first_bad_edge(v, &edges) {
        let at = HEADER_BYTES + i * EDGE_BYTES + problem.field_offset();
        bail!("edge {i} {problem} at byte offset {at}");
    }
    Ok(Graph {
        vertices: v as usize,
        edges,
    })
}

/// Reads and validates a graph file; errors name the path.
pub fn read_graph(path: &Path) -> Result<Graph> {
    let parse = || -> Result<Graph> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        // mmap cannot map an empty file, and pipes/devices have no length: read those instead.
        if meta.is_file() && meta.len() >= HEADER_BYTES as u64 {
            // SAFETY: the mapping is only read while parse_graph copies it; a concurrent writer
            // could change the bytes under us, which is no worse than a torn read.
            let map = unsafe { memmap2::Mmap::map(&file)? };
            parse_graph(&map)
        } else {
            parse_graph(&read_stream(file)?)
        }
    };
    parse()
        .map_err(|e| crate::BadInput(format!("cannot read graph {}: {e:#}", path.display())).into())
}

/// The bytes of a graph file that has no length (a pipe, a device): the header, then no more
/// than the bytes it announces and one (so that trailing data is still reported), never an
/// endless read. (`read_to_end` reserves fallibly.)
fn read_stream(file: File) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut header = file.take(HEADER_BYTES as u64);
    header.read_to_end(&mut bytes)?;
    if bytes.len() == HEADER_BYTES {
        let e = u64::try_from(read_i32(&bytes, 4)).unwrap_or(0);
        let announced = EDGE_BYTES as u64 * e;
        header
            .into_inner()
            .take(announced + 1)
            .read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// Writes a graph in the input format.
pub fn write_graph(path: &Path, g: &Graph) -> Result<()> {
    let v = i32::try_from(g.vertices).context("V does not fit in an int32")?;
    let e = i32::try_from(g.edges.len()).context("E does not fit in an int32")?;
    write_atomically(path, |w| {
        w.write_all(&v.to_le_bytes())?;
        w.write_all(&e.to_le_bytes())?;
        w.write_all(bytemuck::cast_slice(&g.edges))?;
        Ok(())
    })
    .with_context(|| format!("cannot write graph to {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(v: i32, edges: &[Edge]) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&v.to_le_bytes());
        bytes.extend_from_slice(&(edges.len() as i32).to_le_bytes());
        bytes.extend_from_slice(bytemuck::cast_slice(edges));
        bytes
    }

    #[test]
    fn parses_unaligned_input() {
        let edges = [
            Edge {
                src: 0,
                dst: 2,
                w: 7,
            },
            Edge {
                src: 2,
                dst: 1,
                w: 0,
            },
            Edge {
                src: 1,
                dst: 0,
                w: MAX_WEIGHT,
            },
        ];
        let bytes = encode(3, &edges);
        for shift in 0..4 {
            let mut buf = vec![0u8; shift];
            buf.extend_from_slice(&bytes);
            let g = parse_graph(&buf[shift..]).unwrap();
            assert_eq!(g.vertices, 3);
            assert_eq!(g.edges, edges);
        }
    }

    #[test]
    fn reports_first_bad_edge() {
        let mut edges = vec![
            Edge {
                src: 0,
                dst: 1,
                w: 1
            };
            100_000
        ];
        edges[70_000].w = -1;
        edges[90_000].src = 1000;
        let err = parse_graph(&encode(1000, &edges)).unwrap_err().to_string();
        let at = 8 + 70_000 * 12 + 8;
        assert!(
            err.contains("edge 70000") && err.contains(&format!("byte offset {at}")),
            "{err}"
        );
    }
}
