//! f64 reference for SGEMM results, with a per-cell error bound.
//!
//! A cell is accepted when `|c - ref| <= 1e-5 * sum_k |a_ik| |b_kj| + 1e-6`: f32 rounding of any
//! summation order stays well inside that, while a single missing or doubled k-term does not.

use nalgebra::DMatrix;
use rand::Rng;
use rand::SeedableRng;
use rand::seq::index;
use rand_chacha::ChaCha8Rng;

/// Relative part of the tolerance, scaled by `sum_k |a_ik| |b_kj|`.
pub const REL_TOL: f64 = 1e-5;
/// Absolute part of the tolerance, so that cells with a near-zero bound do not divide by zero.
pub const ABS_TOL: f64 = 1e-6;

/// A cell passes when `|c - ref| <= rel·Σ|a||b| + abs`: [`Tolerance::SGEMM`] for the FP32 kernels,
/// or a precision's (`super::precision::Precision::tolerance`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rel: f64,
    pub abs: f64,
}

impl Tolerance {
    /// [`REL_TOL`] and [`ABS_TOL`].
    pub const SGEMM: Tolerance = Tolerance {
        rel: REL_TOL,
        abs: ABS_TOL,
    };
}

/// Reference values for some rows of C = A·B.
#[derive(Clone, Debug)]
pub struct Reference {
    /// Which rows of C this holds, in the order of `c` and `bound`.
    pub rows: Vec<usize>,
    pub n: usize,
    /// `rows.len() x n`, row-major: exact-ish C = A·B in f64.
    pub c: Vec<f64>,
    /// `rows.len() x n`, row-major: `sum_k |a_ik| |b_kj|` for the same cells.
    pub bound: Vec<f64>,
}

/// C = A·B and |A|·|B| in f64 for the chosen rows of C (`None`: all `m` rows).
pub fn reference(
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    k: usize,
    rows: Option<&[usize]>,
) -> Reference {
    assert_eq!(a.len(), m * k, "reference: A is not {m} x {k}");
    assert_eq!(b.len(), k * n, "reference: B is not {k} x {n}");
    let rows: Vec<usize> = match rows {
        Some(rows) => {
            assert!(
                rows.iter().all(|&i| i < m),
                "reference: a row index is out of 0..{m}"
            );
            rows.to_vec()
        }
        None => (0..m).collect(),
    };
    let r = rows.len();
    let a_sub: Vec<f64> = rows
        .iter()
        .flat_map(|&i| a[i * k..(i + 1) * k].iter().map(|&x| f64::from(x)))
        .collect();
    let b64: Vec<f64> = b.iter().map(|&x| f64::from(x)).collect();

    // nalgebra is column-major, so a row-major buffer read as column-major is the transpose:
    // C_sub^T (n x r) = B^T (n x k) · A_sub^T (k x r), and C_sub^T column-major is C_sub row-major.
    // This avoids transposing copies of 4096^2 f64 matrices on the way in and out.
    let product = |a_t: Vec<f64>, b_t: Vec<f64>| -> Vec<f64> {
        let a_t = DMatrix::from_vec(k, r, a_t);
        let b_t = DMatrix::from_vec(n, k, b_t);
        let c_t = b_t * a_t;
        c_t.as_slice().to_vec()
    };
    let a_abs: Vec<f64> = a_sub.iter().map(|x| x.abs()).collect();
    let b_abs: Vec<f64> = b64.iter().map(|x| x.abs()).collect();
    let c = product(a_sub, b64);
    let bound = product(a_abs, b_abs);
    Reference { rows, n, c, bound }
}

/// `count` distinct sorted rows of `0..m`, always with 0 and `m - 1` when `m > 1` (so the result
/// has at least two rows then, and at most `m`).
pub fn sample_rows(m: usize, count: usize, seed: u64) -> Vec<usize> {
    match (m, count) {
        (0, _) | (1, 0) => return Vec::new(),
        (1, _) => return vec![0],
        _ => {}
    }
    let count = count.clamp(2, m);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The interior rows 1..m-1, then the two edges.
    let mut rows: Vec<usize> = index::sample(&mut rng, m - 2, count - 2)
        .into_iter()
        .map(|i| i + 1)
        .collect();
    rows.push(0);
    rows.push(m - 1);
    rows.sort_unstable();
    rows
}

/// Outcome of [`check`].
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub checked: usize,
    pub failures: usize,
    /// Largest `|c - ref| / (tol.rel * bound + tol.abs)`; `+inf` for a NaN/Inf mismatch.
    pub max_scaled_error: f64,
    /// (row, col, value, reference) of the cell with the largest scaled error.
    pub worst: Option<(usize, usize, f32, f64)>,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.failures == 0
    }
}

/// Scaled error of one cell under [`Tolerance::SGEMM`]; `> 1` (or `+inf`) means it fails.
pub fn scaled_error(value: f32, reference: f64, bound: f64) -> f64 {
    scaled_error_with(value, reference, bound, Tolerance::SGEMM)
}

/// Scaled error of one cell, `|c - ref| / (tol.rel·bound + tol.abs)`; `> 1` (or `+inf`) means it
/// fails.
pub fn scaled_error_with(value: f32, reference: f64, bound: f64, tol: Tolerance) -> f64 {
    if reference.is_nan() {
        return if value.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if reference.is_infinite() {
        return if f64::from(value) == reference {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if !value.is_finite() {
        return f64::INFINITY;
    }
    let e = (f64::from(value) - reference).abs() / (tol.rel * bound + tol.abs);
    // A NaN here could only come from a NaN bound next to a finite reference: never accept it.
    if e.is_nan() { f64::INFINITY } else { e }
}

/// Checks the rows of a full `m x n` result `c` that `reference` holds, under
/// [`Tolerance::SGEMM`].
pub fn check(c: &[f32], reference: &Reference) -> Check {
    check_with(c, reference, Tolerance::SGEMM)
}

/// [`check`] under the tolerance `tol`.
pub fn check_with(c: &[f32], reference: &Reference, tol: Tolerance) -> Check {
    let n = reference.n;
    let mut out = Check {
        checked: 0,
        failures: 0,
        max_scaled_error: 0.0,
        worst: None,
    };
    for (ri, &row) in reference.rows.iter().enumerate() {
        assert!(
            (row + 1) * n <= c.len(),
            "check: row {row} is outside a result of {} values with n = {n}",
            c.len()
        );
        let got = &c[row * n..(row + 1) * n];
        let want = &reference.c[ri * n..(ri + 1) * n];
        let bound = &reference.bound[ri * n..(ri + 1) * n];
        for (col, ((&g, &w), &b)) in got.iter().zip(want).zip(bound).enumerate() {
            let e = scaled_error_with(g, w, b, tol);
            out.checked += 1;
            if e > 1.0 {
                out.failures += 1;
            }
            if out.worst.is_none() || e > out.max_scaled_error {
                out.max_scaled_error = e;
                out.worst = Some((row, col, g, w));
            }
        }
    }
    out
}

/// `len` values in rows of pitch `ld`: the first `width` of each row uniform in [-1, 1) (drawn in
/// order), the rest NaN, so that a kernel that reads or writes past a row's width shows it.
pub fn random_padded(len: usize, width: usize, ld: usize, rng: &mut impl Rng) -> Vec<f32> {
    (0..len)
        .map(|i| {
            if i % ld < width {
                rng.gen_range(-1.0f32..1.0)
            } else {
                f32::NAN
            }
        })
        .collect()
}

/// `rows x cols` values uniform in [-1, 1).
pub fn random_matrix(rows: usize, cols: usize, rng: &mut impl Rng) -> Vec<f32> {
    (0..rows * cols).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_padded_fills_the_width_and_leaves_nan_gaps() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // 3 rows of pitch 5 and width 3, the last row cut short.
        let v = random_padded(13, 3, 5, &mut rng);
        assert_eq!(v.len(), 13);
        for (i, x) in v.iter().enumerate() {
            if i % 5 < 3 {
                assert!((-1.0..1.0).contains(x), "cell {i}: {x}");
            } else {
                assert!(x.is_nan(), "gap {i}: {x}");
            }
        }
        // The draws are the width cells' in order: the same as a dense matrix of them.
        let mut again = ChaCha8Rng::seed_from_u64(7);
        let dense = random_matrix(3, 3, &mut again);
        let cells: Vec<f32> = v.iter().copied().filter(|x| !x.is_nan()).collect();
        assert_eq!(cells, dense);
    }

    #[test]
    fn scaled_error_nan_inf_rules() {
        let inf = f64::INFINITY;
        assert_eq!(scaled_error(f32::NAN, f64::NAN, f64::NAN), 0.0);
        assert_eq!(scaled_error(1.0, f64::NAN, 1.0), inf);
        assert_eq!(scaled_error(f32::INFINITY, inf, inf), 0.0);
        assert_eq!(scaled_error(f32::NEG_INFINITY, -inf, inf), 0.0);
        assert_eq!(scaled_error(f32::INFINITY, -inf, inf), inf);
        assert_eq!(scaled_error(f32::MAX, inf, inf), inf);
        assert_eq!(scaled_error(f32::NAN, inf, inf), inf);
        assert_eq!(scaled_error(f32::NAN, 1.0, 1.0), inf);
        assert_eq!(scaled_error(f32::INFINITY, 1.0, 1.0), inf);
        assert_eq!(scaled_error(1.0, 1.0, f64::NAN), inf);
    }

    #[test]
    fn scaled_error_threshold_is_at_tolerance() {
        let bound = 100.0;
        let tol = REL_TOL * bound + ABS_TOL;
        assert!(scaled_error(1.0, 1.0 + 0.5 * tol, bound) <= 1.0);
        assert!(scaled_error(1.0, 1.0 + 2.0 * tol, bound) > 1.0);
        assert_eq!(scaled_error(0.0, 0.0, 0.0), 0.0);
    }

    #[test]
    fn check_reports_worst_cell() {
        let reference = Reference {
            rows: vec![1],
            n: 2,
            c: vec![1.0, 2.0],
            bound: vec![1.0, 1.0],
        };
        let c = [9.0, 9.0, 1.0, 2.5]; // 2 x 2, row 0 is not checked
        let r = check(&c, &reference);
        assert_eq!(r.checked, 2);
        assert_eq!(r.failures, 1);
        assert!(!r.passed());
        assert_eq!(r.worst, Some((1, 1, 2.5, 2.0)));
    }
}
