//! What the kernels need of the APSP file format. The format's owner is
//! `rgk_core::apsp::format`, which re-exports this; it lives here because the kernels cannot
//! depend on rgk-core (rgk-core depends on this crate).

/// "No path" in the course file format (2^30 - 1): INF + INF still fits in an i32, so the
/// kernels' add-min never overflows.
pub const INF: i32 = 1_073_741_823;

/// "No next vertex" in a successor matrix (`host apsp --paths`): the pair has no path.
pub const NO_SUCCESSOR: i32 = -1;
/// "No previous vertex" in a predecessor matrix: no path, or the diagonal (scipy's value).
pub const NO_PREDECESSOR: i32 = -9999;
