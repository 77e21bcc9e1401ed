use std::fs;

use super::*;
use crate::BadInput;

fn is_bad_input(e: &anyhow::Error) -> bool {
    e.downcast_ref::<BadInput>().is_some()
}

#[test]
fn directories_expand_to_their_visible_files_sorted_and_files_stand_for_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    for name in ["b.in", "a.in", ".hidden", "sub/inner.in", "c"] {
        fs::write(d.join(name), b"x").unwrap();
    }
    let single = d.join("sub/inner.in");
    let got = expand_inputs(&[d.to_path_buf(), single.clone()]).unwrap();
    let want: Vec<PathBuf> = ["a.in", "b.in", "c"].iter().map(|n| d.join(n)).collect();
    assert_eq!(got[..3], want[..]);
    assert_eq!(got[3], single);
    assert_eq!(got.len(), 4);
}

#[test]
fn a_missing_path_or_an_empty_directory_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let e = expand_inputs(std::slice::from_ref(&missing)).unwrap_err();
    assert!(is_bad_input(&e) && e.to_string().contains("nope"), "{e}");
    let e = expand_inputs(&[dir.path().to_path_buf()]).unwrap_err();
    assert!(
        is_bad_input(&e) && e.to_string().contains("no input graphs"),
        "{e}"
    );
}

#[test]
fn outputs_are_named_after_the_inputs_and_never_collide_or_overwrite_an_input() {
    let out = Path::new("/o");
    assert_eq!(
        output_path(Path::new("x/g1.in"), out),
        Path::new("/o/g1.out")
    );
    assert_eq!(output_path(Path::new("x/g2"), out), Path::new("/o/g2.out"));
    assert_eq!(
        output_path(Path::new("a.b.c"), out),
        Path::new("/o/a.b.out")
    );
    let inputs = vec![PathBuf::from("x/g.in"), PathBuf::from("y/g.bin")];
    let e = output_paths(&inputs, out).unwrap_err();
    assert!(is_bad_input(&e), "{e}");
    assert!(
        e.to_string().contains("x/g.in") && e.to_string().contains("y/g.bin"),
        "{e}"
    );

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.out");
    fs::write(&input, b"x").unwrap();
    let e = output_paths(std::slice::from_ref(&input), dir.path()).unwrap_err();
    assert!(
        is_bad_input(&e) && e.to_string().contains("is the input file"),
        "{e}"
    );
    let fine = output_paths(&[dir.path().join("h.in")], dir.path()).unwrap();
    assert_eq!(fine, vec![dir.path().join("h.out")]);
}

#[test]
fn chunks_hold_one_class_each_at_most_chunk_graphs_and_every_graph_once() {
    let sizes = [10, 100, 20, 300, 30, 120, 5, 40, 50, 600];
    let class = |v: usize| [32usize, 128].into_iter().find(|&n| v <= n);
    let runs = chunks_by_class(&sizes, 2, class);
    let mut all: Vec<usize> = runs.iter().flatten().copied().collect();
    all.sort();
    assert_eq!(all, (0..sizes.len()).collect::<Vec<_>>());
    for run in &runs {
        assert!(!run.is_empty() && run.len() <= 2, "{runs:?}");
        let c = class(sizes[run[0]]);
        assert!(run.iter().all(|&i| class(sizes[i]) == c), "{runs:?}");
        if c.is_none() {
            assert_eq!(run.len(), 1);
        }
    }
    // Order is kept inside a class.
    for run in &runs {
        assert!(run.is_sorted(), "{runs:?}");
    }
}
