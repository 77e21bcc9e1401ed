//! Checking a Hopper GEMM result against an f64 reference computed from the same rounded
//! inputs: the products of two BF16 or FP16 values are exact in f32, so the only error is the
//! f32 accumulation's, bounded by `(k + 2)·2^-22` times the sum of the terms' magnitudes (twice
//! the classical `k·u` of recursive summation with u = 2^-23, leaving room for the tensor
//! cores' truncating adds).
use super::{BMajor, Sm90Gemm, input_value};

/// The worst element of a check: its row and column, the error and its bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    pub row: usize,
    pub col: usize,
    pub error: f64,
    pub bound: f64,
    /// The largest error / bound over the rows checked (≤ 1 passes).
    pub ratio: f64,
}

/// Compares rows `rows` of `c` (the result, `m x n` with rows `ldc` apart) with
/// alpha·A·B + beta·C0 in f64 from the bit patterns `a`, `b` (laid out as `g` says) and the
/// initial `c0`. Returns the element with the largest error relative to its bound.
pub fn worst(g: &Sm90Gemm, a: &[u16], b: &[u16], c0: &[f32], c: &[f32], rows: &[usize]) -> Worst {
    let av = |r: usize, kk: usize| f64::from(input_value(a[r * g.lda + kk], g.input));
    let bv = |kk: usize, col: usize| {
        let at = match g.b_major {
            BMajor::N => kk * g.ldb + col,
            BMajor::K => col * g.ldb + kk,
        };
        f64::from(input_value(b[at], g.input))
    };
    let unit = (g.k as f64 + 2.0) * 2f64.powi(-22);
    let mut worst = Worst {
        row: 0,
        col: 0,
        error: 0.0,
        bound: 0.0,
        ratio: 0.0,
    };
    let (alpha, beta) = (f64::from(g.alpha), f64::from(g.beta));
    for &r in rows {
        for col in 0..g.n {
            let (mut sum, mut mag) = (0.0f64, 0.0f64);
            for kk in 0..g.k {
                let t = av(r, kk) * bv(kk, col);
                sum += t;
                mag += t.abs();
            }
            let c_old = if g.beta == 0.0 {
                0.0
            } else {
                f64::from(c0[r * g.ldc + col])
            };
            let want = alpha * sum + beta * c_old;
            let bound = unit * (alpha.abs() * mag + (beta * c_old).abs()) + f64::MIN_POSITIVE;
            let got = f64::from(c[r * g.ldc + col]);
            // NaN compares false: make it fail.
            let error = if got.is_nan() {
                f64::INFINITY
            } else {
                (got - want).abs()
            };
            let ratio = error / bound;
            if ratio > worst.ratio || (ratio.is_nan() && !worst.ratio.is_nan()) {
                worst = Worst {
                    row: r,
                    col,
                    error,
                    bound,
                    ratio,
                };
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::super::{Sm90Input, to_input};
    use super::*;

    #[test]
    fn the_exact_product_passes_and_a_wrong_element_fails() {
        let g = Sm90Gemm::dense(3, 4, 5, Sm90Input::Bf16, BMajor::K);
        let a = to_input(&[0.5, -1.25, 2.0, 0.75, 1.0].repeat(3), g.input);
        let b = to_input(&[1.5, 0.25, -0.5, 1.0, 2.0].repeat(4), g.input);
        // B is `n x k` (K-major): every column of B is the same 5 values.
        let dot: f32 = [0.5f32, -1.25, 2.0, 0.75, 1.0]
            .iter()
            .zip([1.5f32, 0.25, -0.5, 1.0, 2.0])
            .map(|(x, y)| x * y)
            .sum();
        let mut c = vec![dot; 12];
        assert!(worst(&g, &a, &b, &[0.0; 12], &c, &[0, 1, 2]).ratio <= 1.0);
        c[7] += 1e-3;
        let w = worst(&g, &a, &b, &[0.0; 12], &c, &[0, 1, 2]);
        assert!(w.ratio > 1.0 && (w.row, w.col) == (1, 3), "{w:?}");
        c[7] = f32::NAN;
        assert!(worst(&g, &a, &b, &[0.0; 12], &c, &[1]).ratio > 1.0);
    }
}
