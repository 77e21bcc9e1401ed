//! Replays the inputs that fuzzing kept, the minimised libFuzzer corpus of the `bench_records` target
//! in `tests/fuzz_regressions/bench_records/` (docs/fuzzing.md says how it is made), through the same
//! properties that the fuzz target asserts.

mod fuzz_props;

use fuzz_props::shared::replay;

#[test]
fn bench_records_corpus() {
    replay("bench_records", fuzz_props::check_records);
}
