//! Shortest paths, not only their lengths (`host apsp --paths`, `host path`): a V x V matrix
//! beside the distances from which the vertices of any shortest path are read back.
//!
//! Two kinds ([`PathKind`]): successors, `succ[i][j]` the vertex after `i` on a shortest path
//! from `i` to `j` (`i` itself on the diagonal, [`NO_SUCCESSOR`] where there is no path), and
//! predecessors with scipy's meaning, `pred[i][j]` the vertex before `j` on it
//! ([`NO_PREDECESSOR`] where there is no path and on the diagonal). A path is walked forwards
//! from the source with successors (one cell of each row it visits) and backwards from the
//! target with predecessors (cells of the source's row only).
//!
//! Both come out of Floyd–Warshall with one rule: when `d[i][k] + d[k][j] < d[i][j]` (strictly),
//! `succ[i][j] = succ[i][k]`, `pred[i][j] = pred[k][j]`. The CPU reference is `cpu`; the file
//! format is `file`; [`check_paths`] checks any answer against the graph.
pub mod blocked;
pub mod cpu;
pub mod file;

use std::collections::HashMap;

use anyhow::Result;

use super::format::{Graph, INF};
pub use gpu_kernels::apsp::format::{NO_PREDECESSOR, NO_SUCCESSOR};

/// Which path matrix: the one fact that says how its cells are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// `m[i][j]`: the vertex after `i` on a shortest path to `j`.
    Successors,
    /// `m[i][j]`: the vertex before `j` on a shortest path from `i` (scipy's `predecessors`).
    Predecessors,
}

impl PathKind {
    pub const ALL: [PathKind; 2] = [PathKind::Successors, PathKind::Predecessors];

    /// The cell of a pair without a path.
    pub const fn none(self) -> i32 {
        match self {
            PathKind::Successors => NO_SUCCESSOR,
            PathKind::Predecessors => NO_PREDECESSOR,
        }
    }

    /// The cell `(i, i)`.
    pub const fn diagonal(self, i: usize) -> i32 {
        match self {
            PathKind::Successors => i as i32,
            PathKind::Predecessors => NO_PREDECESSOR,
        }
    }

    /// The cell `(i, j)`, `i != j`, of an edge `i -> j` before any relaxation.
    pub const fn edge(self, i: usize, j: usize) -> i32 {
        match self {
            PathKind::Successors => j as i32,
            PathKind::Predecessors => i as i32,
        }
    }

    /// The code of the kind in the path file's header and in the kernels' `mode` argument.
    pub const fn code(self) -> u32 {
        match self {
            PathKind::Successors => 0,
            PathKind::Predecessors => 1,
        }
    }

    pub fn from_code(code: u32) -> Option<PathKind> {
        PathKind::ALL.into_iter().find(|k| k.code() == code)
    }

    pub const fn name(self) -> &'static str {
        match self {
            PathKind::Successors => "successors",
            PathKind::Predecessors => "predecessors",
        }
    }
}

/// A V x V path matrix in memory, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathMatrix {
    pub kind: PathKind,
    pub vertices: usize,
    pub cells: Vec<i32>,
}

impl PathMatrix {
    /// The first `vertices` columns of the first `vertices` rows of a matrix with row pitch
    /// `pitch`.
    pub fn from_pitched(kind: PathKind, vertices: usize, pitch: usize, m: &[i32]) -> PathMatrix {
        let mut cells = Vec::with_capacity(vertices * vertices);
        for row in m.chunks(pitch.max(1)).take(vertices) {
            cells.extend_from_slice(&row[..vertices]);
        }
        PathMatrix {
            kind,
            vertices,
            cells,
        }
    }

    pub fn get(&self, i: usize, j: usize) -> i32 {
        self.cells[i * self.vertices + j]
    }

    /// The vertices of a shortest path from `u` to `v` (both ends included; `[u]` when they
    /// are equal), `None` when there is none. Fails with one sentence on a vertex outside the
    /// graph or a matrix that does not describe paths (a cell out of range, a cycle).
    pub fn path(&self, u: usize, v: usize) -> Result<Option<Vec<u32>>> {
        walk(self.kind, self.vertices, u, v, |i, j| Ok(self.get(i, j)))
    }
}

/// [`PathMatrix::path`]: the library's "path for a pair".
pub fn path(matrix: &PathMatrix, u: usize, v: usize) -> Result<Option<Vec<u32>>> {
    matrix.path(u, v)
}

/// Walks the path from `u` to `v` through a `kind` matrix of `vertices` vertices whose cells
/// `cell(i, j)` returns (a matrix in memory or a file). Successors read one cell of every row
/// the path visits, predecessors cells of row `u` only. At most V − 1 hops: a longer walk means
/// a cycle, which no matrix of shortest paths has.
pub fn walk(
    kind: PathKind,
    vertices: usize,
    u: usize,
    v: usize,
    mut cell: impl FnMut(usize, usize) -> Result<i32>,
) -> Result<Option<Vec<u32>>> {
    for (what, x) in [("source", u), ("target", v)] {
        if x >= vertices {
            return crate::bad_input(format!(
                "the {what} vertex {x} is outside the graph of {vertices} vertices (0..{vertices})"
            ));
        }
    }
    if u == v {
        return Ok(Some(vec![u as u32]));
    }
    let (start, end) = match kind {
        PathKind::Successors => (u, v),
        PathKind::Predecessors => (v, u),
    };
    let mut out = vec![start as u32];
    let mut at = start;
    while at != end {
        let next = match kind {
            PathKind::Successors => cell(at, v)?,
            PathKind::Predecessors => cell(u, at)?,
        };
        if next == kind.none() && at == start {
            return Ok(None);
        }
        if !(0..vertices as i64).contains(&(next as i64)) || out.len() >= vertices {
            return crate::bad_input(format!(
                "the {} matrix does not describe a path from {u} to {v} (cell {next} after {} hops)",
                kind.name(),
                out.len() - 1
            ));
        }
        at = next as usize;
        out.push(at as u32);
    }
    if kind == PathKind::Predecessors {
        out.reverse();
    }
    Ok(Some(out))
}

/// The smallest weight of each edge `(src, dst)` of `graph`.
pub fn edge_weights(graph: &Graph) -> HashMap<(u32, u32), i32> {
    let mut w = HashMap::with_capacity(graph.edges.len());
    for e in &graph.edges {
        let slot = w.entry((e.src as u32, e.dst as u32)).or_insert(e.w);
        *slot = (*slot).min(e.w);
    }
    w
}

/// The length of `path` in `graph` (given as [`edge_weights`]), or one sentence naming the
/// first hop that is not an edge.
pub fn path_length(weights: &HashMap<(u32, u32), i32>, path: &[u32]) -> Result<i64> {
    let mut len = 0i64;
    for hop in path.windows(2) {
        match weights.get(&(hop[0], hop[1])) {
            Some(&w) => len += w as i64,
            None => {
                return crate::bad_input(format!(
                    "the hop {} -> {} is not an edge of the graph",
                    hop[0], hop[1]
                ));
            }
        }
    }
    Ok(len)
}

/// Checks a path matrix against the graph and its distances (`dist(i, j)`, [`INF`] for no
/// path): for every source in `sources`, every pair has a path exactly when it has a distance,
/// each hop of the path is an edge and the hops add up to the distance. The first mismatch is
/// the error.
pub fn check_paths(
    graph: &Graph,
    matrix: &PathMatrix,
    sources: impl IntoIterator<Item = usize>,
    dist: impl Fn(usize, usize) -> i32,
) -> Result<()> {
    let weights = edge_weights(graph);
    let v = graph.vertices;
    anyhow::ensure!(
        matrix.vertices == v,
        "a path matrix of {} vertices for a graph of {v}",
        matrix.vertices
    );
    for i in sources {
        for j in 0..v {
            let d = dist(i, j);
            match matrix.path(i, j)? {
                None if d == INF => {}
                None => anyhow::bail!("no path from {i} to {j}, but the distance is {d}"),
                Some(p) if d == INF => {
                    anyhow::bail!("a path {p:?} from {i} to {j} without distance")
                }
                Some(p) => {
                    let len = path_length(&weights, &p)?;
                    anyhow::ensure!(
                        len == d as i64,
                        "the path {p:?} from {i} to {j} has length {len}, the distance is {d}"
                    );
                }
            }
        }
    }
    Ok(())
}

/// A cycle of zero-weight edges in `graph`, as two of its vertices `(u, v)` with the edge
/// `u -> v` on it, or `None`. The GPU's blocked order of updates keeps every path cell on a
/// shortest path, but among the vertices of such a cycle (all at the same distance from any
/// target) it may leave them pointing at each other; the sequential CPU reference never does.
/// Without one, a loop in a path matrix would need a cycle of zero-weight edges, so none forms.
pub fn zero_weight_cycle(graph: &Graph) -> Option<(u32, u32)> {
    let n = graph.vertices;
    let zero = Graph {
        vertices: n,
        edges: graph.edges.iter().filter(|e| e.w == 0).copied().collect(),
    };
    let adj = super::cpu::Adjacency::new(&zero);
    // Iterative depth-first search; an edge to a vertex on the stack closes a cycle.
    const NEW: u8 = 0;
    const ON_STACK: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_STACK;
        stack.push((root, adj.offsets[root]));
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if *next == adj.offsets[u + 1] {
                state[u] = DONE;
                stack.pop();
                continue;
            }
            let v = adj.dst[*next] as usize;
            *next += 1;
            match state[v] {
                ON_STACK => return Some((u as u32, v as u32)),
                NEW => {
                    state[v] = ON_STACK;
                    stack.push((v, adj.offsets[v]));
                }
                _ => {}
            }
        }
    }
    None
}
