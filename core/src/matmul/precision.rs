//! The precisions of the GEMM (`host matmul --precision`): what the inputs are rounded to, how
//! host data is rounded (BF16 and FP16, round to nearest even), and the verification bound of
//! each precision, derived in docs/tensor-cores.md from the input rounding and the accumulation
//! length K (every precision accumulates in f32).
//!
//! The check is the f64 reference of `reference` on the inputs the kernel multiplies: for BF16
//! and FP16 the host rounds A and B before they go to the GPU and the reference reads the rounded
//! values (so only accumulation error remains); TF32 and 3xTF32 round inside the kernel, so the
//! reference reads the f32 inputs and the bound carries the rounding of each product.
use std::fmt;

use super::reference::{ABS_TOL, Reference, Tolerance};

/// What a GEMM multiplies: f32 on the CUDA cores (the flagship SGEMM), or on the tensor cores
/// f32 inputs rounded to TF32, f32 inputs split in two TF32 parts (3xTF32), or BF16 / FP16
/// inputs. Every precision accumulates in f32 and writes f32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    Fp32,
    Tf32,
    Tf32x3,
    Bf16,
    Fp16,
}

/// Unit roundoff of f32 (round to nearest): 2^-24.
pub const U_F32: f64 = 1.0 / (1u64 << 24) as f64;
/// Unit roundoff of TF32 (10 stored significand bits): 2^-11.
pub const U_TF32: f64 = 1.0 / (1u64 << 11) as f64;
/// Unit roundoff of BF16 (7 stored significand bits): 2^-8.
pub const U_BF16: f64 = 1.0 / (1u64 << 8) as f64;
/// Unit roundoff of FP16 (10 stored significand bits): 2^-11.
pub const U_FP16: f64 = 1.0 / (1u64 << 11) as f64;

/// λ of the probabilistic accumulation bound (Higham and Mary 2019): the bound fails with
/// probability at most `2K·exp(-λ²/2)` per cell (≈ 2e-10 at K = 8192).
pub const LAMBDA: f64 = 8.0;

impl Precision {
    pub const ALL: [Precision; 5] = [
        Precision::Fp32,
        Precision::Tf32,
        Precision::Tf32x3,
        Precision::Bf16,
        Precision::Fp16,
    ];

    /// The one name: `--precision NAME`, JSON records, docs.
    pub const fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Tf32x3 => "3xtf32",
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
        }
    }

    pub fn from_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Bytes of one input element on the GPU (A and B): 2 for BF16 and FP16, else 4 (f32).
    pub const fn input_bytes(self) -> usize {
        match self {
            Precision::Bf16 | Precision::Fp16 => 2,
            _ => 4,
        }
    }

    /// Whether the host rounds A and B before they go to the GPU (16-bit inputs); the reference
    /// then reads the rounded values.
    pub const fn rounded_on_host(self) -> bool {
        matches!(self, Precision::Bf16 | Precision::Fp16)
    }

    /// Whether the product runs on the tensor cores (everything but FP32).
    pub const fn tensor_cores(self) -> bool {
        !matches!(self, Precision::Fp32)
    }

    /// Relative error of one product `a·b` from rounding its inputs, as multiplied, against the
    /// inputs the reference reads: 0 where the reference reads what is multiplied (FP32; BF16 and
    /// FP16 rounded on the host), `4u + 4u²` for TF32 (each factor rounded, error ≤ u, or — an
    /// operand the Hopper kernel reads in place — truncated by the tensor core, error < 2u),
    /// `3u²` for 3xTF32 (the dropped `lo·lo` product and the rounding of each `lo`).
    pub fn input_error(self) -> f64 {
        match self {
            Precision::Fp32 | Precision::Bf16 | Precision::Fp16 => 0.0,
            Precision::Tf32 => 4.0 * U_TF32 + 4.0 * U_TF32 * U_TF32,
            Precision::Tf32x3 => 3.0 * U_TF32 * U_TF32,
        }
    }

    /// Factor on f32's unit roundoff per addition of the accumulation: 1 for FMA on the CUDA
    /// cores (round to nearest), 2 on the tensor cores, whose additions inside one instruction
    /// align significands with truncation (Fasi, Higham, Mikaitis, Pranesh 2021).
    pub const fn accumulation_factor(self) -> f64 {
        if self.tensor_cores() { 2.0 } else { 1.0 }
    }

    /// The relative part of the bound for depth `k`: a cell passes when
    /// `|c - ref| <= rel·Σ|a||b| + ABS_TOL` (docs/tensor-cores.md, "Verification bound").
    pub fn relative_bound(self, k: usize) -> f64 {
        self.input_error() + LAMBDA * self.accumulation_factor() * (k as f64).sqrt() * U_F32
    }

    /// The tolerance of this precision at depth `k`.
    pub fn tolerance(self, k: usize) -> Tolerance {
        Tolerance {
            rel: self.relative_bound(k),
            abs: ABS_TOL,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `x` rounded to the nearest BF16 (ties to even), as its bits; NaN stays NaN (quiet).
pub fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) as u16) | 0x0040;
    }
    // Adding 0x7fff plus the kept part's lowest bit rounds to nearest, ties to even; a carry
    // out of the significand bumps the exponent (up to infinity), as it should.
    let bias = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(bias) >> 16) as u16
}

/// The f32 of BF16 bits (exact).
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// `x` rounded to the nearest FP16 (ties to even), as its bits: overflow to infinity,
/// gradual underflow to subnormals; NaN stays NaN (quiet).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 {
            0x200 | (man >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let round = |q: u32, rem: u32, half: u32| {
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if e <= 0 {
        // Subnormal (or zero): units of 2^-24. Below 2^-25 (e < -10) everything rounds to 0.
        if e < -11 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let q = round(m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
        // q == 0x400 is the smallest normal, encoded as such.
        return sign | q as u16;
    }
    // A carry out of the significand moves to the next binade (or to infinity): still right.
    let q = round(((e as u32) << 10) | (man >> 13), man & 0x1fff, 0x1000);
    sign | q as u16
}

/// The f32 of FP16 bits (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match exp {
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
        0 => {
            let v = man as f32 * (1.0 / (1u32 << 24) as f32);
            if sign != 0 { -v } else { v }
        }
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// `x` rounded to the precision's input type and back to f32: the value the GPU multiplies for
/// BF16 and FP16 (exact in f32); `x` itself for the others.
pub fn round_input(p: Precision, x: f32) -> f32 {
    match p {
        Precision::Bf16 => bf16_to_f32(f32_to_bf16(x)),
        Precision::Fp16 => f16_to_f32(f32_to_f16(x)),
        _ => x,
    }
}

/// The 16-bit encodings of `xs` for BF16 or FP16; `None` for the f32 precisions.
pub fn encode_16(p: Precision, xs: &[f32]) -> Option<Vec<u16>> {
    let f: fn(f32) -> u16 = match p {
        Precision::Bf16 => f32_to_bf16,
        Precision::Fp16 => f32_to_f16,
        _ => return None,
    };
    Some(xs.iter().map(|&x| f(x)).collect())
}

/// How far a result is from the reference, cell by cell, as `|c - ref| / Σ|a||b|` (the scale of
/// every bound here): quantiles of the checked cells.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ErrorStats {
    pub cells: usize,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// The distribution of `|c - ref| / Σ|a||b|` over the rows of the full `m x n` result `c` that
/// `reference` holds (cells whose scale is 0 count their absolute error). Non-finite errors
/// are `inf`.
pub fn error_stats(c: &[f32], reference: &Reference) -> ErrorStats {
    let n = reference.n;
    let mut e: Vec<f64> = Vec::with_capacity(reference.c.len());
    for (ri, &row) in reference.rows.iter().enumerate() {
        for col in 0..n {
            let (got, want, scale) = (
                f64::from(c[row * n + col]),
                reference.c[ri * n + col],
                reference.bound[ri * n + col],
            );
            let d = (got - want).abs() / if scale > 0.0 { scale } else { 1.0 };
            e.push(if d.is_finite() { d } else { f64::INFINITY });
        }
    }
    e.sort_by(f64::total_cmp);
    let q = |f: f64| {
        if e.is_empty() {
            0.0
        } else {
            e[((e.len() - 1) as f64 * f).round() as usize]
        }
    };
    ErrorStats {
        cells: e.len(),
        mean: if e.is_empty() {
            0.0
        } else {
            e.iter().sum::<f64>() / e.len() as f64
        },
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        max: e.last().copied().unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests;
