//! The GPU side of rust-gpu-kernels: driver start-up and PTX loading (`gpu`), the SGEMM and
//! Floyd–Warshall runners (`matmul`, `apsp`), cuBLAS as the reference, and the occupancy of
//! every kernel as the driver reports it (`kernels`). Everything CUDA-free (formats, CPU
//! references, the occupancy calculator, records, report) is in `rgk_core`.
pub mod apsp;
pub mod gpu;
pub mod kernels;
pub mod matmul;
