//! All-pairs shortest paths on the CPU: the course file format (`format`), CPU references
//! (`cpu`: multithreaded Floyd–Warshall and Dijkstra), a seeded random graph generator
//! (`random`), the check of any answer against the references (`verify`) and the largest graph
//! each solver holds (`limits`).
pub mod batch;
pub mod cpu;
mod distances;
pub mod format;
pub mod limits;
pub mod ooc;
pub mod paths;
pub mod random;
pub mod split;
pub mod stats;
pub mod verify;

pub use distances::{Distances, solve_cpu};
pub use format::{INF, MAX_WEIGHT};
