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
/// that the skip is visible in the test output). Under [`require_gpu`] a missing directory
/// fails the test instead: a run on the GPU machine must not pass without its data.
pub fn apsp_cases_for_test(test: &str) -> Option<PathBuf> {
    let dir = apsp_cases();
    if dir.is_none() {
        let why = "the course cases are absent (set APSP_TESTDATA or put them in ../shared/testdata/apsp)";
        if require_gpu() {
            panic!("{test}: REQUIRE_GPU is set but {why}");
        }
        skip(test, why);
    }
    dir
}

/// Whether tests must run instead of skipping (the GPU machine's runs): the environment
/// variable `REQUIRE_GPU` holds a true value. Under it a test that finds no GPU, or not its
/// course data, fails. The one reader of the variable.
pub fn require_gpu() -> bool {
    match std::env::var("REQUIRE_GPU") {
        Ok(value) => parse_flag("REQUIRE_GPU", &value),
        Err(_) => false,
    }
}

/// `1`, `true`, `yes` (any case) are true; empty, `0`, `false`, `no` false; anything else is
/// refused, since a misspelt flag must not quietly turn a required run into skips.
fn parse_flag(name: &str, value: &str) -> bool {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => true,
        "" | "0" | "false" | "no" => false,
        _ => panic!("{name}={value:?} is neither true (1, true, yes) nor false (0, false, no)"),
    }
}

/// Says that `test` is skipped and why, as `SKIPPED <test>: <why>` on stderr. Written to the
/// stream directly: libtest captures `eprintln!`, and a skip must be visible in CI's output.
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_the_usual_true_and_false_values() {
        for v in ["1", "true", "TRUE", "True", "yes", "Yes", " yes "] {
            assert!(parse_flag("F", v), "{v:?}");
        }
        for v in ["", "0", "false", "FALSE", "no", "No"] {
            assert!(!parse_flag("F", v), "{v:?}");
        }
    }

    #[test]
    #[should_panic(expected = "F=\"ture\" is neither true")]
    fn a_misspelt_flag_is_refused() {
        parse_flag("F", "ture");
    }
}
