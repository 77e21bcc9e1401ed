//! Replays the inputs that fuzzing kept, a minimised libFuzzer corpus per target in
//! `tests/fuzz_regressions/<target>/` (docs/fuzzing.md says how it is made), through the same
//! properties that the fuzz targets assert.

mod fuzz_props;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Runs `check` on every file of the target's corpus; fails naming each input that breaks it.
/// The corpus must hold inputs that the reader accepts and inputs that it rejects, so that both
/// sides of the properties are exercised.
fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let (mut inputs, mut accepted) = (0, 0);
    let mut failed = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        inputs += 1;
        match catch_unwind(AssertUnwindSafe(|| check(&bytes))) {
            Ok(true) => accepted += 1,
            Ok(false) => {}
            Err(_) => failed.push(path.display().to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {inputs} inputs fail: {failed:#?}",
        failed.len()
    );
    assert!(
        0 < accepted && accepted < inputs,
        "{accepted} of {inputs} inputs in {} accepted: the corpus should hold both kinds",
        dir.display()
    );
}

#[test]
fn graph_reader_corpus() {
    replay("graph_reader", fuzz_props::check_graph);
}

#[test]
fn bench_records_corpus() {
    replay("bench_records", fuzz_props::check_records);
}
