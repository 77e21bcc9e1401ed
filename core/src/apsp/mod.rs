//! All-pairs shortest paths on the CPU: the course file format (`format`), CPU references
//! (`cpu`: multithreaded Floyd–Warshall and Dijkstra), a seeded random graph generator
//! (`random`) and the check of any answer against the references (`verify`).
pub mod cpu;
pub mod format;
pub mod random;
pub mod verify;

pub use gpu_kernels::apsp::{INF, MAX_WEIGHT};
