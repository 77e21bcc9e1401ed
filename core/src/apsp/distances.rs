//! The answer of an APSP solve: a dense V×V distance matrix.
use super::{INF, cpu, format::Graph};

/// All-pairs shortest-path distances: `get(i, j)` is the length of a shortest path from `i` to
/// `j`, 0 on the diagonal, [`INF`] where `j` is unreachable from `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distances {
    vertices: usize,
    /// Row-major, `vertices * vertices` entries.
    data: Vec<i32>,
}

impl Distances {
    /// Takes the first `vertices` columns of the first `vertices` rows of a matrix whose rows
    /// are `pitch` entries apart (the padded layout of the GPU solvers).
    pub fn from_pitched(vertices: usize, pitch: usize, dist: &[i32]) -> Distances {
        assert!(pitch >= vertices && dist.len() >= vertices * pitch);
        let data = if pitch == vertices {
            dist[..vertices * vertices].to_vec()
        } else {
            (0..vertices)
                .flat_map(|i| &dist[i * pitch..i * pitch + vertices])
                .copied()
                .collect()
        };
        Distances { vertices, data }
    }

    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// The distance from `i` to `j` ([`INF`] if there is no path).
    pub fn get(&self, i: usize, j: usize) -> i32 {
        self.data[i * self.vertices + j]
    }

    /// Whether `j` can be reached from `i`.
    pub fn reachable(&self, i: usize, j: usize) -> bool {
        self.get(i, j) != INF
    }

    /// Row `i`: the distances from `i` to every vertex.
    pub fn row(&self, i: usize) -> &[i32] {
        &self.data[i * self.vertices..(i + 1) * self.vertices]
    }

    /// The row-major matrix, as the course's output file holds it.
    pub fn as_slice(&self) -> &[i32] {
        &self.data
    }

    pub fn into_vec(self) -> Vec<i32> {
        self.data
    }
}

/// All-pairs shortest paths on the CPU (multithreaded Floyd–Warshall). Fails, in one sentence,
/// only when host memory cannot hold the V x V matrix.
///
/// ```
/// use rgk_core::apsp::{INF, format::{Edge, Graph}, solve_cpu};
/// let g = Graph::from_edges(3, vec![Edge { src: 0, dst: 1, w: 5 }, Edge { src: 1, dst: 2, w: 2 }])?;
/// let d = solve_cpu(&g)?;
/// assert_eq!((d.get(0, 2), d.get(2, 0), d.get(1, 1)), (7, INF, 0));
/// # Ok::<(), anyhow::Error>(())
/// ```
pub fn solve_cpu(graph: &Graph) -> anyhow::Result<Distances> {
    let (data, _) = cpu::solve(graph)?;
    Ok(Distances {
        vertices: graph.vertices,
        data,
    })
}
