//! The batch pipeline with the CPU as its solver: every good input's output equals an
//! independent answer (Dijkstra from every vertex), bad inputs are named with file and byte
//! offset, and they do not keep the others from being written.
use std::path::Path;

use rgk_core::apsp::{
    batch::output_paths,
    cpu::{Adjacency, dijkstra},
    format::{Graph, encode, write_graph},
    random::generate,
    solve_cpu,
};

use super::*;

fn cpu(graphs: &[Graph]) -> Result<(Vec<Distances>, BatchTimes)> {
    let d = graphs.iter().map(solve_cpu).collect::<Result<Vec<_>>>()?;
    Ok((d, BatchTimes::default()))
}

/// The expected file bytes: Dijkstra from every source, row after row.
fn expected_bytes(g: &Graph) -> Vec<u8> {
    let adj = Adjacency::new(g);
    let rows: Vec<i32> = (0..g.vertices).flat_map(|s| dijkstra(g, &adj, s)).collect();
    encode(&rows).to_vec()
}

fn write_inputs(dir: &Path, graphs: &[(String, Graph)]) -> Vec<PathBuf> {
    graphs
        .iter()
        .map(|(name, g)| {
            let p = dir.join(name);
            write_graph(&p, g).unwrap();
            p
        })
        .collect()
}

#[test]
fn every_graph_is_written_and_equals_the_reference_whatever_the_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let graphs: Vec<(String, Graph)> = (0..7)
        .map(|i| {
            let v = [1, 2, 17, 33, 64, 5, 130][i];
            let g = generate(v, (v * 3).min(v * (v - 1)), i as u64).unwrap();
            (format!("g{i}.in"), g)
        })
        .collect();
    let inputs = write_inputs(dir.path(), &graphs);
    for chunk in [1, 3, 100] {
        let out = dir.path().join(format!("out{chunk}"));
        std::fs::create_dir(&out).unwrap();
        let outputs = output_paths(&inputs, &out).unwrap();
        let r = solve_files(&inputs, &outputs, chunk, cpu).unwrap();
        assert_eq!((r.inputs, r.written), (7, 7));
        assert!(r.failures.is_empty(), "{:?}", r.failures);
        for ((_, g), o) in graphs.iter().zip(&outputs) {
            assert!(
                std::fs::read(o).unwrap() == expected_bytes(g),
                "{}",
                o.display()
            );
        }
    }
}

#[test]
fn a_bad_graph_is_named_with_its_byte_offset_and_the_others_are_still_written() {
    let dir = tempfile::tempdir().unwrap();
    let good = generate(10, 30, 1).unwrap();
    let mut inputs = write_inputs(
        dir.path(),
        &[("a.in".into(), good.clone()), ("c.in".into(), good.clone())],
    );
    // V = 3, E = 1, then the edge (0, 7, 5): dst outside 0..3 at byte offset 8 + 4 = 12.
    let bad = dir.path().join("b.in");
    let bytes: Vec<u8> = [3i32, 1, 0, 7, 5]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(&bad, bytes).unwrap();
    // A file too short for its header.
    let short = dir.path().join("d.in");
    std::fs::write(&short, [1u8, 0]).unwrap();
    inputs.insert(1, bad.clone());
    inputs.push(short.clone());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let outputs = output_paths(&inputs, &out).unwrap();
    let r = solve_files(&inputs, &outputs, 2, cpu).unwrap();
    assert_eq!((r.inputs, r.written, r.failures.len()), (4, 2, 2));
    let f = &r.failures;
    assert!(
        f[0].contains("b.in") && f[0].contains("byte offset 12"),
        "{f:?}"
    );
    assert!(
        f[1].contains("d.in") && f[1].contains("byte offset 0"),
        "{f:?}"
    );
    for name in ["a.out", "c.out"] {
        assert!(std::fs::read(out.join(name)).unwrap() == expected_bytes(&good));
    }
    for name in ["b.out", "d.out"] {
        assert!(!out.join(name).exists(), "{name} written for a bad input");
    }
}

#[test]
fn an_error_of_the_solver_ends_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let g = generate(4, 6, 2).unwrap();
    let inputs = write_inputs(
        dir.path(),
        &[("a.in".into(), g.clone()), ("b.in".into(), g)],
    );
    let outputs = output_paths(&inputs, &dir.path().join("o")).unwrap();
    let failing = |_: &[Graph]| -> Result<(Vec<Distances>, BatchTimes)> {
        anyhow::bail!("the GPU went away")
    };
    let e = solve_files(&inputs, &outputs, 1, failing).unwrap_err();
    assert!(e.to_string().contains("went away"), "{e}");
}
