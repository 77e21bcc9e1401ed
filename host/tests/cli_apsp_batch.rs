//! `host apsp-batch` through the built binary, on the CPU (`--cpu`), so it runs anywhere: each
//! output equals an independent answer (Dijkstra), a bad input is named with its file and byte
//! offset while the others are still written, exit status 1 at the end; argument errors.
//! The GPU path is in gpu_apsp_batch.rs.
mod common;

use common::{Scratch, graph_bytes, reference_output};
use rgk_core::apsp::{format::write_graph, random::generate};

#[test]
fn a_directory_and_a_file_are_solved_into_one_output_each() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("in")).unwrap();
    for (i, v) in [3usize, 20, 70].into_iter().enumerate() {
        let g = generate(v, v * 2, i as u64).unwrap();
        write_graph(&s.path(&format!("in/g{i}.in")), &g).unwrap();
    }
    let single = s.write("extra.bin", &graph_bytes(2, 1, &[(1, 0, 9)]));
    let run = s
        .host(&[
            "apsp-batch",
            "in",
            "extra.bin",
            "-o",
            "out",
            "--cpu",
            "--json",
        ])
        .expect(0);
    let j = run.json();
    assert_eq!(j["command"], "apsp-batch");
    assert_eq!(
        (
            j["results"]["inputs"].as_u64(),
            j["results"]["written"].as_u64()
        ),
        (Some(4), Some(4))
    );
    for i in 0..3 {
        let got = std::fs::read(s.path(&format!("out/g{i}.out"))).unwrap();
        assert!(
            got == reference_output(&s.path(&format!("in/g{i}.in"))),
            "g{i}"
        );
    }
    assert!(std::fs::read(s.path("out/extra.out")).unwrap() == reference_output(&single));
}

#[test]
fn a_bad_graph_is_named_and_the_others_are_still_written_then_exit_1() {
    let s = Scratch::new();
    s.write("a.in", &graph_bytes(2, 1, &[(0, 1, 4)]));
    // Weight 1001 at byte offset 8 + 8 = 16.
    s.write("b.in", &graph_bytes(2, 1, &[(0, 1, 1001)]));
    s.write("c.in", &graph_bytes(3, 1, &[(2, 0, 1)]));
    let run = s
        .host(&[
            "apsp-batch",
            "a.in",
            "b.in",
            "c.in",
            "-o",
            "out",
            "--cpu",
            "--quiet",
        ])
        .expect(1);
    assert!(
        run.stderr.contains("b.in") && run.stderr.contains("byte offset 16"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 of 3 graphs failed"),
        "{}",
        run.stderr
    );
    assert!(s.path("out/a.out").exists() && s.path("out/c.out").exists());
    assert!(!s.path("out/b.out").exists());
    let mut left: Vec<_> = std::fs::read_dir(s.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["a.out", "c.out"], "no temporary files left");
}

#[test]
fn missing_inputs_colliding_names_and_no_inputs_are_one_sentence_each() {
    let s = Scratch::new();
    let run = s
        .host(&["apsp-batch", "nope.in", "-o", "out", "--cpu"])
        .expect(1);
    assert!(run.one_line_error().contains("nope.in"), "{}", run.stderr);
    std::fs::create_dir(s.path("x")).unwrap();
    std::fs::create_dir(s.path("y")).unwrap();
    s.write("x/g.in", &graph_bytes(1, 0, &[]));
    s.write("y/g.in", &graph_bytes(1, 0, &[]));
    let run = s
        .host(&["apsp-batch", "x", "y", "-o", "out", "--cpu"])
        .expect(1);
    assert!(
        run.one_line_error().contains("would both be written"),
        "{}",
        run.stderr
    );
    std::fs::create_dir(s.path("empty")).unwrap();
    let run = s
        .host(&["apsp-batch", "empty", "-o", "out", "--cpu"])
        .expect(1);
    assert!(
        run.one_line_error().contains("no input graphs"),
        "{}",
        run.stderr
    );
    // No inputs at all is a usage error.
    s.host(&["apsp-batch", "-o", "out"]).expect(2);
}
