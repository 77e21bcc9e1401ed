//! End-to-end tests of `host apsp --stats` on the CPU path (no GPU needed): the statistics CSV
//! and the graph's measures equal those of the distances of an independent Dijkstra, no
//! distance file is written unless asked for, and the statistics file obeys the output rules.
mod common;

use common::{Scratch, reference_output};
use rgk_core::apsp::stats::{CSV_HEADER, Stats};

/// The statistics of `g.in` in `s`, from Dijkstra's distances.
fn expected(s: &Scratch) -> Stats {
    let bytes = reference_output(&s.path("g.in"));
    let dist: Vec<i32> = bytes
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let v = (dist.len() as f64).sqrt() as usize;
    Stats::from_distances(&dist, v, v)
}

fn csv_of(stats: &Stats) -> String {
    let mut out = Vec::new();
    stats.csv(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn stats_alone_write_no_distance_file() {
    let s = Scratch::new();
    // Sparse: some pairs have no path, so the extension beyond networkx is exercised too.
    s.host(&["apsp-gen", "70", "150", "--seed", "3", "-o", "g.in"])
        .expect(0);
    let run = s
        .host(&["apsp", "g.in", "--cpu", "--stats", "s.csv"])
        .expect(0);
    assert_eq!(s.files(), ["g.in", "s.csv"], "no g.out with --stats alone");
    let want = expected(&s);
    let csv = std::fs::read_to_string(s.path("s.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some(CSV_HEADER));
    assert_eq!(csv.lines().count(), 71);
    assert_eq!(csv, csv_of(&want));
    let g = &want.graph;
    assert!(g.unreachable_pairs > 0, "{g:?}");
    assert!(
        run.stdout
            .contains(&format!("diameter                       {}", g.diameter)),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("wrote s.csv"), "{}", run.stderr);
    assert!(!run.stderr.contains("g.out"), "{}", run.stderr);
}

#[test]
fn stats_json_is_in_the_envelope() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "40", "400", "-o", "g.in"]).expect(0);
    let v = s
        .host(&["apsp", "g.in", "--cpu", "--stats", "s.csv", "--json"])
        .expect(0)
        .json();
    assert_eq!(v["command"], "apsp");
    assert_eq!(v["device"]["kind"], "cpu");
    let r = &v["results"];
    assert!(r["output"].is_null(), "{r:#}");
    assert_eq!(r["stats"]["output"], "s.csv");
    let want = serde_json::to_value(&expected(&s).graph).unwrap();
    assert_eq!(r["stats"]["graph"], want);
    assert!(r["stats"]["times"]["reduce_s"].as_f64().is_some(), "{r:#}");
    assert_eq!(s.files(), ["g.in", "s.csv"]);
}

#[test]
fn stats_with_an_output_write_both() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "50", "300", "-o", "g.in"]).expect(0);
    for args in [
        &["apsp", "g.in", "--cpu", "--stats", "s.csv", "-o", "d.out"][..],
        &["apsp", "g.in", "d.out", "--cpu", "--stats", "s.csv"],
    ] {
        s.host(args).expect(0);
        assert_eq!(s.files(), ["d.out", "g.in", "s.csv"], "{args:?}");
        assert_eq!(
            std::fs::read(s.path("d.out")).unwrap(),
            reference_output(&s.path("g.in"))
        );
        assert_eq!(
            std::fs::read_to_string(s.path("s.csv")).unwrap(),
            csv_of(&expected(&s))
        );
    }
}

#[test]
fn the_stats_file_is_never_the_input_nor_the_distance_file() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "10", "20", "-o", "g.in"]).expect(0);
    for (args, says) in [
        (
            &["apsp", "g.in", "--cpu", "--stats", "g.in"][..],
            "is the input",
        ),
        (
            &["apsp", "g.in", "--cpu", "--stats", "x.out", "-o", "x.out"],
            "names the distance file too",
        ),
    ] {
        let run = s.host(args).expect(1);
        assert!(run.one_line_error().contains(says), "{}", run.stderr);
        assert_eq!(s.files(), ["g.in"], "{args:?}");
    }
}

#[test]
fn stats_on_several_gpus_are_refused_before_any_work() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "10", "20", "-o", "g.in"]).expect(0);
    // The same on any machine: refused before the driver is needed.
    let run = s
        .host(&["apsp", "g.in", "--gpus", "2", "--stats", "s.csv"])
        .expect(1);
    assert!(
        run.one_line_error().contains("--stats runs on one GPU"),
        "{}",
        run.stderr
    );
    assert_eq!(s.files(), ["g.in"]);
}
