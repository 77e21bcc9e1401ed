//! What an SGEMM is and which ones the kernels take: the problem description ([`Gemm`]), the
//! limits on its dimensions, and the checks of a problem against its buffers. A leaf: it imports
//! nothing else of the crate, so every layer above can describe a problem.
use cust::memory::DeviceSlice;
pub use gpu_kernels::matmul::Op;
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

/// Most problems in one batch: they are the launch grid's y dimension.
pub const MAX_BATCH: usize = 65535;

/// One SGEMM, or a strided batch of them: `C = alpha·op(A)·op(B) + beta·C` with `op(A)` `m x k`,
/// `op(B)` `k x n` and `C` `m x n`, all row-major, whose stored rows are `lda`, `ldb` and `ldc`
/// floats apart. `op` ∈ {N, T} ([`Op`]): with `T`, A is stored as a `k x m` matrix (and B as
/// `n x k`), so `lda` is at least `m` (`ldb` at least `k`). With `beta == 0`, C is not read (as
/// in BLAS: NaN or garbage in C does not leak into the result).
///
/// A batch of `batch` problems: problem `i` uses the matrices at `i·stride_a`, `i·stride_b`
/// and `i·stride_c` floats into the buffers. Every stride is at least its matrix's span (the
/// elements from its first to its last), except that an input's may be 0: one A (or B) for
/// every problem.
///
/// ```
/// use host::Op;
/// let op = host::Gemm::new(3, 2, 4).alpha(2.0).beta(0.5).leading_dims(8, 2, 4);
/// assert_eq!(op.min_lens(), (2 * 8 + 4, 3 * 2 + 2, 2 * 4 + 2));
/// // op(A) = Aᵀ with A stored 4 x 3; 10 problems packed one after the other.
/// let op = host::Gemm::new(3, 2, 4).ops(Op::T, Op::N).batch(10);
/// assert_eq!((op.lda, op.stride_a), (3, 12));
/// assert_eq!(op.min_lens(), (120, 80, 60));
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
    pub op_a: Op,
    pub op_b: Op,
    pub batch: usize,
    pub stride_a: usize,
    pub stride_b: usize,
    pub stride_c: usize,
}

impl Gemm {
    /// `C = A·B` for dense matrices: alpha 1, beta 0, leading dimensions equal to the widths,
    /// no transposes, one problem.
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
            op_a: Op::N,
            op_b: Op::N,
            batch: 1,
            stride_a: 0,
            stride_b: 0,
            stride_c: 0,
        }
        .packed()
    }

    pub fn alpha(self, alpha: f32) -> Gemm {
        Gemm { alpha, ..self }
    }

    pub fn beta(self, beta: f32) -> Gemm {
        Gemm { beta, ..self }
    }

    /// Stored rows of A, B and C `lda`, `ldb` and `ldc` floats apart (each at least its stored
    /// matrix's width). Keeps the strides.
    pub fn leading_dims(self, lda: usize, ldb: usize, ldc: usize) -> Gemm {
        Gemm {
            lda,
            ldb,
            ldc,
            ..self
        }
    }

    /// `op(A)` and `op(B)`; the leading dimensions and strides become the dense ones of the
    /// stored matrices (set other ones after this).
    pub fn ops(self, op_a: Op, op_b: Op) -> Gemm {
        let g = Gemm { op_a, op_b, ..self };
        let (wa, wb) = g.stored_widths();
        Gemm {
            lda: wa,
            ldb: wb,
            ldc: g.n,
            ..g
        }
        .packed()
    }

    /// `batch` problems, packed: each stride is its matrix's span (the leading dimensions set
    /// so far decide it). Set other strides with [`Gemm::strides`] after this.
    pub fn batch(self, batch: usize) -> Gemm {
        Gemm { batch, ..self }.packed()
    }

    /// The distance in floats between consecutive problems' A, B and C.
    pub fn strides(self, stride_a: usize, stride_b: usize, stride_c: usize) -> Gemm {
        Gemm {
            stride_a,
            stride_b,
            stride_c,
            ..self
        }
    }

    fn packed(self) -> Gemm {
        let (a, b, c) = self.spans();
        self.strides(a, b, c)
    }

    /// Whether this is one plain `C = alpha·A·B + beta·C` (no transposes, one problem).
    pub fn is_plain(&self) -> bool {
        self.op_a == Op::N && self.op_b == Op::N && self.batch == 1
    }

    /// Rows and row widths of the stored A and B: `m x k` and `k x n`, or transposed.
    fn stored(&self) -> ((usize, usize), (usize, usize)) {
        let a = match self.op_a {
            Op::N => (self.m, self.k),
            Op::T => (self.k, self.m),
        };
        let b = match self.op_b {
            Op::N => (self.k, self.n),
            Op::T => (self.n, self.k),
        };
        (a, b)
    }

    fn stored_widths(&self) -> (usize, usize) {
        let ((_, wa), (_, wb)) = self.stored();
        (wa, wb)
    }

    /// Elements from the first to the last of one problem's A, B and C: `(rows - 1)·ld + width`
    /// (saturating: [`Gemm::check`] refuses what does not fit).
    pub fn spans(&self) -> (usize, usize, usize) {
        let span = |(rows, cols): (usize, usize), ld: usize| {
            rows.saturating_sub(1)
                .saturating_mul(ld)
                .saturating_add(cols)
        };
        let (a, b) = self.stored();
        (
            span(a, self.lda),
            span(b, self.ldb),
            span((self.m, self.n), self.ldc),
        )
    }

    /// The fewest elements the buffers of A, B and C must hold: the last problem's matrix ends
    /// at `(batch - 1)·stride + span` (saturating).
    pub fn min_lens(&self) -> (usize, usize, usize) {
        let (a, b, c) = self.spans();
        let end = |stride: usize, span: usize| {
            self.batch
                .saturating_sub(1)
                .saturating_mul(stride)
                .saturating_add(span)
        };
        (
            end(self.stride_a, a),
            end(self.stride_b, b),
            end(self.stride_c, c),
        )
    }

    /// Checks the dimensions (1..=16384 each), the leading dimensions (at least the stored
    /// width), the batch (1..=65535) and the strides ([`rgk_core::BadInput`] naming the first
    /// problem).
    pub fn check(&self) -> anyhow::Result<()> {
        check_shape(self.m, self.n, self.k)?;
        let (wa, wb) = self.stored_widths();
        let stored = |op: Op, what: &str| match op {
            Op::N => String::new(),
            Op::T => format!(" of {what} stored transposed"),
        };
        for (what, ld, width, wname, how) in [
            (
                "lda",
                self.lda,
                wa,
                if self.op_a == Op::N { "K" } else { "M" },
                stored(self.op_a, "A"),
            ),
            (
                "ldb",
                self.ldb,
                wb,
                if self.op_b == Op::N { "N" } else { "K" },
                stored(self.op_b, "B"),
            ),
            ("ldc", self.ldc, self.n, "N", String::new()),
        ] {
            if ld < width {
                return bad_input(format!(
                    "{what} = {ld} is smaller than the row width {wname} = {width}{how}"
                ));
            }
            if ld > MAX_LD {
                return bad_input(format!(
                    "{what} = {ld} is too large: leading dimensions must be at most {MAX_LD}"
                ));
            }
        }
        if self.batch == 0 || self.batch > MAX_BATCH {
            return bad_input(format!(
                "batch = {} is out of range: a batch holds 1 to {MAX_BATCH} problems",
                self.batch
            ));
        }
        if self.batch > 1 {
            let (sa, sb, sc) = self.spans();
            for (what, stride, span, input) in [
                ("stride_a", self.stride_a, sa, true),
                ("stride_b", self.stride_b, sb, true),
                ("stride_c", self.stride_c, sc, false),
            ] {
                if stride < span && !(input && stride == 0) {
                    return bad_input(format!(
                        "{what} = {stride} is smaller than one matrix ({span} elements), so \
                         the problems of the batch would overlap"
                    ));
                }
            }
        }
        let (la, lb, lc) = self.min_lens();
        if [la, lb, lc].contains(&usize::MAX) || lc.checked_mul(4).is_none() {
            return bad_input(
                "the batch does not fit in memory: its last matrix ends past \
                              the address space",
            );
        }
        Ok(())
    }

    /// Checks `op` ([`Gemm::check`]) against the device buffers of A, B and C: each holds its
    /// matrices ([`Gemm::min_lens`]), and C shares no memory with A or B. After this, a kernel
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
    /// multiple of 4 floats apart, the buffer 16-byte aligned and long enough for the last
    /// row's final piece ([`Gemm::vector_tail_ok`]).
    pub fn b_vector_ok(&self, b: &DeviceSlice<f32>) -> bool {
        self.ldb.is_multiple_of(4)
            && b.as_device_ptr().as_raw().is_multiple_of(16)
            && self.vector_tail_ok(b.len(), self.min_lens().1, self.stored_widths().1)
    }

    /// Whether A stored `k x m` (`op(A) = T`, copied straight) allows 16-byte pieces, as
    /// [`Gemm::straight_vector_ok`] asks of it: the `_ub_fl` kernels' A
    /// (`FlagshipOpsConfig::vec_a`). False for `op(A) = N`, which is copied transposing.
    pub fn a_straight_vector_ok(&self, a: &DeviceSlice<f32>) -> bool {
        self.op_a == Op::T
            && self.lda.is_multiple_of(4)
            && (self.batch == 1 || self.stride_a.is_multiple_of(4))
            && a.as_device_ptr().as_raw().is_multiple_of(16)
            && self.vector_tail_ok(a.len(), self.min_lens().0, self.stored_widths().0)
    }

    /// Whether a buffer of `len` elements whose problems need `need` (`min_lens`) holds the
    /// whole 16-byte piece that ends the last stored row (of `width` elements): a copy of the
    /// final piece takes `4·(width mod 4)` bytes of it, but compute-sanitizer (and a careful
    /// reader of the PTX) counts the whole piece's address range, so a buffer that stops
    /// inside it runs the 4-byte kernels instead.
    pub fn vector_tail_ok(&self, len: usize, need: usize, width: usize) -> bool {
        len >= need + (width.next_multiple_of(4) - width)
    }

    /// Whether the operands the transposing and batched kernels copy row by row (A with
    /// `op(A) = T`, B with `op(B) = N`) allow 16-byte pieces (`FlagshipOpsConfig::vec`): their
    /// leading dimensions and (in a batch) strides multiples of 4, their buffers 16-byte aligned
    /// and long enough for the last row's final piece ([`Gemm::vector_tail_ok`]).
    pub fn straight_vector_ok(&self, a: &DeviceSlice<f32>, b: &DeviceSlice<f32>) -> bool {
        let (need_a, need_b, _) = self.min_lens();
        let (width_a, width_b) = self.stored_widths();
        let ok = |ld: usize, stride: usize, s: &DeviceSlice<f32>, need: usize, width: usize| {
            ld.is_multiple_of(4)
                && (self.batch == 1 || stride.is_multiple_of(4))
                && s.as_device_ptr().as_raw().is_multiple_of(16)
                && self.vector_tail_ok(s.len(), need, width)
        };
        (self.op_a == Op::N || ok(self.lda, self.stride_a, a, need_a, width_a))
            && (self.op_b == Op::T || ok(self.ldb, self.stride_b, b, need_b, width_b))
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
    fn transposes_and_batches_are_checked_and_named() {
        let t = Gemm::new(3, 4, 5).ops(Op::T, Op::T);
        // A stored 5 x 3, B stored 4 x 5.
        assert_eq!((t.lda, t.ldb, t.ldc), (3, 5, 4));
        assert_eq!(t.spans(), (15, 20, 12));
        assert!(t.check().is_ok());
        let b = t.batch(7);
        assert_eq!((b.stride_a, b.stride_b, b.stride_c), (15, 20, 12));
        assert_eq!(b.min_lens(), (6 * 15 + 15, 6 * 20 + 20, 6 * 12 + 12));
        assert!(b.check().is_ok() && !b.is_plain() && Gemm::new(2, 2, 2).is_plain());
        // Inputs may be shared by every problem (stride 0); C may not.
        assert!(b.strides(0, 0, 12).check().is_ok());
        let cases = [
            (
                t.leading_dims(2, 5, 4),
                "lda = 2 is smaller than the row width M = 3 of A stored transposed",
            ),
            (
                t.leading_dims(3, 4, 4),
                "ldb = 4 is smaller than the row width K = 5 of B stored transposed",
            ),
            (
                b.strides(14, 20, 12),
                "stride_a = 14 is smaller than one matrix (15 elements)",
            ),
            (b.strides(15, 19, 12), "stride_b = 19"),
            (b.strides(15, 20, 0), "stride_c = 0"),
            (t.batch(0), "batch = 0 is out of range"),
            (t.batch(MAX_BATCH + 1), "batch = 65536 is out of range"),
            (b.strides(15, usize::MAX / 2, 12), "does not fit in memory"),
        ];
        for (op, want) in cases {
            let e = op.check().unwrap_err();
            assert!(e.is::<rgk_core::BadInput>(), "{op:?}");
            assert!(e.to_string().contains(want), "{op:?}: {e}");
        }
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

    #[test]
    fn a_16_byte_copy_needs_the_last_rows_whole_piece() {
        // B of 5 x 33 in rows of 36: 177 elements hold every cell, 180 the last 16-byte piece.
        let op = Gemm::new(17, 33, 5).leading_dims(5, 36, 33);
        let need = op.min_lens().1;
        assert_eq!(need, 4 * 36 + 33);
        assert!(!op.vector_tail_ok(need, need, 33));
        assert!(!op.vector_tail_ok(need + 2, need, 33));
        assert!(op.vector_tail_ok(need + 3, need, 33));
        // A width that is a multiple of 4 needs nothing more.
        assert!(op.vector_tail_ok(need, need, 36));
    }
}
