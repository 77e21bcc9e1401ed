//! `rgk_core::apsp::format::parse_graph` on arbitrary bytes; the properties are in
//! `core/tests/fuzz_props`, shared with the regression test that replays the corpus.
#![no_main]

// The corpus replay in it is for the regression test.
#[allow(dead_code)]
#[path = "../../core/tests/fuzz_props/mod.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_props::check_graph(data);
});
