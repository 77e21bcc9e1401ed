//! What the fuzz checks of rgk-core (`graph_reader`) and rgk-report (`bench_records`) share: the
//! shape of every error message, and the replay of a kept corpus by each crate's
//! `tests/fuzz_regressions.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// An error message is one sentence on one line: it starts with a letter, has no line breaks
/// and no surrounding space.
pub fn assert_one_line_sentence(message: &str) {
    assert!(
        message.starts_with(|c: char| c.is_alphabetic()),
        "error does not start with a word: {message:?}"
    );
    assert!(
        !message.contains(['\n', '\r']),
        "error spans lines: {message:?}"
    );
    assert_eq!(message.trim_end(), message, "error ends in space");
}

/// Runs `check` on every file of the target's corpus; fails naming each input that breaks it.
/// The corpus must hold inputs that the reader accepts and inputs that it rejects, so that both
/// sides of the properties are exercised.
pub fn replay(target: &str, check: fn(&[u8]) -> bool) {
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
