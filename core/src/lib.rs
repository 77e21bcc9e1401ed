//! The CUDA-free core of rust-gpu-kernels: everything that runs without a GPU, a driver or the
//! CUDA toolkit. The GPU runners (`host`) and the CLI build on it.
//!
//! - [`apsp`]: the course file format, a seeded graph generator, CPU references (multithreaded
//!   Floyd–Warshall, Dijkstra) and the check of a GPU answer against them.
//! - [`matmul`]: the CPU SGEMM ladder, padding to tile multiples, and the f64 reference every
//!   SGEMM result is checked against.
//! - [`occupancy`]: the theoretical-occupancy calculator.
//! - [`bench`] and [`report`]: benchmark records and the tables and charts made from them.
pub mod apsp;
pub mod bench;
pub mod matmul;
pub mod occupancy;
pub mod report;
