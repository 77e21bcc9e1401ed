//! All-pairs shortest paths on the host: the course file format (`format`), CPU references
//! (`cpu`: multithreaded Floyd–Warshall and Dijkstra) and a seeded random graph generator
//! (`random`).
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod pipeline;
pub mod random;
