//! The library's SGEMM, checked against the CPU: `host::sgemm` (C = A·B on host slices), then
//! `host::gemm_device` (C = alpha·A·B + beta·C on device buffers whose rows are wider than the
//! matrices).
//!
//! `cargo run -p host --release --example sgemm [M N K]` (default 1000 777 129).
use std::process::ExitCode;

use cust::memory::{CopyDestination, DeviceBuffer};
use rgk_core::matmul::reference::{check, reference};

fn main() -> ExitCode {
    let dims: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("M N K must be positive integers"))
        .collect();
    let (m, n, k) = match dims[..] {
        [m, n, k] => (m, n, k),
        [] => (1000, 777, 129),
        _ => {
            eprintln!("usage: sgemm [M N K]");
            return ExitCode::from(2);
        }
    };
    // Any row-major data will do; these values make mistakes visible.
    let a: Vec<f32> = (0..m * k).map(|i| ((i % 7) as f32 - 3.0) / 4.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i % 5) as f32 - 2.0) / 8.0).collect();

    let gpu = match host::Gpu::new(None) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(3);
        }
    };
    let c = match host::sgemm(&gpu, &a, &b, m, n, k) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Every element within 1e-5·Σ|a_ik||b_kj| + 1e-6 of an f64 product.
    let result = check(&c, &reference(&a, &b, m, n, k, None));
    println!(
        "C = A·B with M={m} N={n} K={k}: C[0][0] = {}; {} elements checked, {} failures, max error/bound {:.3}",
        c[0], result.checked, result.failures, result.max_scaled_error
    );

    // The same product as C = 2·A·B − C on device buffers whose rows of C are 3 floats wider
    // than N: the kernel reads and writes the caller's buffers in place, without padding.
    let ldc = n + 3;
    let op = host::Gemm::new(m, n, k)
        .alpha(2.0)
        .beta(-1.0)
        .leading_dims(k, n, ldc);
    let strided = (|| -> Result<Vec<f32>, host::Error> {
        let d_a = DeviceBuffer::from_slice(&a)?;
        let d_b = DeviceBuffer::from_slice(&b)?;
        let mut c_host = vec![0f32; op.min_lens().2];
        for r in 0..m {
            c_host[r * ldc..r * ldc + n].copy_from_slice(&c[r * n..(r + 1) * n]);
        }
        let mut d_c = DeviceBuffer::from_slice(&c_host)?;
        host::gemm_device(&gpu, &op, &d_a, &d_b, &mut d_c)?;
        d_c.copy_to(&mut c_host[..])?;
        Ok(c_host)
    })();
    let strided = match strided {
        Ok(c2) => c2,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // 2·C − C = C: the rows must reproduce the first result within the same bound.
    let dense: Vec<f32> = (0..m)
        .flat_map(|r| strided[r * ldc..r * ldc + n].iter().copied())
        .collect();
    let again = check(&dense, &reference(&a, &b, m, n, k, None));
    println!(
        "C = 2·A·B − C with ldc = {ldc}: {} failures, max error/bound {:.3}",
        again.failures, again.max_scaled_error
    );
    if result.passed() && again.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
