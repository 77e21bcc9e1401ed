//! `host apsp --device-memory-limit` and `--distributed` refuse bad input in one sentence
//! before any GPU work (on any machine), and leave no output.
mod common;

use common::{Scratch, graph_bytes};

fn scratch_with_graph() -> (Scratch, String) {
    let s = Scratch::new();
    let g = s.write("g.in", &graph_bytes(3, 2, &[(0, 1, 5), (1, 2, 7)]));
    (s, g.to_str().unwrap().to_string())
}

#[test]
fn a_limit_that_is_not_a_size_is_a_usage_error_naming_it() {
    let (s, g) = scratch_with_graph();
    let run = s
        .host(&["apsp", &g, "--device-memory-limit", "4XB"])
        .expect(2);
    assert!(
        run.stderr.contains("\"4XB\" is not a size"),
        "{}",
        run.stderr
    );
    assert_eq!(s.files(), ["g.in"]);
}

#[test]
fn the_limit_is_for_one_gpu() {
    let (s, g) = scratch_with_graph();
    let run = s
        .host(&["apsp", &g, "--gpus", "2", "--device-memory-limit", "1GiB"])
        .expect(1);
    assert!(run.one_line_error().contains("leave out --gpus"));
    assert_eq!(s.files(), ["g.in"]);
}

#[test]
fn distributed_without_a_launcher_or_with_half_of_its_variables_is_one_sentence() {
    let (s, g) = scratch_with_graph();
    let run = s
        .host(&["apsp", &g, "-o", "d.out", "--distributed"])
        .expect(1);
    assert!(
        run.one_line_error()
            .contains("needs a launcher's variables")
    );
    let cases: [(&[(&str, &str)], &str); 3] = [
        (&[("WORLD_SIZE", "2"), ("RANK", "0")], "needs MASTER_ADDR"),
        (&[("WORLD_SIZE", "2")], "WORLD_SIZE is set but RANK is not"),
        (
            &[
                ("WORLD_SIZE", "2"),
                ("RANK", "5"),
                ("MASTER_ADDR", "127.0.0.1"),
            ],
            "RANK=5 is not a rank",
        ),
    ];
    // WORLD_SIZE alone implies --distributed.
    for (env, want) in cases {
        let run = s.host_with_env(&["apsp", &g, "-o", "d.out"], env).expect(1);
        assert!(run.one_line_error().contains(want), "{}", run.stderr);
    }
    for (extra, want) in [
        (
            &["--device-memory-limit", "1GiB"][..],
            "leave out --cpu, --stats and --device-memory-limit",
        ),
        (
            &["--paths", "p.paths"],
            "--paths runs in one process (one GPU or --gpus N) for now",
        ),
    ] {
        let mut args = vec!["apsp", &g, "-o", "d.out"];
        args.extend_from_slice(extra);
        let run = s
            .host_with_env(&args, &[("WORLD_SIZE", "1"), ("RANK", "0")])
            .expect(1);
        assert!(
            run.one_line_error().contains(want),
            "{extra:?}: {}",
            run.stderr
        );
    }
    assert_eq!(s.files(), ["g.in"]);
}
