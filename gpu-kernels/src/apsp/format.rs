//! What the kernels need of the APSP file format. The format's owner is
//! `rgk_core::apsp::format`, which re-exports this; it lives here because the kernels cannot
//! depend on rgk-core (rgk-core depends on this crate).

/// "No path" in the course file format (2^30 - 1): INF + INF still fits in an i32, so the
/// kernels' add-min never overflows.
pub const INF: i32 = 1_073_741_823;
