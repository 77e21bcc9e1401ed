//! What a tensor-core GEMM is: [`TcGemm`] (shape, scaling, leading dimensions, each operand's
//! layout) and [`Operand`] (the caller's device buffer of A or B, typed by its element). A leaf
//! of `tc`: it imports nothing of the crate but the shape limits.
use cust::memory::DeviceSlice;
use rgk_core::{bad_input, matmul::precision::Precision};

use crate::matmul::problem::{MAX_LD, check_shape};

/// How an operand is stored: row-major (op N for A as `m x k`, B as `k x n`) or column-major
/// (their transposes, op T, in BLAS terms of the row-major problem).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    RowMajor,
    ColMajor,
}

/// `C = alpha·A·B + beta·C` on the tensor cores: A `m x k` and B `k x n` in their layouts with
/// leading dimensions `lda`, `ldb` (the distance between rows, or between columns when
/// column-major), C `m x n` f32 row-major with rows `ldc` apart. With `beta == 0` C is not read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcGemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f32,
    pub beta: f32,
    pub a_layout: Layout,
    pub b_layout: Layout,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl TcGemm {
    /// `C = A·B`, both row-major and dense.
    pub fn new(m: usize, n: usize, k: usize) -> TcGemm {
        TcGemm {
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
            a_layout: Layout::RowMajor,
            b_layout: Layout::RowMajor,
            lda: k,
            ldb: n,
            ldc: n,
        }
    }

    pub fn alpha(self, alpha: f32) -> TcGemm {
        TcGemm { alpha, ..self }
    }

    pub fn beta(self, beta: f32) -> TcGemm {
        TcGemm { beta, ..self }
    }

    /// The layouts of A and B, their leading dimensions set to the dense ones.
    pub fn layouts(self, a_layout: Layout, b_layout: Layout) -> TcGemm {
        let t = TcGemm {
            a_layout,
            b_layout,
            ..self
        };
        TcGemm {
            lda: t.a_dims().1,
            ldb: t.b_dims().1,
            ..t
        }
    }

    pub fn leading_dims(self, lda: usize, ldb: usize, ldc: usize) -> TcGemm {
        TcGemm {
            lda,
            ldb,
            ldc,
            ..self
        }
    }

    /// A as stored: (lines, line width), a line being a row (row-major) or a column.
    pub fn a_dims(&self) -> (usize, usize) {
        match self.a_layout {
            Layout::RowMajor => (self.m, self.k),
            Layout::ColMajor => (self.k, self.m),
        }
    }

    /// B as stored: (lines, line width).
    pub fn b_dims(&self) -> (usize, usize) {
        match self.b_layout {
            Layout::RowMajor => (self.k, self.n),
            Layout::ColMajor => (self.n, self.k),
        }
    }

    /// The fewest elements the buffers of A, B and C must hold.
    pub fn min_lens(&self) -> (usize, usize, usize) {
        let span = |(lines, width): (usize, usize), ld: usize| (lines - 1) * ld + width;
        (
            span(self.a_dims(), self.lda),
            span(self.b_dims(), self.ldb),
            span((self.m, self.n), self.ldc),
        )
    }

    /// Checks the shape and the leading dimensions for `precision`'s kernels: each at least its
    /// line width, at most 2^32 - 1, and for A and B a multiple of 16 bytes (the kernels copy
    /// 16-byte pieces). [`rgk_core::BadInput`] names the first problem.
    pub fn check(&self, precision: Precision) -> anyhow::Result<()> {
        check_shape(self.m, self.n, self.k)?;
        let per16 = 16 / precision.input_bytes();
        for (what, ld, width, multiple) in [
            ("lda", self.lda, self.a_dims().1, per16),
            ("ldb", self.ldb, self.b_dims().1, per16),
            ("ldc", self.ldc, self.n, 1),
        ] {
            if ld < width {
                return bad_input(format!(
                    "{what} = {ld} is smaller than the line width {width}"
                ));
            }
            if ld > MAX_LD {
                return bad_input(format!("{what} = {ld} is larger than {MAX_LD}"));
            }
            if !ld.is_multiple_of(multiple) {
                return bad_input(format!(
                    "{what} = {ld} is not a multiple of {multiple}: {precision} operands are \
                     copied in 16-byte pieces"
                ));
            }
        }
        Ok(())
    }
}

/// The caller's device buffer of A or B: f32 for FP32, TF32 and 3xTF32, the 16-bit encodings
/// (`rgk_core::matmul::precision::f32_to_bf16` / `f32_to_f16`) for BF16 and FP16.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    F32(&'a DeviceSlice<f32>),
    Bits16(&'a DeviceSlice<u16>),
}

impl Operand<'_> {
    /// (device address, elements, bytes per element).
    pub fn raw(&self) -> (u64, usize, usize) {
        match self {
            Operand::F32(s) => (s.as_device_ptr().as_raw(), s.len(), 4),
            Operand::Bits16(s) => (s.as_device_ptr().as_raw(), s.len(), 2),
        }
    }
}

/// Checks `op` for `precision` against the buffers: element types, lengths, 16-byte alignment
/// of A and B, and C sharing no memory with them.
pub fn check_buffers(
    op: &TcGemm,
    precision: Precision,
    a: Operand,
    b: Operand,
    c: &DeviceSlice<f32>,
) -> anyhow::Result<()> {
    op.check(precision)?;
    let (need_a, need_b, need_c) = op.min_lens();
    let c_range = {
        let s = c.as_device_ptr().as_raw();
        s..s + 4 * need_c as u64
    };
    if c.len() < need_c {
        return bad_input(format!(
            "C has {} elements but needs at least {need_c} for its matrix",
            c.len()
        ));
    }
    for (what, x, need) in [("A", a, need_a), ("B", b, need_b)] {
        let (ptr, len, bytes) = x.raw();
        if bytes != precision.input_bytes() {
            return bad_input(format!(
                "{what} holds {bytes}-byte elements but {precision} takes {}-byte ones",
                precision.input_bytes()
            ));
        }
        if len < need {
            return bad_input(format!(
                "{what} has {len} elements but needs at least {need} for its matrix"
            ));
        }
        if !ptr.is_multiple_of(16) {
            return bad_input(format!("{what} is not 16-byte aligned"));
        }
        let r = ptr..ptr + (bytes * need) as u64;
        if r.start < c_range.end && c_range.start < r.end {
            return bad_input(format!(
                "C overlaps {what}: the output must not share memory with an input"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_set_dense_leading_dimensions_and_checks_name_the_problem() {
        let op = TcGemm::new(3, 5, 24).layouts(Layout::ColMajor, Layout::ColMajor);
        assert_eq!((op.lda, op.ldb, op.ldc), (3, 24, 5));
        assert_eq!(op.min_lens(), (23 * 3 + 3, 4 * 24 + 24, 2 * 5 + 5));
        // lda = 3 is not a multiple of 8 BF16 elements (16 bytes), nor of 4 f32.
        let e = op.check(Precision::Bf16).unwrap_err();
        assert!(e.is::<rgk_core::BadInput>());
        assert!(
            e.to_string().contains("lda = 3 is not a multiple of 8"),
            "{e}"
        );
        let ok = TcGemm::new(3, 5, 24).leading_dims(24, 8, 5);
        assert!(ok.check(Precision::Bf16).is_ok());
        assert!(ok.check(Precision::Tf32).is_ok());
        let e = ok
            .leading_dims(24, 4, 5)
            .check(Precision::Fp16)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("ldb = 4 is smaller than the line width 5"),
            "{e}"
        );
        assert!(TcGemm::new(0, 1, 1).check(Precision::Tf32).is_err());
    }
}
