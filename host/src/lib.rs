//! Host side of the project: PTX loading and GPU runners (`gpu`, `matmul::gpu`, `apsp::gpu`),
//! CPU references and file formats, the occupancy calculator.
pub mod apsp;
pub mod bench;
pub mod gpu;
pub mod kernels;
pub mod matmul;
pub mod occupancy;
pub mod report;
