//! The words of a float list row (`for_each_fw_float!`, `float.rs`) as the flags of
//! `FwFloatConfig`: one macro per column, so that the table (`fw_float_table!`) and the kernels
//! read a row the same way. Apart from `float.rs` to keep that file one concept (the list and
//! its config type).

/// A list row's `copy` word as [`super::float::FwFloatConfig::offsets32`].
macro_rules! fw_float_offsets32 {
    (loop32) => {
        true
    };
    (lean32) => {
        true
    };
    (lean32p) => {
        true
    };
    (lean32x) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// A list row's `copy` word as [`super::float::FwFloatConfig::a_pad16`].
macro_rules! fw_float_pad16 {
    (lean32p) => {
        true
    };
    (lean32x) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// A list row's `copy` word as [`super::float::FwFloatConfig::b_pairs`].
macro_rules! fw_float_pairs {
    (lean32x) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// A list row's `cap` as [`super::float::FwFloatConfig::max_registers`].
macro_rules! fw_float_cap {
    (none) => {
        None
    };
    ($n:literal) => {
        Some($n)
    };
}

/// A list row's `own`, `a_copy`, `copy` and `sched` words as the [`super::float::FwFloatConfig`] flags.
macro_rules! fw_float_word {
    (early) => {
        false
    };
    (late) => {
        true
    };
    (cg) => {
        false
    };
    (ca) => {
        true
    };
    (loop) => {
        false
    };
    (lean) => {
        true
    };
    (loop32) => {
        false
    };
    (lean32) => {
        true
    };
    (lean32p) => {
        true
    };
    (lean32x) => {
        true
    };
    (grid) => {
        false
    };
    (persist) => {
        true
    };
    (tgrid) => {
        false
    };
    (tgridnn) => {
        false
    };
}

/// A list row's `sched` word as [`super::float::FwFloatConfig::a_transposed`].
macro_rules! fw_float_transposed {
    (tgrid) => {
        true
    };
    (tgridnn) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// A list row's `sched` word as [`super::float::FwFloatConfig::nonneg`].
macro_rules! fw_float_nonneg {
    (tgridnn) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// The `sign` of `fwf_at_update!` (`fw_float_at.rs`) as a bool: `nonneg` for
/// [`super::float::FwFloatConfig::nonneg`] rows. (Expanded in the kernels only: unused on the host.)
#[allow(unused_macros)]
macro_rules! fwf_nonneg {
    (any) => {
        false
    };
    (nonneg) => {
        true
    };
}
