//! The ladder's steps before SIMD (naive, loop order, cache blocking), and nalgebra as the
//! library yardstick.

use nalgebra::{DMatrixView, DMatrixViewMut};

use super::check_dims;

/// Textbook triple loop; the inner loop walks B down a column (stride n).
pub fn naive_ijk(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}

/// i-k-j order: the inner loop streams a row of B into a row of C, both contiguous.
pub fn reorder_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    c.fill(0.0);
    if n == 0 {
        return;
    }
    for (c_row, a_row) in c.chunks_exact_mut(n).zip(a.chunks_exact(k.max(1))) {
        for (&aip, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                *cv += aip * bv;
            }
        }
    }
}

/// Cache blocking over i, k, j in `BS`-sized tiles, i-k-j order inside a tile.
pub fn blocked<const BS: usize>(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    const { assert!(BS > 0) };
    check_dims(a, b, c, m, n, k);
    c.fill(0.0);
    for i0 in (0..m).step_by(BS) {
        let i1 = (i0 + BS).min(m);
        for p0 in (0..k).step_by(BS) {
            let p1 = (p0 + BS).min(k);
            for j0 in (0..n).step_by(BS) {
                let j1 = (j0 + BS).min(n);
                for i in i0..i1 {
                    let a_row = &a[i * k + p0..i * k + p1];
                    let c_row = &mut c[i * n + j0..i * n + j1];
                    if c_row.len() == BS {
                        // Full-width tile: a fixed-size local copy of the C row segment lets
                        // LLVM unroll the j loop and keep it in registers across p.
                        let c_row: &mut [f32; BS] = c_row.try_into().expect("BS wide");
                        let mut acc = *c_row;
                        for (p, &aip) in (p0..p1).zip(a_row) {
                            let b_row: &[f32; BS] =
                                b[p * n + j0..p * n + j1].try_into().expect("BS wide");
                            for (x, &bv) in acc.iter_mut().zip(b_row) {
                                *x += aip * bv;
                            }
                        }
                        *c_row = acc;
                    } else {
                        for (p, &aip) in (p0..p1).zip(a_row) {
                            let b_row = &b[p * n + j0..p * n + j1];
                            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                                *cv += aip * bv;
                            }
                        }
                    }
                }
            }
        }
    }
}

pub fn blocked16(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<16>(a, b, c, m, n, k);
}

pub fn blocked32(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<32>(a, b, c, m, n, k);
}

pub fn blocked64(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<64>(a, b, c, m, n, k);
}

/// nalgebra's f32 product, as the library yardstick: matrixmultiply, one thread, with its own
/// run-time choice of AVX-512 / AVX2+FMA kernels.
pub fn nalgebra_f32(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    // Row-major buffers read column-major are transposes: C^T = B^T A^T, written straight into
    // C's buffer (n x m column-major is C row-major). No copies in or out.
    let a_t = DMatrixView::from_slice(a, k, m);
    let b_t = DMatrixView::from_slice(b, n, k);
    let mut c_t = DMatrixViewMut::from_slice(c, n, m);
    b_t.mul_to(&a_t, &mut c_t);
}
