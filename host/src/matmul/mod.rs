//! SGEMM on the host: the CPU optimisation ladder, padding helpers for tiled GPU kernels, and the
//! f64 reference that every result is checked against. All matrices are row-major `f32`.
pub mod cpu;
pub mod cublas;
pub mod gpu;
pub mod pad;
pub mod reference;
