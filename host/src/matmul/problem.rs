//! What an SGEMM is and which ones the kernels take: the problem description ([`Gemm`]), the
//! limits on its dimensions, and the checks of a problem against its buffers. A leaf: it imports
//! nothing else of the crate, so every layer above can describe a problem.
use cust::memory::DeviceSlice;
use rgk_core::bad_input;

/// Largest accepted dimension (the CLI promises 1 ≤ each ≤ 16384).
pub const MAX_DIM: usize = 16384;

/// Largest accepted leading dimension: the kernels take them as 32-bit values.
pub const MAX_LD: usize = u32::MAX as usize;

/// Checks a problem shape: every dimension in 1..=MAX_DIM ([`rgk_core::BadInput`] if not).
pub fn check_shape(m: usize, n: usize, k: usize) -> anyhow::Result<()> {
    for (what, v) in [("M", m), ("N", n), ("K", k)] {
        if v == 0 || v > MAX_DIM {
            return bad_input(format!(
                "{what} = {v} is out of range: each dimension must be between 1 and {MAX_DIM}"
            ));
        }
    }
    Ok(())
}

/// One SGEMM: `C = alpha·A·B + beta·C` with `A` `m x k`, `B` `k x n` and `C` `m x n`, all
/// row-major, whose rows are `lda`, `ldb` and `ldc` floats apart. With `beta == 0`, C is not
/// read (as in BLAS: NaN or garbage in C does not leak into the result).
///
/// ```
/// let op = host::Gemm::new(3, 2, 4).alpha(2.0).beta(0.5).leading_dims(8, 2, 4);
/// assert_eq!(op.min_lens(), (2 * 8 + 4, 3 * 2 + 2, 2 * 4 + 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f32,
    pub beta: f32,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl Gemm {
    /// `C = A·B` for dense matrices: alpha 1, beta 0, leading dimensions equal to the widths.
    pub fn new(m: usize, n: usize, k: usize) -> Gemm {
        Gemm {
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
            lda: k,
            ldb: n,
            ldc: n,
        }
    }

    pub fn alpha(self, alpha: f32) -> Gemm {
        Gemm { alpha, ..self }
    }

    pub fn beta(self, beta: f32) -> Gemm {
        Gemm { beta, ..self }
    }

    /// Rows of A, B and C `lda`, `ldb` and `ldc` floats apart (each at least its matrix's width).
    pub fn leading_dims(self, lda: usize, ldb: usize, ldc: usize) -> Gemm {
        Gemm {
            lda,
            ldb,
            ldc,
            ..self
        }
    }

    /// The fewest elements the buffers of A, B and C must hold: the last row ends at
    /// `(rows - 1)·ld + width`.
    pub fn min_lens(&self) -> (usize, usize, usize) {
        let span = |rows: usize, cols: usize, ld: usize| (rows - 1) * ld + cols;
        (
            span(self.m, self.k, self.lda),
            span(self.k, self.n, self.ldb),
            span(self.m, self.n, self.ldc),
        )
    }

    /// Checks the dimensions (1..=16384 each) and the leading dimensions ([`rgk_core::BadInput`]
    /// naming the first problem).
    pub fn check(&self) -> anyhow::Result<()> {
        check_shape(self.m, self.n, self.k)?;
        for (what, ld, width, wname) in [
            ("lda", self.lda, self.k, "K"),
            ("ldb", self.ldb, self.n, "N"),
            ("ldc", self.ldc, self.n, "N"),
        ] {
            if ld < width {
                return bad_input(format!(
                    "{what} = {ld} is smaller than the row width {wname} = {width}"
                ));
            }
            if ld > MAX_LD {
                return bad_input(format!(
                    "{what} = {ld} is too large: leading dimensions must be at most {MAX_LD}"
                ));
            }
        }
        Ok(())
    }

    /// Checks `op` ([`Gemm::check`]) against the device buffers of A, B and C: each holds its
    /// matrix ([`Gemm::min_lens`]), and C shares no memory with A or B. After this, a kernel
    /// that stays inside the shapes `op` names stays inside the buffers.
    pub fn check_buffers(&self, [a, b, c]: [&DeviceSlice<f32>; 3]) -> anyhow::Result<()> {
        self.check()?;
        let (need_a, need_b, need_c) = self.min_lens();
        check_len("A", a.len(), need_a, false)?;
        check_len("B", b.len(), need_b, false)?;
        check_len("C", c.len(), need_c, false)?;
        let range = |s: &DeviceSlice<f32>, len: usize| {
            let start = s.as_device_ptr().as_raw();
            start..start + 4 * len as u64
        };
        let c_range = range(c, need_c);
        for (what, r) in [("A", range(a, need_a)), ("B", range(b, need_b))] {
            if r.start < c_range.end && c_range.start < r.end {
                return bad_input(format!(
                    "C overlaps {what}: the output must not share memory with an input"
                ));
            }
        }
        Ok(())
    }

    /// Whether B, at `b`, can be copied in 16-byte pieces (`FlagshipConfig::vec_b`): rows a
    /// multiple of 4 floats apart and the buffer 16-byte aligned.
    pub fn b_vector_ok(&self, b: &DeviceSlice<f32>) -> bool {
        self.ldb.is_multiple_of(4) && b.as_device_ptr().as_raw().is_multiple_of(16)
    }
}

/// `what` must hold `need` elements: exactly (host slices) or at least (device buffers).
pub fn check_len(what: &str, len: usize, need: usize, exact: bool) -> anyhow::Result<()> {
    if len < need || (exact && len != need) {
        return bad_input(format!(
            "{what} has {len} elements but needs {}{need} for its matrix",
            if exact { "" } else { "at least " }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_and_named() {
        assert!(check_len("A", 12, 12, true).is_ok());
        let e = check_len("A", 11, 12, true).unwrap_err();
        assert!(e.is::<rgk_core::BadInput>());
        assert!(e.to_string().contains("A has 11 elements"), "{e}");
        assert!(check_len("C", 13, 12, true).is_err());
        assert!(check_len("C", 13, 12, false).is_ok());
    }

    #[test]
    fn gemm_checks_name_the_problem() {
        let ok = Gemm::new(3, 4, 5);
        assert!(ok.check().is_ok());
        assert_eq!(ok.min_lens(), (15, 20, 12));
        let cases = [
            (Gemm::new(0, 4, 5), "M = 0"),
            (Gemm::new(3, 4, 16385), "K = 16385"),
            (
                ok.leading_dims(4, 4, 4),
                "lda = 4 is smaller than the row width K = 5",
            ),
            (ok.leading_dims(5, 3, 4), "ldb = 3"),
            (ok.leading_dims(5, 4, 2), "ldc = 2"),
            (ok.leading_dims(5, 4, MAX_LD + 1), "too large"),
        ];
        for (op, want) in cases {
            let e = op.check().unwrap_err();
            assert!(e.is::<rgk_core::BadInput>(), "{op:?}");
            assert!(e.to_string().contains(want), "{op:?}: {e}");
        }
        assert_eq!(
            ok.leading_dims(9, 6, 7).min_lens(),
            (2 * 9 + 5, 4 * 6 + 4, 2 * 7 + 4)
        );
    }

    #[test]
    fn shapes_are_checked() {
        assert!(check_shape(1, 1, 1).is_ok());
        assert!(check_shape(16384, 1, 16384).is_ok());
        let e = check_shape(0, 5, 5).unwrap_err().to_string();
        assert!(e.contains("M = 0"), "{e}");
        assert!(
            check_shape(5, 16385, 5)
                .unwrap_err()
                .to_string()
                .contains("N = 16385")
        );
    }
}
