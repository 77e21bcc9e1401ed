//! Host-side data for a [`Gemm`] with transposes, leading dimensions and a strided batch: buffers
//! laid out as the problem says (random values in every matrix cell, NaN in every gap, so a
//! kernel that reads a gap fails its check), each problem's matrices read back as dense
//! `op(A)` / `op(B)` / `C`, and the f64 reference of one problem. CUDA-free; used by
//! `host matmul`, `host bench sgemm-shapes` and the GPU tests.
use rand::Rng;
use rgk_core::matmul::reference::{self, Reference};

use super::problem::{Gemm, Op};

/// One of a GEMM's three matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
    C,
}

/// Where problem `i`'s `which` lives in its buffer: first element, stored rows, stored row
/// width, leading dimension, and whether it is stored transposed.
fn placement(op: &Gemm, which: Operand, i: usize) -> (usize, usize, usize, usize, bool) {
    let (rows, cols, trans) = match which {
        Operand::A => (op.m, op.k, op.op_a == Op::T),
        Operand::B => (op.k, op.n, op.op_b == Op::T),
        Operand::C => (op.m, op.n, false),
    };
    let (ld, stride) = match which {
        Operand::A => (op.lda, op.stride_a),
        Operand::B => (op.ldb, op.stride_b),
        Operand::C => (op.ldc, op.stride_c),
    };
    let (srows, scols) = if trans { (cols, rows) } else { (rows, cols) };
    (i * stride, srows, scols, ld, trans)
}

/// A buffer of [`Gemm::min_lens`] elements for `which`: every cell of every problem's matrix
/// uniform in [-1, 1), every other element NaN. `op` must pass [`Gemm::check`].
pub fn random_buffer(op: &Gemm, which: Operand, rng: &mut impl Rng) -> Vec<f32> {
    let (la, lb, lc) = op.min_lens();
    let len = match which {
        Operand::A => la,
        Operand::B => lb,
        Operand::C => lc,
    };
    let mut buf = vec![f32::NAN; len];
    for i in 0..op.batch {
        let (at, rows, cols, ld, _) = placement(op, which, i);
        for r in 0..rows {
            for v in &mut buf[at + r * ld..at + r * ld + cols] {
                *v = rng.gen_range(-1.0..1.0);
            }
        }
    }
    buf
}

/// Problem `i`'s `which` from `buf` as a dense row-major matrix: `op(A)` (`m x k`), `op(B)`
/// (`k x n`) or `C` (`m x n`).
pub fn dense(op: &Gemm, which: Operand, buf: &[f32], i: usize) -> Vec<f32> {
    let (at, srows, scols, ld, trans) = placement(op, which, i);
    let cell = |r: usize, c: usize| buf[at + r * ld + c];
    if trans {
        (0..scols)
            .flat_map(|c| (0..srows).map(move |r| (r, c)))
            .map(|(r, c)| cell(r, c))
            .collect()
    } else {
        (0..srows)
            .flat_map(|r| (0..scols).map(move |c| (r, c)))
            .map(|(r, c)| cell(r, c))
            .collect()
    }
}

/// Writes dense `m x n` `c` into problem `i`'s C in `buf` (the way back of [`dense`]).
pub fn store_c(op: &Gemm, buf: &mut [f32], i: usize, c: &[f32]) {
    let (at, ..) = placement(op, Operand::C, i);
    for r in 0..op.m {
        buf[at + r * op.ldc..at + r * op.ldc + op.n].copy_from_slice(&c[r * op.n..(r + 1) * op.n]);
    }
}

/// `alpha·op(A)·op(B) + beta·C0` of problem `i` in f64 for `rows` of C (all when `None`), with
/// the error bound scaled alike; `c0` is C's buffer before the call. With `beta == 0`, C0 is not
/// read (BLAS: NaN there does not leak).
pub fn reference_of(
    op: &Gemm,
    [a, b, c0]: [&[f32]; 3],
    i: usize,
    rows: Option<&[usize]>,
) -> Reference {
    let da = dense(op, Operand::A, a, i);
    let db = dense(op, Operand::B, b, i);
    let mut r = reference::reference(&da, &db, op.m, op.n, op.k, rows);
    let (alpha, beta) = (f64::from(op.alpha), f64::from(op.beta));
    let (at, ..) = placement(op, Operand::C, i);
    for (ri, &row) in r.rows.clone().iter().enumerate() {
        for col in 0..op.n {
            let j = ri * op.n + col;
            let from_c = if beta == 0.0 {
                0.0
            } else {
                beta * f64::from(c0[at + row * op.ldc + col])
            };
            r.c[j] = alpha * r.c[j] + from_c;
            r.bound[j] = alpha.abs() * r.bound[j] + from_c.abs();
        }
    }
    r
}

/// Problem `i`'s C from the result buffer `c` as the dense `m x n` matrix [`reference::check`]
/// compares (it indexes by row): the rows `reference` holds copied, the others left 0 (never
/// read).
pub fn rows_of(op: &Gemm, c: &[f32], i: usize, reference: &Reference) -> Vec<f32> {
    let (at, ..) = placement(op, Operand::C, i);
    let mut out = vec![0f32; op.m * op.n];
    for &r in &reference.rows {
        out[r * op.n..(r + 1) * op.n].copy_from_slice(&c[at + r * op.ldc..at + r * op.ldc + op.n]);
    }
    out
}

/// The problems of a batch to check: all of a small batch, else the first, the last and
/// `count - 2` spread evenly between.
pub fn sample_problems(batch: usize, count: usize) -> Vec<usize> {
    if batch <= count.max(2) {
        return (0..batch).collect();
    }
    let mut v: Vec<usize> = (0..count).map(|j| j * (batch - 1) / (count - 1)).collect();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dense_reads_back_each_problem_through_its_operation() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // 2 problems, op(A) = Aᵀ with A stored 4 x 3 in rows of 5, strides wider than needed.
        let op = Gemm::new(3, 2, 4)
            .ops(Op::T, Op::N)
            .leading_dims(5, 2, 3)
            .batch(2)
            .strides(25, 9, 10);
        op.check().unwrap();
        let a = random_buffer(&op, Operand::A, &mut rng);
        assert_eq!(a.len(), op.min_lens().0);
        for i in 0..2 {
            let d = dense(&op, Operand::A, &a, i);
            assert_eq!(d.len(), 3 * 4);
            for (r, row) in d.chunks(4).enumerate() {
                for (c, &v) in row.iter().enumerate() {
                    assert_eq!(v, a[25 * i + c * 5 + r]);
                    assert!(!v.is_nan());
                }
            }
        }
        // Gaps are NaN: column 3 of the first stored row, and between the problems.
        assert!(a[3].is_nan() && a[20].is_nan());
        let mut c = random_buffer(&op, Operand::C, &mut rng);
        let want: Vec<f32> = (0..6).map(|v| v as f32).collect();
        store_c(&op, &mut c, 1, &want);
        assert_eq!(dense(&op, Operand::C, &c, 1), want);
        assert_eq!(sample_problems(5, 8), vec![0, 1, 2, 3, 4]);
        assert_eq!(sample_problems(4096, 3), vec![0, 2047, 4095]);
    }

    #[test]
    fn the_reference_applies_alpha_beta_and_the_operations() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for (op_a, op_b) in [
            (Op::N, Op::N),
            (Op::T, Op::N),
            (Op::N, Op::T),
            (Op::T, Op::T),
        ] {
            let op = Gemm::new(3, 2, 4)
                .ops(op_a, op_b)
                .alpha(2.0)
                .beta(-0.5)
                .batch(3);
            let bufs =
                [Operand::A, Operand::B, Operand::C].map(|w| random_buffer(&op, w, &mut rng));
            let r = reference_of(&op, [&bufs[0], &bufs[1], &bufs[2]], 2, None);
            let (a, b) = (
                dense(&op, Operand::A, &bufs[0], 2),
                dense(&op, Operand::B, &bufs[1], 2),
            );
            let c0 = dense(&op, Operand::C, &bufs[2], 2);
            for i in 0..3 {
                for j in 0..2 {
                    let dot: f64 = (0..4)
                        .map(|l| f64::from(a[i * 4 + l]) * f64::from(b[l * 2 + j]))
                        .sum();
                    let want = 2.0 * dot - 0.5 * f64::from(c0[i * 2 + j]);
                    assert!((r.c[i * 2 + j] - want).abs() < 1e-12, "{op_a:?} {op_b:?}");
                }
            }
        }
    }
}
