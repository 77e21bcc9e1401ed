//! The properties that the fuzz target `bench_records` (`fuzz/`) asserts on every input, shared
//! with the test that replays the kept corpus (`report/tests/fuzz_regressions.rs`) so that both
//! check the same things. Each check panics on a violation; libFuzzer reports the panic as a
//! crash.

#[path = "../../../core/tests/fuzz_props/shared.rs"]
pub mod shared;

use rgk_report::{markdown, parse_records};
use shared::assert_one_line_sentence;

/// Lines of a Markdown table (consecutive lines starting with `|`) all have the header's number
/// of cells, counting unescaped `|`.
fn assert_tables_are_rectangular(md: &str) {
    let cells = |line: &str| {
        let mut escaped = false;
        let mut n = 0;
        for c in line.chars() {
            n += usize::from(c == '|' && !escaped);
            escaped = c == '\\' && !escaped;
        }
        n
    };
    let mut header: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let n = cells(line);
        let want = *header.get_or_insert(n);
        assert_eq!(
            n, want,
            "table row with {n} separators, header has {want}: {line:?}"
        );
    }
}

/// `parse_records` on UTF-8 text (files are read as UTF-8 before parsing): what it accepts
/// survives a round trip through JSON Lines and a JSON array unchanged, and its Markdown tables
/// stay rectangular; what it rejects gets a one-line message. Returns whether the input was
/// accepted.
pub fn check_records(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match parse_records(text) {
        Ok(records) => {
            let lines: String = records
                .iter()
                .map(|r| serde_json::to_string(r).unwrap() + "\n")
                .collect();
            assert_eq!(parse_records(&lines).unwrap(), records, "JSON Lines");
            let array = serde_json::to_string(&records).unwrap();
            assert_eq!(parse_records(&array).unwrap(), records, "JSON array");
            assert_tables_are_rectangular(&markdown(&records, &[]));
            true
        }
        Err(e) => {
            assert_one_line_sentence(&format!("{e:#}"));
            false
        }
    }
}
