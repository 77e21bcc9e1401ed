//! SGEMM on the CPU: the optimisation ladder (`cpu`), padding helpers for tiled GPU kernels
//! (`pad`), and the f64 reference that every result is checked against (`reference`). All
//! matrices are row-major `f32`. `tune`: the SGEMM tuning cache (format, shape classes, matching). `precision`: the
//! tensor-core precisions, BF16/FP16 rounding and each precision's verification bound.
pub mod cpu;
pub mod pad;
pub mod precision;
pub mod reference;
pub mod tune;
