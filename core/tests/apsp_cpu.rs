//! APSP file format, generator and CPU references against the shared expected outputs and
//! against each other.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::apsp::cpu::{Adjacency, dijkstra, floyd_warshall, solve};
use rgk_core::apsp::format::{
    Edge, Graph, INF, MAX_WEIGHT, distance_pitch, fill_distances, parse_graph, read_graph,
    write_distances, write_graph,
};
use rgk_core::apsp::random::generate;

/// A unique directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "apsp_cpu_{tag}_{}_{nanos}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn encode(v: i32, e: i32, edges: &[(i32, i32, i32)]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for x in [v, e] {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    for &(s, d, w) in edges {
        for x in [s, d, w] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    bytes
}

fn edge(src: i32, dst: i32, w: i32) -> Edge {
    Edge { src, dst, w }
}

#[test]
fn shared_cases_match_expected_output() {
    let Some(dir) = rgk_core::testdata::apsp_cases_for_test("shared_cases_match_expected_output")
    else {
        return;
    };
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "in"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no *.in files in {}", dir.display());
    let tmp = TempDir::new("shared");
    for input in &inputs {
        let expected_path = input.with_extension("out");
        let expected = std::fs::read(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let g = read_graph(input).unwrap_or_else(|e| panic!("{e:#}"));
        let (dist, _) = solve(&g).unwrap();
        let out = tmp.path("case.out");
        write_distances(&out, &dist, g.vertices, g.vertices).unwrap();
        let got = std::fs::read(&out).unwrap();
        assert_eq!(
            got.len(),
            expected.len(),
            "{}: output size",
            input.display()
        );
        assert!(
            got == expected,
            "{}: output differs from {}",
            input.display(),
            expected_path.display()
        );
        assert_eq!(tmp.entries(), ["case.out"], "temporary files left behind");
    }
}

/// Parses `bytes` expecting an error that mentions `needle` and the byte offset `offset`.
fn assert_rejected(bytes: &[u8], needle: &str, offset: usize) {
    let err = match parse_graph(bytes) {
        Ok(g) => panic!("accepted an invalid file ({needle}): V = {}", g.vertices),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains(needle),
        "error {err:?} should mention {needle:?}"
    );
    assert!(
        err.contains(&format!("byte offset {offset}")),
        "error {err:?} should name byte offset {offset}"
    );
}

#[test]
fn reader_rejects_invalid_files() {
    let good = encode(3, 2, &[(0, 1, 5), (1, 2, 7)]);
    assert!(parse_graph(&good).is_ok());

    assert_rejected(&good[..good.len() - 1], "truncated", good.len() - 1);
    assert_rejected(&encode(3, 2, &[(0, 1, 5)]), "truncated", 20);
    let mut long = good.clone();
    long.extend_from_slice(&[0, 0, 0, 0]);
    assert_rejected(&long, "trailing", good.len());
    assert_rejected(&good[..7], "too short", 0);
    assert_rejected(&[], "too short", 0);
    assert_rejected(&encode(0, 0, &[]), "V = 0", 0);
    assert_rejected(&encode(-4, 0, &[]), "V = -4", 0);
    assert_rejected(&encode(3, -1, &[]), "E = -1", 4);
    assert_rejected(&encode(3, 7, &[(0, 1, 1); 7]), "V*(V-1)", 4);
    assert_rejected(&encode(1, 1, &[(0, 0, 1)]), "V*(V-1)", 4);
    // Edge fields: edge 1 starts at byte 20.
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (3, 2, 7)]), "src = 3", 20);
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (-1, 2, 7)]), "src = -1", 20);
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (1, 3, 7)]), "dst = 3", 24);
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (1, -2, 7)]), "dst = -2", 24);
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (2, 2, 7)]), "self-loop", 20);
    assert_rejected(&encode(3, 2, &[(0, 1, 5), (1, 2, -1)]), "w = -1", 28);
    assert_rejected(
        &encode(3, 2, &[(0, 1, MAX_WEIGHT + 1), (1, 2, 7)]),
        &format!("w = {}", MAX_WEIGHT + 1),
        16,
    );
    // The limits themselves are fine.
    let g = parse_graph(&encode(2, 2, &[(0, 1, 0), (1, 0, MAX_WEIGHT)])).unwrap();
    assert_eq!(g.edges, [edge(0, 1, 0), edge(1, 0, MAX_WEIGHT)]);
}

#[test]
fn read_graph_errors_name_the_path() {
    let tmp = TempDir::new("readerr");
    let path = tmp.path("bad.in");
    std::fs::write(&path, encode(3, 1, &[(0, 1, 5), (1, 2, 7)])).unwrap();
    let err = format!("{:#}", read_graph(&path).unwrap_err());
    assert!(err.contains("bad.in") && err.contains("trailing"), "{err}");
    let missing = tmp.path("missing.in");
    let err = format!("{:#}", read_graph(&missing).unwrap_err());
    assert!(err.contains("missing.in"), "{err}");
    // Short and empty files go through the non-mmap path.
    std::fs::write(&path, [1u8, 0, 0]).unwrap();
    assert!(format!("{:#}", read_graph(&path).unwrap_err()).contains("offset 0"));
    std::fs::write(&path, b"").unwrap();
    assert!(read_graph(&path).is_err());
}

#[test]
fn failed_write_leaves_nothing_and_success_leaves_no_temp_files() {
    let tmp = TempDir::new("write");
    let g = generate(20, 60, 5).unwrap();
    let (dist, _) = solve(&g).unwrap();

    let missing_dir = tmp.path("no_such_dir");
    let target = missing_dir.join("out.bin");
    assert!(write_distances(&target, &dist, g.vertices, g.vertices).is_err());
    assert!(write_graph(&target, &g).is_err());
    assert!(!missing_dir.exists() && !target.exists());
    assert!(tmp.entries().is_empty(), "left behind: {:?}", tmp.entries());

    // A buffer too small for the requested shape is refused before anything is created.
    let out = tmp.path("d.out");
    assert!(write_distances(&out, &dist[..dist.len() - 1], g.vertices, g.vertices).is_err());
    assert!(tmp.entries().is_empty(), "left behind: {:?}", tmp.entries());

    // A target that is a directory fails at the final rename; the temporary file must go.
    let blocker = tmp.path("blocker");
    std::fs::create_dir(&blocker).unwrap();
    assert!(write_distances(&blocker, &dist, g.vertices, g.vertices).is_err());
    assert!(write_graph(&blocker, &g).is_err());
    assert_eq!(tmp.entries(), ["blocker"]);
    std::fs::remove_dir(&blocker).unwrap();

    write_distances(&out, &dist, g.vertices, g.vertices).unwrap();
    write_graph(&tmp.path("g.in"), &g).unwrap();
    assert_eq!(tmp.entries(), ["d.out", "g.in"]);
    assert_eq!(
        std::fs::metadata(&out).unwrap().len() as usize,
        g.vertices * g.vertices * 4
    );
    // Overwriting an existing output replaces it whole.
    write_distances(&out, &dist, g.vertices, g.vertices).unwrap();
    assert_eq!(tmp.entries(), ["d.out", "g.in"]);
}

#[test]
fn padded_matrix_writes_the_same_bytes() {
    let tmp = TempDir::new("padded");
    let g = generate(77, 400, 21).unwrap();
    let (dist, _) = solve(&g).unwrap();
    let padded = 96;
    let pitch = distance_pitch(padded + 5);
    let mut big = vec![0; padded * pitch];
    fill_distances(&g, padded, pitch, &mut big);
    floyd_warshall(&mut big, padded, pitch);
    write_distances(&tmp.path("a"), &dist, g.vertices, g.vertices).unwrap();
    write_distances(&tmp.path("b"), &big, g.vertices, pitch).unwrap();
    assert!(std::fs::read(tmp.path("a")).unwrap() == std::fs::read(tmp.path("b")).unwrap());
    // Padding rows and columns stay isolated: INF except their diagonal.
    for i in 0..padded {
        for j in 0..pitch {
            if i >= g.vertices || j >= g.vertices {
                let want = if i == j { 0 } else { INF };
                assert_eq!(big[i * pitch + j], want, "padding cell ({i}, {j})");
            }
        }
    }
}

#[test]
fn repeated_edges_keep_smallest_weight() {
    let g = Graph {
        vertices: 4,
        edges: vec![
            edge(0, 1, 9),
            edge(1, 2, 4),
            edge(0, 1, 3),
            edge(2, 3, 0),
            edge(0, 1, 6),
            edge(1, 2, 8),
        ],
    };
    let n = g.vertices;
    let mut d = vec![0; n * n];
    assert_eq!(fill_distances(&g, n, n, &mut d), 3);
    assert_eq!(d[1], 3, "direct cell keeps the smallest weight");
    assert_eq!(d[n + 2], 4);
    let (dist, repeated) = solve(&g).unwrap();
    assert_eq!(repeated, 3);
    let adj = Adjacency::new(&g);
    for s in 0..n {
        assert_eq!(
            &dist[s * n..(s + 1) * n],
            &dijkstra(&g, &adj, s)[..],
            "row {s}"
        );
    }
    assert_eq!(dist[3], 3 + 4);

    // The same graph survives the file round trip with its repeats.
    let tmp = TempDir::new("repeat");
    write_graph(&tmp.path("r.in"), &g).unwrap();
    assert_eq!(read_graph(&tmp.path("r.in")).unwrap(), g);
}

#[test]
fn generator_round_trips_and_obeys_the_rules() {
    let tmp = TempDir::new("gen");
    for (v, e, seed) in [
        (1, 0, 1),
        (2, 2, 2),
        (17, 0, 3),
        (100, 250, 4),
        (40, 1400, 5),
        (40, 1560, 6),
        (400, 90_000, 7),
    ] {
        let g = generate(v, e, seed).unwrap();
        assert_eq!(g.vertices, v);
        assert_eq!(g.edges.len(), e);
        let mut seen = std::collections::HashSet::new();
        for x in &g.edges {
            assert!((x.src as usize) < v && (x.dst as usize) < v && x.src >= 0 && x.dst >= 0);
            assert_ne!(x.src, x.dst, "self-loop");
            assert!((0..=MAX_WEIGHT).contains(&x.w));
            assert!(seen.insert((x.src, x.dst)), "repeated pair {x:?}");
        }
        let path = tmp.path(&format!("g{v}_{e}.in"));
        write_graph(&path, &g).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 8 + 12 * e);
        assert_eq!(parse_graph(&bytes).unwrap(), g);
        assert_eq!(read_graph(&path).unwrap(), g);
        assert_eq!(
            generate(v, e, seed).unwrap(),
            g,
            "same seed must give the same graph"
        );
        if e > 0 {
            assert_ne!(
                generate(v, e, seed + 100).unwrap(),
                g,
                "different seeds gave one graph"
            );
        }
    }
    // Uniform weights over 90000 edges reach both ends of the range.
    let g = generate(400, 90_000, 7).unwrap();
    assert!(g.edges.iter().any(|x| x.w == 0) && g.edges.iter().any(|x| x.w == MAX_WEIGHT));
    assert!(generate(0, 0, 1).is_err());
    assert!(generate(5, 21, 1).is_err());
    assert!(generate(5, 20, 1).is_ok());
}

#[test]
fn floyd_warshall_matches_dijkstra() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xF10D);
    let mut sizes = vec![1, 2, 3, 63, 64, 65];
    sizes.extend((0..3).map(|_| rng.gen_range(100..=200)));
    for &v in &sizes {
        let max = v * (v - 1);
        let mut edge_counts = vec![0, v / 2, v, 4 * v, max * 3 / 5, max];
        edge_counts.retain(|&e| e <= max);
        edge_counts.sort_unstable();
        edge_counts.dedup();
        for &e in &edge_counts {
            let seed = rng.r#gen::<u64>();
            let mut g = generate(v, e, seed).unwrap();
            if rng.gen_bool(0.5) {
                // Tiny weights: many zero-weight edges and ties.
                for x in &mut g.edges {
                    x.w %= 3;
                }
            }
            // Some repeats with other weights; the smallest must win in both algorithms.
            let mut repeats = Vec::new();
            for x in &g.edges {
                if rng.gen_bool(0.1) {
                    repeats.push(edge(x.src, x.dst, rng.gen_range(0..=MAX_WEIGHT)));
                }
            }
            g.edges.extend(repeats.iter().copied());
            let (dist, repeated) = solve(&g).unwrap();
            assert_eq!(repeated, repeats.len(), "V {v} E {e}");
            let adj = Adjacency::new(&g);
            for s in 0..v {
                let want = dijkstra(&g, &adj, s);
                assert_eq!(
                    &dist[s * v..(s + 1) * v],
                    &want[..],
                    "V {v} E {e} seed {seed} row {s}"
                );
                assert_eq!(want[s], 0);
            }
            if e < v - 1 {
                assert!(dist.contains(&INF), "V {v} E {e} must be disconnected");
            }
        }
    }
}
