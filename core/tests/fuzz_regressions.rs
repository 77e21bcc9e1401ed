//! Replays the inputs that fuzzing kept, the minimised libFuzzer corpus of the `graph_reader` target
//! in `tests/fuzz_regressions/graph_reader/` (docs/fuzzing.md says how it is made), through the same
//! properties that the fuzz target asserts.

mod fuzz_props;

use fuzz_props::shared::replay;

#[test]
fn graph_reader_corpus() {
    replay("graph_reader", fuzz_props::check_graph);
}
