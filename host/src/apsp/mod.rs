//! All-pairs shortest paths on the GPU (`gpu`: the blocked Floyd–Warshall runner) and file to
//! file with every stage timed (`pipeline`). Formats and CPU references are in `rgk_core::apsp`.
pub mod gpu;
pub mod pipeline;
