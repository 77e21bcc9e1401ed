//! The classic course format, all int32 little-endian.
//!
//! Input: `V, E`, then E triples `(src, dst, w)`. Output: V*V row-major distances with
//! `d[i][i] = 0` and `INF` for "no path".

use std::fs::{File, Permissions};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::Path;

use anyhow::{Context, Result, bail, ensure};
use bytemuck::{Pod, Zeroable};
use gpu_kernels::apsp::{INF, MAX_WEIGHT, PITCH_ALIGN};
use rayon::prelude::*;
use tempfile::NamedTempFile;

// The files are little-endian and are cast straight into memory.
#[cfg(not(target_endian = "little"))]
compile_error!("the APSP file format is read by casting bytes; a little-endian host is required");

/// Size of the `V, E` header in bytes.
const HEADER_BYTES: usize = 8;
/// Size of one `(src, dst, w)` record in bytes.
const EDGE_BYTES: usize = std::mem::size_of::<Edge>();
/// Buffer size for the output writers: large enough that syscalls do not matter.
const WRITE_BUFFER: usize = 4 << 20;

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

/// Row pitch (in i32) for a matrix of `n_padded` columns: a multiple of `PITCH_ALIGN`.
pub fn distance_pitch(n_padded: usize) -> usize {
    n_padded.div_ceil(PITCH_ALIGN) * PITCH_ALIGN
}

/// Initialises a `padded x pitch` distance matrix: INF everywhere, 0 on the diagonal of all
/// `padded` rows, then the smallest weight of each `(src, dst)`. Returns how many edges repeat
/// an earlier `(src, dst)` pair.
pub fn fill_distances(graph: &Graph, padded: usize, pitch: usize, out: &mut [i32]) -> usize {
    assert!(
        padded >= graph.vertices,
        "padded {padded} < V {}",
        graph.vertices
    );
    fill_distance_rows(graph, 0..padded, pitch, out)
}

/// [`fill_distances`] for the rows `rows` of a `padded x pitch` matrix only (`out` holds those
/// rows, `rows.len() x pitch`): one GPU's share when the matrix is split between GPUs. Counts
/// the repeated edges whose source row is in `rows`.
pub fn fill_distance_rows(
    graph: &Graph,
    rows: std::ops::Range<usize>,
    pitch: usize,
    out: &mut [i32],
) -> usize {
    assert!(pitch >= rows.end, "pitch {pitch} < padded {}", rows.end);
    assert_eq!(
        out.len(),
        rows.len() * pitch,
        "distance buffer must be rows * pitch"
    );
    if pitch == 0 || rows.is_empty() {
        return 0;
    }
    out.par_chunks_mut(pitch).enumerate().for_each(|(i, row)| {
        row.fill(INF);
        row[rows.start + i] = 0;
    });
    let mut repeated = 0;
    for edge in &graph.edges {
        debug_assert!((edge.src as usize) < graph.vertices && (edge.dst as usize) < graph.vertices);
        let src = edge.src as usize;
        if !rows.contains(&src) {
            continue;
        }
        let cell = &mut out[(src - rows.start) * pitch + edge.dst as usize];
        // Weights are <= MAX_WEIGHT < INF and there are no self-loops, so a cell that is not INF
        // was set by an earlier edge.
        if *cell != INF {
            repeated += 1;
        }
        *cell = (*cell).min(edge.w);
    }
    repeated
}

/// How many edges repeat an earlier `(src, dst)` pair (what [`fill_distances`] returns), without
/// a matrix: for solvers that build the matrix elsewhere (on the GPU).
pub fn count_repeated(graph: &Graph) -> usize {
    let v = graph.vertices as u64;
    let mut keys: Vec<u64> = graph
        .edges
        .par_iter()
        .map(|e| e.src as u64 * v + e.dst as u64)
        .collect();
    keys.par_sort_unstable();
    keys.par_windows(2).filter(|w| w[0] == w[1]).count()
}

/// A temporary file beside `path` (so the final rename stays on one file system), removed on
/// drop unless persisted. Created with mode 0666 minus the umask, like `File::create`, since the
/// persisted file is the output (tempfile's default 0600 would hide it from other users).
pub fn temp_beside(path: &Path) -> Result<NamedTempFile> {
    let name = path
        .file_name()
        .with_context(|| format!("{} has no file name", path.display()))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))
}

/// Renames the finished temporary file onto `path`; on failure the temporary file is removed.
pub fn persist(temp: NamedTempFile, path: &Path) -> Result<()> {
    temp.persist(path)
        .map(drop)
        .map_err(|e| anyhow::Error::from(e.error))
        .with_context(|| format!("cannot rename the temporary file to {}", path.display()))
}

/// Writes `path` through a temporary file in the same directory and a rename, so a failed
/// write leaves no partial output. `fill` gets a large buffered writer. (Used for every file
/// the CLI writes whole, not only graphs.)
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let temp = temp_beside(path)?;
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER, temp.as_file());
    fill(&mut writer)
        .and_then(|()| Ok(writer.flush()?))
        .with_context(|| format!("cannot write {}", temp.path().display()))?;
    drop(writer);
    persist(temp, path)
}

/// Writes the top-left `v x v` block of a matrix with row pitch `pitch` in the output format.
pub fn write_distances(path: &Path, dist: &[i32], v: usize, pitch: usize) -> Result<()> {
    ensure!(pitch >= v, "pitch {pitch} is smaller than V = {v}");
    let needed = if v == 0 { 0 } else { (v - 1) * pitch + v };
    ensure!(
        dist.len() >= needed,
        "distance buffer has {} elements, {v} rows of pitch {pitch} need {needed}",
        dist.len()
    );
    // Blocks of rows are written in parallel at their offsets: a single writer thread copying
    // gigabytes into the page cache was most of the file-to-file time at V = 30000.
    let temp = temp_beside(path)?;
    let file = temp.as_file();
    let row_bytes = v * 4;
    let rows_per_block = (WRITE_BUFFER / row_bytes.max(1)).max(1);
    let written = file
        .set_len((v * row_bytes) as u64)
        .map_err(anyhow::Error::from)
        .and_then(|()| {
            (0..v.div_ceil(rows_per_block))
                .into_par_iter()
                .try_for_each(|block| {
                    let first = block * rows_per_block;
                    let last = (first + rows_per_block).min(v);
                    let mut buf = Vec::with_capacity((last - first) * row_bytes);
                    for row in first..last {
                        buf.extend_from_slice(bytemuck::cast_slice(
                            &dist[row * pitch..row * pitch + v],
                        ));
                    }
                    file.write_all_at(&buf, (first * row_bytes) as u64)
                })?;
            Ok(())
        });
    written
        .with_context(|| format!("cannot write {}", temp.path().display()))
        .and_then(|()| persist(temp, path))
        .with_context(|| format!("cannot write distances to {}", path.display()))
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
    fn pitch_is_aligned_and_minimal() {
        for n in 0..200 {
            let p = distance_pitch(n);
            assert!(
                p >= n && p.is_multiple_of(PITCH_ALIGN) && p < n + PITCH_ALIGN,
                "n {n} -> {p}"
            );
        }
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

    #[test]
    fn outputs_get_the_permissions_of_a_created_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let want = std::fs::metadata(&plain).unwrap().permissions().mode();
        let g = Graph::from_edges(
            2,
            vec![Edge {
                src: 0,
                dst: 1,
                w: 3,
            }],
        )
        .unwrap();
        write_graph(&dir.path().join("g.in"), &g).unwrap();
        write_distances(&dir.path().join("d.out"), &[0, 3, INF, 0], 2, 2).unwrap();
        for name in ["g.in", "d.out"] {
            let mode = std::fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode, want, "{name}: {mode:o}, File::create gives {want:o}");
        }
    }

    #[test]
    fn row_ranges_fill_as_the_whole_matrix() {
        let g = crate::apsp::random::generate(150, 2000, 3).unwrap();
        let (padded, pitch) = (192, distance_pitch(192));
        let mut whole = vec![0; padded * pitch];
        let repeated = fill_distances(&g, padded, pitch, &mut whole);
        let mut sum = 0;
        for rows in [0..64, 64..100, 100..100, 100..192] {
            let mut part = vec![-1; rows.len() * pitch];
            sum += fill_distance_rows(&g, rows.clone(), pitch, &mut part);
            assert_eq!(
                part,
                whole[rows.start * pitch..rows.end * pitch],
                "{rows:?}"
            );
        }
        assert_eq!(sum, repeated);
    }

    #[test]
    fn fill_sets_padding_and_min_weight() {
        let g = Graph {
            vertices: 3,
            edges: vec![
                Edge {
                    src: 0,
                    dst: 1,
                    w: 9,
                },
                Edge {
                    src: 0,
                    dst: 1,
                    w: 4,
                },
                Edge {
                    src: 2,
                    dst: 0,
                    w: 0,
                },
            ],
        };
        let (padded, pitch) = (5, distance_pitch(5));
        let mut d = vec![-1; padded * pitch];
        assert_eq!(fill_distances(&g, padded, pitch, &mut d), 1);
        assert_eq!(count_repeated(&g), 1);
        for i in 0..padded {
            for j in 0..pitch {
                let want = match (i, j) {
                    _ if i == j => 0,
                    (0, 1) => 4,
                    (2, 0) => 0,
                    _ => INF,
                };
                assert_eq!(d[i * pitch + j], want, "cell ({i}, {j})");
            }
        }
    }
}
