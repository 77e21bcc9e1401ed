//! The padded distance matrix every solver starts from: INF everywhere, 0 on the diagonal, the
//! smallest weight of each edge; rows `pitch` apart.
use gpu_kernels::apsp::PITCH_ALIGN;
use rayon::prelude::*;

use super::{Graph, INF};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apsp::format::Edge;

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
