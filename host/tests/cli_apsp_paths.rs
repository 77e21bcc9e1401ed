//! `host apsp --paths` on the CPU and `host path`: the files against the in-process CPU
//! reference, and bad input (vertices, files, flags) answered in one sentence with exit 1.
mod common;

use common::Scratch;
use rgk_core::apsp::{
    format::write_graph,
    paths::{PathKind, cpu::solve_paths},
    random::generate,
};

/// A graph written into the scratch directory, its paths and distances by `host apsp --cpu`.
fn solved(s: &Scratch, kind: PathKind) -> rgk_core::apsp::format::Graph {
    let g = generate(60, 500, 21).unwrap();
    write_graph(&s.path("g.in"), &g).unwrap();
    s.host(&[
        "apsp",
        "g.in",
        "--cpu",
        "-o",
        "g.out",
        "--paths",
        "g.paths",
        "--path-kind",
        kind.name(),
        "--verify",
    ])
    .expect(0);
    g
}

#[test]
fn the_path_command_prints_the_reference_path_and_length() {
    for kind in PathKind::ALL {
        let s = Scratch::new();
        let g = solved(&s, kind);
        let (d, m) = solve_paths(&g, kind).unwrap();
        for (u, v) in [(0, 59), (7, 3), (12, 12), (59, 0)] {
            let (us, vs) = (u.to_string(), v.to_string());
            let run = s
                .host(&["path", "g.paths", &us, &vs, "--distances", "g.out"])
                .expect(0);
            let want = match m.path(u, v).unwrap() {
                None => format!("no path from {u} to {v}"),
                Some(p) => {
                    let list: Vec<String> = p.iter().map(u32::to_string).collect();
                    format!(
                        "{} ({} hops, length {})",
                        list.join(" "),
                        p.len() - 1,
                        d.get(u, v)
                    )
                }
            };
            assert_eq!(run.stdout.trim(), want, "{kind:?} {u} {v}");
        }
        let j = s
            .host(&["path", "g.paths", "0", "59", "--json"])
            .expect(0)
            .json();
        let want: Option<Vec<u32>> = m.path(0, 59).unwrap();
        assert_eq!(j["results"]["vertices"], serde_json::json!(want), "{j}");
    }
}

#[test]
fn bad_vertices_and_files_are_one_sentence() {
    let s = Scratch::new();
    solved(&s, PathKind::Successors);
    for (args, says) in [
        (
            &["path", "g.paths", "60", "1"][..],
            "source vertex 60 is outside the graph of 60 vertices",
        ),
        (
            &["path", "g.paths", "1", "1000"][..],
            "target vertex 1000 is outside",
        ),
        (
            &["path", "g.paths", "x", "1"][..],
            "the source \"x\" is not a vertex",
        ),
        (
            &["path", "g.paths", "1", "--", "-1"][..],
            "the target \"-1\" is not a vertex",
        ),
        (&["path", "g.out", "1", "2"][..], "is not a path file"),
        (&["path", "g.in", "1", "2"][..], "is not a path file"),
        (
            &["path", "g.paths", "1", "2", "--distances", "g.in"][..],
            "not the 14400 of a distance file",
        ),
        (&["path", "none.paths", "1", "2"][..], "cannot open"),
        (
            &["apsp", "g.in", "-o", "g2.out", "--paths", "g2.out"][..],
            "names the distance file too",
        ),
        (
            &["apsp", "g.in", "-o", "g2.out", "--paths", "g.in"][..],
            "is the input",
        ),
        (
            &[
                "apsp", "g.in", "-o", "g2.out", "--paths", "p", "--block", "16",
            ][..],
            "block factor 64 only, not 16",
        ),
    ] {
        let run = s.host(args).expect(1);
        let line = run.one_line_error();
        assert!(line.contains(says), "{args:?}: {line}");
    }
    // `--paths` with `--gpus 2` runs the split (docs/apsp.md): without two GPUs it stops in one
    // sentence, the no-GPU one (exit 3) or the one naming how many GPUs there are (exit 1).
    let args = [
        "apsp", "g.in", "-o", "g2.out", "--paths", "p", "--gpus", "2",
    ];
    let run = s.host(&args);
    if run.code == Some(0) {
        return; // two GPUs are here: gpu_apsp_multi_paths checks what they wrote
    }
    let line = run.one_line_error();
    match run.code {
        Some(3) => assert!(line.contains("no NVIDIA driver"), "{line}"),
        Some(1) => assert!(line.contains("asks for 2 GPUs"), "{line}"),
        _ => panic!("{args:?} exited with {:?}: {line}", run.code),
    }
    assert!(!s.path("g2.out").exists() && !s.path("p").exists());
}

#[test]
fn a_zero_weight_cycle_is_refused_on_the_gpu_before_the_gpu_is_needed() {
    let s = Scratch::new();
    let e = |src, dst, w| rgk_core::apsp::format::Edge { src, dst, w };
    let g = rgk_core::apsp::format::Graph::from_edges(3, vec![e(0, 1, 0), e(1, 0, 0), e(1, 2, 4)])
        .unwrap();
    write_graph(&s.path("z.in"), &g).unwrap();
    let run = s
        .host(&["apsp", "z.in", "-o", "z.out", "--paths", "z.paths"])
        .expect(1);
    assert!(
        run.one_line_error().contains("cycle of zero-weight edges"),
        "{}",
        run.stderr
    );
    assert!(!s.path("z.out").exists() && !s.path("z.paths").exists());
    s.host(&["apsp", "z.in", "-o", "z.out", "--paths", "z.paths", "--cpu"])
        .expect(0);
    let run = s.host(&["path", "z.paths", "0", "2"]).expect(0);
    assert_eq!(run.stdout.trim(), "0 1 2 (2 hops)");
}

#[test]
fn path_kind_needs_paths() {
    let s = Scratch::new();
    solved(&s, PathKind::Successors);
    s.host(&["apsp", "g.in", "--cpu", "--path-kind", "predecessors"])
        .expect(2);
}
