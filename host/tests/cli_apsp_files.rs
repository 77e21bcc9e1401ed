//! End-to-end tests of `host apsp` on files, on the CPU (no GPU needed): every class of bad
//! input gets one sentence, exit status 1 and no output file; the default output path; an
//! output that is the input is refused; the parallel writer over several blocks; `--verify`
//! through the Dijkstra branch.
mod common;

use common::{Scratch, graph_bytes, reference_output};

/// `host apsp g.in` on `bytes`, on the CPU, one GPU and two: exit 1, one line on stderr
/// containing `says`, and the directory holds only the input afterwards (no output, no
/// temporary file). The same on any machine: the file is read before the driver is needed.
fn bad_input_case(bytes: &[u8], says: &str) {
    let s = Scratch::new();
    s.write("g.in", bytes);
    for args in [
        &["apsp", "g.in", "--cpu"][..],
        &["apsp", "g.in"],
        &["apsp", "g.in", "--gpus", "2"],
    ] {
        let run = s.host(args).expect(1);
        let line = run.one_line_error();
        assert!(line.contains("cannot read graph g.in"), "{args:?}: {line}");
        assert!(
            line.contains(says),
            "{args:?}: expected {says:?} in {line:?}"
        );
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(s.files(), ["g.in"], "bad input must leave no output");
    }
}

macro_rules! bad_inputs {
    ($($name:ident: $bytes:expr => $says:literal;)*) => {
        $(#[test] fn $name() { bad_input_case(&$bytes, $says); })*
    };
}

bad_inputs! {
    empty_file: [] => "too short for the 8-byte header";
    header_cut: [3, 0, 0, 0, 1] => "too short for the 8-byte header";
    truncated: graph_bytes(3, 2, &[(0, 1, 5)]) => "file is truncated";
    truncated_inside_an_edge: graph_bytes(3, 1, &[(0, 1, 5)])[..15] => "file is truncated";
    trailing_bytes: [graph_bytes(3, 1, &[(0, 1, 5)]), vec![0; 3]].concat() => "3 trailing bytes";
    no_vertices: graph_bytes(0, 0, &[]) => "V = 0 at byte offset 0 must be at least 1";
    negative_vertices: graph_bytes(-4, 0, &[]) => "V = -4";
    negative_edge_count: graph_bytes(3, -1, &[]) => "E = -1 at byte offset 4";
    too_many_edges: graph_bytes(2, 3, &[(0, 1, 1), (1, 0, 1), (0, 1, 2)]) => "exceeds V*(V-1) = 2";
    src_out_of_range: graph_bytes(3, 2, &[(0, 1, 1), (3, 1, 1)]) => "edge 1 has src = 3 outside 0..3 at byte offset 20";
    dst_out_of_range: graph_bytes(3, 1, &[(0, 7, 1)]) => "edge 0 has dst = 7 outside 0..3 at byte offset 12";
    negative_vertex: graph_bytes(3, 1, &[(-1, 0, 1)]) => "src = -1 outside 0..3";
    self_loop: graph_bytes(3, 1, &[(2, 2, 1)]) => "self-loop (src = dst = 2)";
    negative_weight: graph_bytes(3, 1, &[(0, 1, -1)]) => "weight w = -1 outside 0..=1000 at byte offset 16";
    weight_above_1000: graph_bytes(3, 1, &[(0, 1, 1001)]) => "weight w = 1001 outside 0..=1000";
}

#[test]
fn missing_input_is_one_sentence() {
    let s = Scratch::new();
    for args in [
        &["apsp", "nowhere.in", "--cpu"][..],
        &["apsp", "nowhere.in"],
    ] {
        let run = s.host(args).expect(1);
        assert!(
            run.one_line_error().contains("nowhere.in"),
            "{}",
            run.stderr
        );
        assert!(s.files().is_empty());
    }
}

#[test]
fn bad_input_leaves_an_existing_output_untouched() {
    let s = Scratch::new();
    s.write("g.in", &graph_bytes(3, 1, &[(0, 1, 1001)]));
    s.write("g.out", b"previous");
    s.host(&["apsp", "g.in", "--cpu"])
        .expect(1)
        .one_line_error();
    assert_eq!(std::fs::read(s.path("g.out")).unwrap(), b"previous");
    assert_eq!(s.files(), ["g.in", "g.out"]);
}

#[test]
fn output_paths_default_positional_and_option() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "200", "1500", "--seed", "3", "-o", "g.in"])
        .expect(0);
    let want = reference_output(&s.path("g.in"));
    // Default: INPUT with extension .out.
    s.host(&["apsp", "g.in", "--cpu"]).expect(0);
    assert!(std::fs::read(s.path("g.out")).unwrap() == want);
    // The positional OUTPUT and -o/--output are the same thing.
    s.host(&["apsp", "g.in", "pos.out", "--cpu"]).expect(0);
    s.host(&["apsp", "g.in", "--output", "opt.out", "--cpu"])
        .expect(0);
    assert!(std::fs::read(s.path("pos.out")).unwrap() == want);
    assert!(std::fs::read(s.path("opt.out")).unwrap() == want);
    assert_eq!(s.files(), ["g.in", "g.out", "opt.out", "pos.out"]);
}

#[test]
fn an_output_that_is_the_input_is_refused() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "20", "50", "-o", "g.in"]).expect(0);
    std::fs::copy(s.path("g.in"), s.path("h.out")).unwrap();
    let before = std::fs::read(s.path("g.in")).unwrap();
    for args in [
        &["apsp", "g.in", "g.in", "--cpu"][..],
        &["apsp", "g.in", "-o", "./g.in", "--cpu"],
        // The default output of h.out is h.out itself.
        &["apsp", "h.out", "--cpu"],
    ] {
        let run = s.host(args).expect(1);
        assert!(
            run.one_line_error().contains("is the input"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(std::fs::read(s.path("g.in")).unwrap(), before);
    assert_eq!(std::fs::read(s.path("h.out")).unwrap(), before);
    assert_eq!(s.files(), ["g.in", "h.out"]);
}

/// V = 2500: rows of 10 000 bytes, so the writer's 4 MiB blocks hold 419 rows and the matrix
/// takes 6 of them, written in parallel at their offsets. About V/2 edges keep the reachable
/// sets (and so the CPU Floyd–Warshall, which skips unreachable rows) small.
#[test]
fn the_parallel_writer_over_several_blocks_equals_a_row_by_row_reference() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "2500", "1250", "--seed", "5", "-o", "g.in"])
        .expect(0);
    s.host(&["apsp", "g.in", "--cpu"]).expect(0);
    let got = std::fs::read(s.path("g.out")).unwrap();
    assert_eq!(got.len(), 2500 * 2500 * 4);
    assert!(
        got == reference_output(&s.path("g.in")),
        "g.out differs from the reference"
    );
}

/// V = 4001 > FULL_VERIFY_MAX: `--verify` checks 64 rows against Dijkstra instead of a second
/// Floyd–Warshall.
#[test]
fn verify_above_4000_vertices_goes_through_dijkstra() {
    assert_eq!(rgk_core::apsp::verify::FULL_VERIFY_MAX, 4000);
    let s = Scratch::new();
    s.host(&["apsp-gen", "4001", "2000", "-o", "g.in"])
        .expect(0);
    let run = s.host(&["apsp", "g.in", "--cpu", "--verify"]).expect(0);
    assert!(
        run.stdout
            .contains("verified: 64 random rows equal Dijkstra"),
        "{}",
        run.stdout
    );
    let v = s
        .host(&["apsp", "g.in", "--cpu", "--verify", "--json"])
        .expect(0)
        .json();
    assert_eq!(v["results"]["verified"], "64 random rows equal Dijkstra");
}
