//! Where the course's APSP cases are, for tests and scripts. They are an extra: the repository's
//! own tests generate their graphs, and the course cases (`*.in` with the expected `*.out`) live
//! beside the checkout in `../shared/testdata/apsp`, which a clone does not have.

use std::path::PathBuf;

/// The directory of the course cases: `APSP_TESTDATA` if set (the GPU bundle carries them
/// there), else `../shared/testdata/apsp` beside the repository; `None` when absent.
pub fn apsp_cases() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("APSP_TESTDATA") {
        return Some(PathBuf::from(dir)).filter(|d| d.is_dir());
    }
    let beside_repo = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/testdata/apsp"
    ));
    beside_repo.is_dir().then_some(beside_repo)
}

/// `apsp_cases()`, or `None` after printing that `test` is skipped (past libtest's capture, so
/// that the skip is visible in the test output).
pub fn apsp_cases_for_test(test: &str) -> Option<PathBuf> {
    let dir = apsp_cases();
    if dir.is_none() {
        skip(
            test,
            "the course cases are absent (set APSP_TESTDATA or put them in ../shared/testdata/apsp)",
        );
    }
    dir
}

/// Says that `test` is skipped and why, as `SKIPPED <test>: <why>` on stderr. Written to the
/// stream directly: libtest captures `eprintln!`, and a skip must be visible in CI's output.
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
