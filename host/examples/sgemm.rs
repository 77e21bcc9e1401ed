//! C = A·B on the GPU with the library API, checked against the CPU.
//!
//! `cargo run -p host --release --example sgemm [M N K]` (default 1000 777 129).
use std::process::ExitCode;

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
        "C = A·B with M={m} N={n} K={k}: C[0][0] = {}; {} of {} elements checked, {} failures, max error/bound {:.3}",
        c[0], result.checked, result.checked, result.failures, result.max_scaled_error
    );
    if result.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
