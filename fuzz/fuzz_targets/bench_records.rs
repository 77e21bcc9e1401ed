//! `rgk_report::parse_records` (and the markdown made from what it accepts) on arbitrary
//! bytes; the properties are in `report/tests/fuzz_props`, shared with the regression test.
#![no_main]

// The corpus replay in it is for the regression test.
#[allow(dead_code)]
#[path = "../../report/tests/fuzz_props/mod.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_props::check_records(data);
});
