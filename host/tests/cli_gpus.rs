//! `host apsp --gpus N`: parsing, and more GPUs than present (no GPU needed: without a driver
//! or GPU the no-GPU sentence with exit 3 comes first, which is checked instead).
mod common;

use common::{Scratch, graph_bytes};

fn host(args: &[&str]) -> (i32, String) {
    let run = Scratch::new().host(args);
    (run.code.unwrap_or(-1), run.stderr)
}

#[test]
fn gpus_must_be_a_count_or_all() {
    for bad in ["0", "-1", "two", ""] {
        let (code, err) = host(&["apsp", "g.in", &format!("--gpus={bad}")]);
        assert_eq!(code, 2, "--gpus {bad:?}: {err}");
        assert!(err.contains("--gpus"), "{err}");
    }
}

#[test]
fn more_gpus_than_present_is_one_sentence_and_fails() {
    // A good graph: the file is read before the GPUs are counted.
    let s = Scratch::new();
    s.write("g.in", &graph_bytes(3, 1, &[(0, 1, 5)]));
    let run = s.host(&["apsp", "g.in", "--gpus", "4096"]);
    let (code, err) = (run.code.unwrap_or(-1), run.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    if code == 3 {
        // No driver or no GPU here: that sentence comes first.
        assert!(err.contains("GPU") || err.contains("driver"), "{err}");
    } else {
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("--gpus 4096 asks for 4096 GPUs but only"),
            "{err}"
        );
    }
}

#[test]
fn several_gpus_need_block_64() {
    let (code, err) = host(&["apsp", "/nonexistent/g.in", "--gpus", "2", "--block", "32"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("block factor 64 only"), "{err}");
}
